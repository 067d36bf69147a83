import ZeroMQ

/// What every listening socket of a process bounds before a message arrives (issue 28: 16,000
/// CURVE connections with unknown keys and 16,000 plain ones in 2 s stalled the pipeline for
/// seconds): the accept queue, the time a handshake may take, and (deployed mode, counted by the
/// ZAP thread's `ConnectionCensus`) the connections one address and one listener may hold.
public struct ListenerLimits: Sendable, Equatable {
    public static let backlogOption = Option.count(
        "listen-backlog", 1...65_535, default: 1_024,
        help: "connections the kernel queues for each listener until they are accepted (capped by net.core.somaxconn); past it a new connection waits 1 s or more for a SYN retransmission")
    public static let handshakeTimeoutOption = Option.count(
        "handshake-timeout-ms", 100...600_000, default: 5_000,
        help: "a connection that has not finished its handshake (ZMTP, CURVE and the key check) in this long is closed")
    public static let maxPerAddressOption = Option.count(
        "max-connections-per-address", 0...1_000_000, default: 512,
        help: "deployed mode: connections one peer address may hold across this process's listeners (0: no cap); more are closed as they are accepted")
    public static let maxPerListenerOption = Option.count(
        "max-connections-per-listener", 0...1_000_000, default: 8_192,
        help: "deployed mode: connections one listener may hold (0: no cap); keep the open-file limit above the listeners' sum")

    /// The options, in `--help` order.
    public static var specs: [OptionSpec] { [backlogOption.spec, handshakeTimeoutOption.spec, maxPerAddressOption.spec, maxPerListenerOption.spec] }

    public var backlog: Int32
    public var handshakeMilliseconds: Int32
    public var maxPerAddress: Int
    public var maxPerListener: Int

    public init(backlog: Int32, handshakeMilliseconds: Int32, maxPerAddress: Int, maxPerListener: Int) {
        self.backlog = backlog
        self.handshakeMilliseconds = handshakeMilliseconds
        self.maxPerAddress = maxPerAddress
        self.maxPerListener = maxPerListener
    }

    /// The defaults of the options.
    public static let defaults = ListenerLimits(backlog: 1_024, handshakeMilliseconds: 5_000, maxPerAddress: 512, maxPerListener: 8_192)

    /// The limits `config` asks for (read against `specs`).
    public init(_ config: Configuration) {
        self.init(backlog: Int32(config[Self.backlogOption]), handshakeMilliseconds: Int32(config[Self.handshakeTimeoutOption]),
                  maxPerAddress: config[Self.maxPerAddressOption], maxPerListener: config[Self.maxPerListenerOption])
    }

    /// Sets the accept queue and the handshake time of a socket about to bind.
    public func apply(to socket: Socket) throws {
        try socket.setBacklog(backlog)
        try socket.setHandshakeInterval(milliseconds: handshakeMilliseconds)
    }
}
