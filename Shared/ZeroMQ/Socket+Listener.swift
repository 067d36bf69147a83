import CZeroMQ

/// What a listening socket takes in before any message: how many connections wait to be accepted,
/// and how long one may take to finish its handshake.
extension Socket {
    /// `ZMQ_BACKLOG`: connections the kernel queues for this socket's listener before they are
    /// accepted (libzmq's default is 100; the kernel caps it at `net.core.somaxconn`). Past it new
    /// connections wait for a SYN retransmission (1 s, then 3 s): a flood of connections would
    /// delay every honest client by seconds. Set before `bind`.
    public func setBacklog(_ connections: Int32) throws(ZeroMQError) { try setIntOption(ZMQ_BACKLOG, connections, "ZMQ_BACKLOG") }
    public var backlog: Int32 { get throws(ZeroMQError) { try intOption(ZMQ_BACKLOG, "ZMQ_BACKLOG") } }

    /// `ZMQ_HANDSHAKE_IVL`: a connection that has not finished its ZMTP handshake (and its CURVE
    /// and ZAP exchange) within this many milliseconds is closed (libzmq's default is 30 s).
    public func setHandshakeInterval(milliseconds: Int32) throws(ZeroMQError) { try setIntOption(ZMQ_HANDSHAKE_IVL, milliseconds, "ZMQ_HANDSHAKE_IVL") }
    public var handshakeInterval: Int32 { get throws(ZeroMQError) { try intOption(ZMQ_HANDSHAKE_IVL, "ZMQ_HANDSHAKE_IVL") } }
}
