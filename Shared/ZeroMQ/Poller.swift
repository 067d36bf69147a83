import CZeroMQ

/// Waits on several sockets at once with `zmq_poll`.
///
/// Used by a service's reactor thread: it registers its sockets once, then polls with a timeout
/// that ends at the next timer.
public struct Poller {
    /// What to wait for on a socket.
    public struct Events: OptionSet, Sendable {
        public let rawValue: Int16
        public init(rawValue: Int16) { self.rawValue = rawValue }
        public static let readable = Events(rawValue: Int16(ZMQ_POLLIN))
        public static let writable = Events(rawValue: Int16(ZMQ_POLLOUT))
    }

    /// The socket of each entry; nil for a file descriptor's.
    private var sockets: [Socket?] = []
    private var items: [zmq_pollitem_t] = []

    public init() {}

    /// Adds a socket; returns its index in the results of `poll`.
    @discardableResult
    public mutating func register(_ socket: Socket, events: Events = .readable) -> Int {
        sockets.append(socket)
        items.append(zmq_pollitem_t(socket: socket.handle, fd: 0, events: events.rawValue, revents: 0))
        return sockets.count - 1
    }

    /// Adds a file descriptor (a `WakeTimer`'s); returns its index in the results of `poll`.
    @discardableResult
    public mutating func register(fileDescriptor: Int32, events: Events = .readable) -> Int {
        sockets.append(nil)
        items.append(zmq_pollitem_t(socket: nil, fd: fileDescriptor, events: events.rawValue, revents: 0))
        return sockets.count - 1
    }

    /// Puts `socket` in the place of the registered socket at `index` (one that was rebuilt).
    public mutating func replace(at index: Int, with socket: Socket) {
        sockets[index] = socket
        items[index].socket = socket.handle
    }

    /// The index of a registered socket, if it is registered.
    public func index(of socket: Socket) -> Int? { sockets.firstIndex { $0 === socket } }

    /// Waits until a registered socket is ready or the timeout passes (-1 waits forever, 0 checks).
    /// Returns the indices of the ready sockets; empty on timeout or when a signal interrupted the wait.
    public mutating func poll(timeoutMilliseconds: Int) throws(ZeroMQError) -> [Int] {
        // A closed socket's handle is nil, and a nil socket makes zmq_poll watch file descriptor
        // `fd` (0, stdin) instead: refuse it rather than report stdin's readiness as the socket's.
        for i in items.indices {
            if let socket = sockets[i] { items[i].socket = try socket.live("zmq_poll") }
        }
        let count = items.count
        let rc = items.withUnsafeMutableBufferPointer { zmq_poll($0.baseAddress, Int32(count), timeoutMilliseconds) }
        if rc < 0 {
            let error = ZeroMQError.last("zmq_poll")
            if error.isInterrupted { return [] }
            throw error
        }
        if rc == 0 { return [] }
        return items.indices.filter { items[$0].revents != 0 }
    }

    /// Waits for one socket; true when it became ready before the timeout.
    public static func wait(for socket: Socket, events: Events, timeoutMilliseconds: Int32) throws(ZeroMQError) -> Bool {
        var poller = Poller()
        poller.register(socket, events: events)
        return try !poller.poll(timeoutMilliseconds: Int(timeoutMilliseconds)).isEmpty
    }
}
