import CZeroMQ

/// A failed libzmq call: the operation, errno and libzmq's own text for it.
public struct ZeroMQError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The errno value libzmq reported.
    public let errno: Int32
    /// What we were doing ("zmq_bind tcp://127.0.0.1:7401").
    public let operation: String
    /// `zmq_strerror(errno)`.
    public let message: String

    public init(errno: Int32, operation: String) {
        self.errno = errno
        self.operation = operation
        self.message = String(cString: zmq_strerror(errno))
    }

    /// Captures the calling thread's libzmq errno right after a failed call.
    static func last(_ operation: String) -> ZeroMQError {
        ZeroMQError(errno: cafe_zmq_errno(), operation: operation)
    }

    /// The call would have blocked (non-blocking mode or a timeout expired).
    public var isAgain: Bool { errno == cafe_EAGAIN() }
    /// The context was terminated; the socket must be closed.
    public var isTerminated: Bool { errno == cafe_ETERM() }
    /// A signal interrupted the call.
    public var isInterrupted: Bool { errno == cafe_EINTR() }
    /// The socket's state machine does not allow this call now (REQ sent twice, say).
    public var isWrongState: Bool { errno == cafe_EFSM() }

    public var description: String { "\(operation): \(message) (errno \(errno))" }
}
