import Foundation
import ServiceRuntime

/// Where cafectl finds each service: a flag, else `CAFE_<NAME>_ENDPOINT`, else the local default.
struct Endpoints {
    static let services: [(name: String, flag: String, port: Int)] = [
        ("bus", "bus", 7403),
        ("beacon-ingest", "ingest", 7410),
        ("region-monitor", "region", 7420),
        ("order-service", "orders", 7430),
        ("kitchen-display", "kitchen", 7440),
        ("notification-service", "notify", 7450),
    ]
    static let flagNames: Set<String> = Set(services.map(\.flag) + ["bus-pub", "bus-sub", "timeout-ms"])

    private var values: [String: String] = [:]
    let timeoutMilliseconds: Int32

    init(_ arguments: Arguments) throws {
        let env = ProcessInfo.processInfo.environment
        func pick(_ flag: String, _ fallback: String) -> String {
            arguments.flags[flag]?.last ?? env["CAFE_\(flag.uppercased().replacingOccurrences(of: "-", with: "_"))_ENDPOINT"] ?? fallback
        }
        for service in Self.services { values[service.flag] = pick(service.flag, "tcp://127.0.0.1:\(service.port)") }
        values["bus-pub"] = pick("bus-pub", "tcp://127.0.0.1:7401")
        values["bus-sub"] = pick("bus-sub", "tcp://127.0.0.1:7402")
        var timeout = arguments
        timeoutMilliseconds = Int32(try timeout.value("timeout-ms", .count(1...600_000), default: "5000"))!
    }

    subscript(flag: String) -> String { values[flag]! }
}
