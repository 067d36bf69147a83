import CZeroMQ

/// A libzmq context: the I/O threads every socket of a process shares.
///
/// libzmq contexts are thread-safe, so this class is `Sendable`. Every `Socket` holds a strong
/// reference to its context, so the context is terminated only after its last socket is closed
/// (`zmq_ctx_term` would otherwise block forever on an open socket).
public final class Context: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
    /// Background I/O threads. With two or more, a socket that binds is served by the last and
    /// every socket that connects by the first (see `Socket.bind`, `Socket.connect`).
    public let ioThreads: Int32

    /// Creates a context with `ioThreads` background I/O threads and room for `maxSockets` sockets.
    public init(ioThreads: Int32 = 1, maxSockets: Int32 = 4096) throws(ZeroMQError) {
        guard let handle = zmq_ctx_new() else { throw .last("zmq_ctx_new") }
        self.handle = handle
        self.ioThreads = ioThreads
        if zmq_ctx_set(handle, ZMQ_IO_THREADS, ioThreads) != 0 { throw .last("zmq_ctx_set ZMQ_IO_THREADS") }
        // Our frames carry JSON; do not let the context cap sockets below our own limits.
        _ = zmq_ctx_set(handle, ZMQ_MAX_SOCKETS, maxSockets)
    }

    /// Makes every blocking call on this context's sockets return `ETERM`, from any thread.
    /// Used to unblock a reactor on shutdown; sockets must still be closed by their owners.
    public func shutdown() {
        _ = zmq_ctx_shutdown(handle)
    }

    /// Whether this libzmq was built with a capability ("curve", "ipc", "draft").
    public static func has(_ capability: String) -> Bool {
        zmq_has(capability) != 0
    }

    /// The libzmq version this process runs against, e.g. (4, 3, 4).
    public static var version: (major: Int32, minor: Int32, patch: Int32) {
        var major: Int32 = 0, minor: Int32 = 0, patch: Int32 = 0
        zmq_version(&major, &minor, &patch)
        return (major, minor, patch)
    }

    deinit {
        // Retry on EINTR as zmq_ctx_term(3) asks; all sockets are closed by now (they retain us).
        while zmq_ctx_term(handle) != 0 && cafe_zmq_errno() == cafe_EINTR() {}
    }
}
