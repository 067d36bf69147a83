import Foundation

/// Ends the process a little after shutdown has done its work, whatever is still tearing down.
///
/// libzmq's `zmq_ctx_term` waits for the context's I/O threads, and an I/O thread in a blocking
/// name lookup (`getaddrinfo` waiting on a DNS server that does not answer) can hold it for as
/// long as the resolver's timeouts add up to: 20 s and more. A service must exit within 2 s of
/// SIGTERM, so once its state is stored and its sockets closed this thread ends it.
public enum ExitWatchdog {
    /// Starts a thread that exits the process with status 0 after `seconds`, unless it has
    /// exited by then.
    public static func arm(seconds: Double) {
        let thread = Thread {
            Thread.sleep(forTimeInterval: seconds)
            FileHandle.standardError.write(Data("{\"msg\":\"exit forced: libzmq's context was still terminating\"}\n".utf8))
            _exit(0)
        }
        thread.start()
    }
}
