import CZeroMQ
import Foundation

/// One libzmq socket, owned by the thread that created it.
///
/// libzmq sockets are not thread-safe: create, use and `close()` a socket on one thread.
/// The socket keeps its `Context` alive. `close()` is explicit; `deinit` only closes a socket
/// somebody forgot, as a safety net.
public final class Socket {
    /// The context this socket lives in; retained so it outlives the socket.
    public let context: Context
    public let type: SocketType
    private(set) var handle: UnsafeMutableRawPointer?
    private let owner: pthread_t

    public init(_ context: Context, _ type: SocketType) throws(ZeroMQError) {
        guard let handle = zmq_socket(context.handle, type.raw) else { throw .last("zmq_socket \(type)") }
        self.context = context
        self.type = type
        self.handle = handle
        self.owner = pthread_self()
    }

    /// Whether `close()` has run.
    public var isClosed: Bool { handle == nil }

    func live(_ operation: @autoclosure () -> String) throws(ZeroMQError) -> UnsafeMutableRawPointer {
        guard let handle else { throw ZeroMQError(errno: ENOTSOCK, operation: operation()) }
        return handle
    }

    /// Binds to an endpoint ("tcp://127.0.0.1:7401", "tcp://127.0.0.1:*", "inproc://x").
    ///
    /// With several I/O threads, what this socket accepts is served by the context's last one.
    public func bind(_ endpoint: String) throws(ZeroMQError) {
        let h = try live("zmq_bind \(endpoint)")
        try pinToIOThread(context.ioThreads - 1)
        if zmq_bind(h, endpoint) != 0 { throw .last("zmq_bind \(endpoint)") }
    }

    /// Connects to an endpoint; libzmq connects (and reconnects) in the background.
    ///
    /// libzmq resolves a peer's name on the I/O thread that connects, with a blocking
    /// `getaddrinfo`: a DNS server that does not answer holds that thread for seconds at every
    /// reconnect. With several I/O threads every connecting socket uses the first, so what this
    /// process serves (health above all) stays on another and keeps answering.
    ///
    /// A TCP connection also gets ZMTP heartbeats (a ping every 30 s, dropped and redialled after
    /// 90 s of silence) unless the caller set its own: a connection idle for hours (a request
    /// socket at night) must not be cut silently by a stateful middlebox, such as Docker Swarm's
    /// IPVS, which forgets idle connections after 900 s, and a peer whose host is gone is noticed.
    public func connect(_ endpoint: String) throws(ZeroMQError) {
        let h = try live("zmq_connect \(endpoint)")
        try pinToIOThread(0)
        if endpoint.hasPrefix("tcp://"), try heartbeat.interval == 0 {
            try setHeartbeat(intervalMilliseconds: Socket.tcpHeartbeatMilliseconds, timeoutMilliseconds: 3 * Socket.tcpHeartbeatMilliseconds)
        }
        if zmq_connect(h, endpoint) != 0 { throw .last("zmq_connect \(endpoint)") }
    }

    /// The ZMTP ping interval `connect` gives TCP connections that have none.
    public static let tcpHeartbeatMilliseconds: Int32 = 30_000

    /// Sets `ZMQ_AFFINITY` to one I/O thread when the context has more than one (else leaves libzmq's choice).
    private func pinToIOThread(_ index: Int32) throws(ZeroMQError) {
        guard context.ioThreads > 1 else { return }
        let h = try live("zmq_setsockopt ZMQ_AFFINITY")
        var mask = UInt64(1) << UInt64(index)
        if zmq_setsockopt(h, ZMQ_AFFINITY, &mask, MemoryLayout<UInt64>.size) != 0 { throw .last("zmq_setsockopt ZMQ_AFFINITY") }
    }

    /// Drops a connection made with `connect`.
    public func disconnect(_ endpoint: String) throws(ZeroMQError) {
        let h = try live("zmq_disconnect \(endpoint)")
        if zmq_disconnect(h, endpoint) != 0 { throw .last("zmq_disconnect \(endpoint)") }
    }

    /// Stops listening on an endpoint made with `bind`, and ends every connection accepted on it
    /// (libzmq terminates the listener and the sessions it launched). A wildcard endpoint must be
    /// given as bound (`lastEndpoint`).
    public func unbind(_ endpoint: String) throws(ZeroMQError) {
        let h = try live("zmq_unbind \(endpoint)")
        if zmq_unbind(h, endpoint) != 0 { throw .last("zmq_unbind \(endpoint)") }
    }

    /// The endpoint actually bound, e.g. the port libzmq chose for "tcp://127.0.0.1:*".
    public var lastEndpoint: String {
        get throws(ZeroMQError) { try stringOption(ZMQ_LAST_ENDPOINT) }
    }

    /// Closes the socket. Pending outgoing messages are kept for at most the linger period.
    /// Must run on the thread that created the socket.
    public func close() {
        guard let handle else { return }
        assert(pthread_equal(owner, pthread_self()) != 0, "a ZeroMQ socket must be closed on the thread that owns it")
        zmq_close(handle)
        self.handle = nil
    }

    deinit {
        // Safety net only: owners close explicitly. Do not wait for unsent messages here.
        if let handle {
            var zero: Int32 = 0
            zmq_setsockopt(handle, ZMQ_LINGER, &zero, MemoryLayout<Int32>.size)
            zmq_close(handle)
        }
    }
}

// MARK: - Sending

extension Socket {
    /// Sends one frame; `more` marks that further frames of the same message follow.
    public func send(_ frame: some ContiguousBytes, more: Bool = false, dontWait: Bool = false) throws(ZeroMQError) {
        let h = try live("zmq_send")
        let flags = (more ? ZMQ_SNDMORE : 0) | (dontWait ? ZMQ_DONTWAIT : 0)
        while true {
            let rc = frame.withUnsafeBytes { zmq_send(h, $0.baseAddress, $0.count, flags) }
            if rc >= 0 { return }
            let error = ZeroMQError.last("zmq_send")
            if !error.isInterrupted { throw error }
        }
    }

    /// Sends a string frame as UTF-8, from where the string holds it (no array made per frame:
    /// every event's topic goes out this way).
    public func send(_ string: String, more: Bool = false, dontWait: Bool = false) throws(ZeroMQError) {
        var text = string
        var failure: ZeroMQError?
        text.withUTF8 { utf8 in
            do throws(ZeroMQError) { try send(UnsafeRawBufferPointer(utf8), more: more, dontWait: dontWait) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Sends a multipart message atomically: peers receive all frames or none.
    public func send(multipart frames: [Data], dontWait: Bool = false) throws(ZeroMQError) {
        precondition(!frames.isEmpty, "a ZeroMQ message has at least one frame")
        for (index, frame) in frames.enumerated() {
            try send(frame, more: index < frames.count - 1, dontWait: dontWait)
        }
    }
}

// MARK: - Receiving

extension Socket {
    /// Receives one whole multipart message.
    ///
    /// Each frame goes through its own `zmq_msg_t`, so frames of any size arrive whole: there is no
    /// fixed receive buffer to over-read or truncate. Throws `isAgain` when `dontWait` is set and
    /// nothing is queued, or when the receive timeout expires.
    public func receiveMultipart(dontWait: Bool = false) throws(ZeroMQError) -> [Data] {
        let h = try live("zmq_msg_recv")
        var frames: [Data] = []
        var msg = zmq_msg_t()
        var flags = dontWait ? ZMQ_DONTWAIT : 0
        while true {
            zmq_msg_init(&msg)
            defer { zmq_msg_close(&msg) }
            var rc: Int32
            repeat {
                rc = zmq_msg_recv(&msg, h, flags)
            } while rc < 0 && cafe_zmq_errno() == cafe_EINTR()
            if rc < 0 { throw .last("zmq_msg_recv") }
            let size = zmq_msg_size(&msg)
            if size == 0 {
                frames.append(Data())
            } else {
                frames.append(Data(bytes: zmq_msg_data(&msg), count: size))
            }
            if zmq_msg_more(&msg) == 0 { return frames }
            // The rest of a multipart message is already queued; never wait between its frames.
            flags = 0
        }
    }

    /// Receives one message if one is queued now, else nil.
    public func tryReceiveMultipart() throws(ZeroMQError) -> [Data]? {
        do {
            return try receiveMultipart(dontWait: true)
        } catch where error.isAgain {
            return nil
        }
    }

    /// Receives one message, waiting at most `timeoutMilliseconds` (-1 waits forever); nil on timeout.
    public func receiveMultipart(timeoutMilliseconds: Int32) throws(ZeroMQError) -> [Data]? {
        if timeoutMilliseconds >= 0 {
            let ready = try Poller.wait(for: self, events: .readable, timeoutMilliseconds: timeoutMilliseconds)
            if !ready { return nil }
        }
        return try receiveMultipart()
    }

    /// Moves every frame of one queued message to `destination` without copying (a proxy hop).
    /// Returns false when nothing was queued.
    public func forwardOne(to destination: Socket) throws(ZeroMQError) -> Bool {
        let src = try live("zmq_msg_recv")
        let dst = try destination.live("zmq_msg_send")
        var msg = zmq_msg_t()
        var flags = ZMQ_DONTWAIT
        while true {
            zmq_msg_init(&msg)
            var rc: Int32
            repeat {
                rc = zmq_msg_recv(&msg, src, flags)
            } while rc < 0 && cafe_zmq_errno() == cafe_EINTR()
            if rc < 0 {
                let error = ZeroMQError.last("zmq_msg_recv")
                zmq_msg_close(&msg)
                if error.isAgain && flags == ZMQ_DONTWAIT { return false }
                throw error
            }
            let more = zmq_msg_more(&msg) != 0
            // zmq_msg_send takes ownership of the message content on success.
            repeat {
                rc = zmq_msg_send(&msg, dst, more ? ZMQ_SNDMORE : 0)
            } while rc < 0 && cafe_zmq_errno() == cafe_EINTR()
            if rc < 0 {
                let error = ZeroMQError.last("zmq_msg_send")
                zmq_msg_close(&msg)
                throw error
            }
            if !more { return true }
            flags = 0
        }
    }
}

// MARK: - Raw access

extension Socket {
    /// The libzmq socket itself, for a caller that drives libzmq's C API directly (the raw
    /// benchmark, which must measure libzmq and nothing of ours). Same thread rules as the socket.
    public func rawHandle() throws(ZeroMQError) -> UnsafeMutableRawPointer { try live("raw handle") }
}
