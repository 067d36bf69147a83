import BusCore
import Messages
import ServiceRuntime

/// The bus's options, each declared once with its default, range and help. The bus is no
/// service (no database, no outbox), so it has its own set rather than `CommonOptions`.
enum BusOptions {
    static let xsub = Option<String>("xsub", .endpoint, default: "tcp://127.0.0.1:7401", help: "where publishers connect (bound XSUB)")
    static let xpub = Option<String>("xpub", .endpoint, default: "tcp://127.0.0.1:7402", help: "where subscribers connect (bound XPUB)")
    static let listen = Option<String>("listen", .endpoint, default: "tcp://127.0.0.1:7403", help: "where the bus answers health requests")
    static let capture = Option<String>("capture", .string, default: "", help: "optional endpoint to bind a PUB socket that copies every message (empty: off)")
    static let instance = Option<String>("instance", .string, default: "bus", help: "instance name in logs and health")
    // libzmq takes the mark as a C int: a larger one is refused at start, not trapped on.
    static let hwm = Option.count("hwm", 0...Int(Int32.max), default: 200_000, help: "high-water mark of each side, in messages")
    // The same bound and default as every service's: a publication the consumers would refuse as
    // too large still reaches them to be dead-lettered with the reason, up to twice the bound;
    // beyond that libzmq drops the sender before the bus holds the frame.
    static let maxMessageBytes = Option.count("max-message-bytes", 1_024...64 * 1_024 * 1_024, default: Wire.defaultMaxFrameBytes,
                                              help: "publications larger than twice this are refused by the transport (set it as the services' --max-message-bytes)")

    // What one subscriber may make the bus hold and do (issue 28; `SubscriptionBudget`, `SubscriberLinks`).
    static let subscriberMaxBytes = Option.count("subscriber-max-bytes", 1_048_576...Int(Int32.max), default: 1_024 * 1_048_576,
                                                 help: "bytes the bus may queue for one subscriber: its send high-water mark is this over twice --max-message-bytes (at most --hwm)")
    static let slowSubscriberSeconds = Option.seconds("slow-subscriber-seconds", default: 5,
                                                      help: "a subscriber that acknowledges nothing of what waits for it this long is cut")
    static let maxPrefixBytes = Option.count("subscription-max-prefix-bytes", 1...4_095, default: 256,
                                             help: "the longest subscription prefix (deployed: a longer one is refused; one over 256 bytes longer drops its link in the transport)")
    static let maxHeld = Option.count("subscription-max-held", 1...100_000, default: 64, help: "subscription prefixes one subscriber connection may hold")
    static let maxHeldBytes = Option.count("subscription-max-held-bytes", 1...16 * 1_048_576, default: 4_096,
                                           help: "the bytes of the prefixes one subscriber connection holds, together")
    static let subscriptionBurst = Option.count("subscription-burst", 1...100_000, default: 100, help: "subscription changes one connection may make at once")
    static let subscriptionRate = Option.rate("subscription-rate", default: 10, help: "subscription changes a second one connection may make after its burst")

    /// Every option, in `--help` order: the bus's own, then the security options.
    static var specs: [OptionSpec] {
        [xsub.spec, xpub.spec, listen.spec, capture.spec, instance.spec, CommonOptions.logLevel.spec, hwm.spec, maxMessageBytes.spec,
         subscriberMaxBytes.spec, slowSubscriberSeconds.spec, maxPrefixBytes.spec, maxHeld.spec, maxHeldBytes.spec, subscriptionBurst.spec,
         subscriptionRate.spec] + SocketSecurity.specs
    }

    /// The subscription budget of each connection, as configured.
    static func subscriptionLimits(_ config: Configuration) -> SubscriptionBudget.Limits {
        var limits = SubscriptionBudget.Limits()
        limits.maxPrefixBytes = config[maxPrefixBytes]
        limits.maxHeld = config[maxHeld]
        limits.maxHeldBytes = config[maxHeldBytes]
        limits.burst = Double(config[subscriptionBurst])
        limits.perSecond = config[subscriptionRate]
        return limits
    }

    /// What a subscriber connection may send and how long it may stall: subscriptions at the
    /// budget's pace (each at most a prefix, its flag byte and 64 bytes of framing and CURVE), with
    /// 16 KiB at once and 1 KiB a second to spare for handshakes and heartbeats.
    static func linkLimits(_ config: Configuration) -> SubscriberLinks.Limits {
        let subscriptions = subscriptionLimits(config)
        let message = Double(subscriptions.maxPrefixBytes + 65)
        var limits = SubscriberLinks.Limits()
        limits.stalledSeconds = config[slowSubscriberSeconds]
        limits.inboundBurstBytes = subscriptions.burst * message + 16_384
        limits.inboundBytesPerSecond = subscriptions.perSecond * message + 1_024
        return limits
    }

    /// The XPUB side's send high-water mark: what one subscriber may hold, in messages of the
    /// largest size the bus forwards (twice --max-message-bytes), so messages × bytes stays within
    /// --subscriber-max-bytes; at least 1, at most --hwm.
    static func subscriberHighWaterMark(_ config: Configuration) -> Int32 {
        let cap = config[hwm] == 0 ? Int(Int32.max) : config[hwm]
        return Int32(max(1, min(cap, config[subscriberMaxBytes] / (2 * config[maxMessageBytes]))))
    }
}
