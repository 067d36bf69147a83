import ServiceRuntime

/// `load-test abuse`'s options (beside `load-test run`'s, which shape the steady load) and the
/// settings read from them.
struct AbuseSettings {
    static let attacks = Option.list("attacks", default: AbuseAttacks.names,
                                     help: "the attacks to run, one after another, comma-separated (handshakes, replays, requests, subscriptions, slow-subscriber)")
    static let ramp = Option.seconds("ramp-seconds", .nonNegative, default: 2, help: "seconds an attack runs before the steady load's measurement starts")
    static let settle = Option.seconds("recover-seconds", .nonNegative, default: 20,
                                       help: "seconds after an attack before memory is read again (services hand freed heap back every 10 s)")
    static let replayClients = Option.count("replay-clients", 1...1_000, default: 50, help: "replays: operator clients, each with a key of its own")
    static let replayEndpoint = Option<String>("replay-endpoint", .endpoint, default: "tcp://127.0.0.1:7430",
                                               help: "replays: the request endpoint replayed from (deployed: name@tcp://… names its key; default order-service)")
    static let replayStream = Option<String>("replay-stream", default: "order", help: "replays: the stream replayed, from seq 1, 1,000 events a page")
    static let churnPrefixes = Option.count("churn-prefixes", 1...10_000_000, default: 10_000, help: "subscriptions: distinct prefixes subscribed")
    static let churnPrefixBytes = Option.count("churn-prefix-bytes", 1...1_000_000, default: 4_000, help: "subscriptions: bytes in each prefix")
    static let churnHeld = Option.count("churn-held", 0...100_000, default: 50, help: "subscriptions: prefixes held at once (older ones are dropped)")
    static let edge = Option<String>("edge", .endpoint, default: "tcp://127.0.0.1:7460", help: "the HTTP edge's request endpoint (its health and memory are watched; not required)")

    /// Every option, in `--help` order: the attacks', then the steady load's (`load-test run`), then security.
    static var specs: [OptionSpec] {
        [attacks.spec, ramp.spec, settle.spec, replayClients.spec, replayEndpoint.spec, replayStream.spec, churnPrefixes.spec, churnPrefixBytes.spec,
         churnHeld.spec, slowSubscribers.spec, slowReaders.spec, edge.spec] + HandshakeFlood.specs + RunOptions.specs.filter { $0.name != RunOptions.json.spec.name }
    }

    var load: RunSettings
    var attacks: [String]
    var rampSeconds: Double
    var settleSeconds: Double
    var replayClients: Int
    var replayEndpoint: String
    var replayStream: String
    var churnPrefixes: Int
    var churnPrefixBytes: Int
    var churnHeld: Int
    var slowSubscribers: Int
    var slowReaders: Int
    var edge: String
    var handshakes: HandshakeFlood.Settings
    var orders: String { load.orders }
    var busSub: String { load.busSub }

    init(_ config: Configuration) {
        load = RunSettings(config)
        attacks = config[Self.attacks]
        rampSeconds = config[Self.ramp]
        settleSeconds = config[Self.settle]
        replayClients = config[Self.replayClients]
        replayEndpoint = config[Self.replayEndpoint]
        replayStream = config[Self.replayStream]
        churnPrefixes = config[Self.churnPrefixes]
        churnPrefixBytes = config[Self.churnPrefixBytes]
        churnHeld = config[Self.churnHeld]
        slowSubscribers = config[Self.slowSubscribers]
        slowReaders = config[Self.slowReaders]
        edge = config[Self.edge]
        handshakes = HandshakeFlood.Settings(config)
    }
}
