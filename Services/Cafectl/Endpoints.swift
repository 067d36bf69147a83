import Foundation
import ServiceRuntime
import ZeroMQ

/// Where cafectl finds each service: a flag, else `CAFE_<FLAG>_ENDPOINT`, else the local default.
/// An endpoint may name its server's principal (`region-monitor-s0@tcp://host:7420`); without a
/// name the service's own name is expected, as `deploy/run-local.sh --secure` runs them.
struct Endpoints {
    static let bus = endpoint("bus", port: 7403, "the bus's request socket (its health)")
    static let ingest = endpoint("ingest", port: 7410, "beacon-ingest's request socket")
    static let region = endpoint("region", port: 7420, "region-monitor's request socket")
    static let orders = endpoint("orders", port: 7430, "order-service's request socket")
    static let kitchen = endpoint("kitchen", port: 7440, "kitchen-display's command socket")
    static let notify = endpoint("notify", port: 7450, "notification-service's request socket")
    /// The HTTP edge's request socket (health and the token ops); not in `services`, so health
    /// and `request` keep to the five services and the bus unless asked.
    static let edge = endpoint("edge", port: 7460, "the HTTP edge's request socket (cafectl tokens)")
    static let busPub = endpoint("bus-pub", port: 7401, "the bus endpoint publishers connect to (its XSUB side)")
    static let busSub = endpoint("bus-sub", port: 7402, "the bus endpoint subscribers connect to (its XPUB side)")
    static let timeout = Option.count("timeout-ms", 1...600_000, default: 5_000, help: "how long a request waits for its reply, in milliseconds")

    /// Each service by name, with its endpoint flag.
    static let services: [(name: String, option: Option<String>)] = [
        ("bus", bus), ("beacon-ingest", ingest), ("region-monitor", region), ("order-service", orders),
        ("kitchen-display", kitchen), ("notification-service", notify),
    ]

    /// The flags every command takes: endpoints, the timeout, and who cafectl acts as.
    static let flags: [CommandFlag] = (services.map(\.option) + [edge, busPub, busSub]).map { CommandFlag($0, environment: environmentName($0)) }
        + [CommandFlag(timeout)] + Identity.flags

    private static func endpoint(_ flag: String, port: Int, _ help: String) -> Option<String> {
        Option(flag, .endpoint, default: "tcp://127.0.0.1:\(port)", help: help)
    }

    /// `--bus-pub` is read from `CAFE_BUS_PUB_ENDPOINT`.
    private static func environmentName(_ option: Option<String>) -> String {
        "CAFE_\(option.name.uppercased().replacingOccurrences(of: "-", with: "_"))_ENDPOINT"
    }

    private let values: CommandValues
    let timeoutMilliseconds: Int32
    let identity: Identity

    init(_ values: CommandValues, identity: Identity) {
        self.values = values
        timeoutMilliseconds = Int32(values[Self.timeout])
        self.identity = identity
    }

    /// The endpoint as given, server name included.
    subscript(option: Option<String>) -> String { values[option] }

    /// The server principal behind `option` when its endpoint names none.
    static func defaultServer(_ option: Option<String>) -> String {
        option.name == edge.name ? "edge" : services.first { $0.option.name == option.name }?.name ?? "bus"
    }

    /// A request client to the service behind `option`, secured as `identity` in deployed mode.
    func client(_ option: Option<String>, context: Context, timeoutMilliseconds timeout: Int32? = nil) throws -> RequestClient {
        do {
            return try identity.security.requestClient(context: context, peer: self[option], defaultServer: Self.defaultServer(option),
                                                       timeoutMilliseconds: timeout ?? timeoutMilliseconds)
        } catch let error as SecurityError {
            throw UsageError("--\(option.name) \(self[option]): \(error.message)")
        }
    }

    /// Connects `socket` to the bus endpoint behind `option` (bus-pub or bus-sub), as a CURVE client in deployed mode.
    func connect(_ socket: Socket, to option: Option<String>) throws {
        let (server, endpoint) = PeerEndpoint.split(self[option], defaultName: "bus")
        do {
            try identity.security.secureClient(socket, server: server)
        } catch let error as SecurityError {
            throw UsageError("--\(option.name) \(self[option]): \(error.message)")
        }
        try socket.connect(endpoint)
    }
}
