import Foundation
import ServiceRuntime
import ZeroMQ

/// Where cafectl finds each service: a flag, else `CAFE_<NAME>_ENDPOINT`, else the local default.
/// An endpoint may name its server's principal (`region-monitor-s0@tcp://host:7420`); without a
/// name the service's own name is expected, as `deploy/run-local.sh --secure` runs them.
struct Endpoints {
    static let services: [(name: String, flag: String, port: Int)] = [
        ("bus", "bus", 7403),
        ("beacon-ingest", "ingest", 7410),
        ("region-monitor", "region", 7420),
        ("order-service", "orders", 7430),
        ("kitchen-display", "kitchen", 7440),
        ("notification-service", "notify", 7450),
    ]
    /// The flags every command takes: endpoints, the timeout, and who cafectl acts as.
    static let flagNames: Set<String> = Set(services.map(\.flag) + ["bus-pub", "bus-sub", "timeout-ms"]).union(Identity.flagNames)

    private var values: [String: String] = [:]
    let timeoutMilliseconds: Int32
    let identity: Identity

    init(_ arguments: Arguments, identity: Identity) throws {
        let env = ProcessInfo.processInfo.environment
        func pick(_ flag: String, _ fallback: String) -> String {
            arguments.flags[flag]?.last ?? env["CAFE_\(flag.uppercased().replacingOccurrences(of: "-", with: "_"))_ENDPOINT"] ?? fallback
        }
        for service in Self.services { values[service.flag] = pick(service.flag, "tcp://127.0.0.1:\(service.port)") }
        values["bus-pub"] = pick("bus-pub", "tcp://127.0.0.1:7401")
        values["bus-sub"] = pick("bus-sub", "tcp://127.0.0.1:7402")
        var timeout = arguments
        timeoutMilliseconds = Int32(try timeout.value("timeout-ms", .count(1...600_000), default: "5000"))!
        self.identity = identity
    }

    /// The endpoint as given, server name included.
    subscript(flag: String) -> String { values[flag]! }

    /// The server principal behind `flag` when its endpoint names none.
    static func defaultServer(_ flag: String) -> String {
        services.first { $0.flag == flag }?.name ?? "bus"
    }

    /// A request client to the service behind `flag`, secured as `identity` in deployed mode.
    func client(_ flag: String, context: Context, timeoutMilliseconds timeout: Int32? = nil) throws -> RequestClient {
        do {
            return try identity.security.requestClient(context: context, peer: self[flag], defaultServer: Self.defaultServer(flag),
                                                       timeoutMilliseconds: timeout ?? timeoutMilliseconds)
        } catch let error as SecurityError {
            throw UsageError("--\(flag) \(self[flag]): \(error.message)")
        }
    }

    /// Connects `socket` to the bus endpoint behind `flag` (bus-pub or bus-sub), as a CURVE client in deployed mode.
    func connect(_ socket: Socket, to flag: String) throws {
        let (server, endpoint) = PeerEndpoint.split(self[flag], defaultName: "bus")
        do {
            try identity.security.secureClient(socket, server: server)
        } catch let error as SecurityError {
            throw UsageError("--\(flag) \(self[flag]): \(error.message)")
        }
        try socket.connect(endpoint)
    }
}
