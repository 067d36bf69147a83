import Foundation
import Testing

/// deploy/README.md's ports table is what an operator opens firewalls and writes compose files
/// from: each port in it must be the one the executable listens on by default, as its `--help`
/// says, and the services must dial the bus on the ports the table gives the bus.
@Suite("deploy/README.md's ports")
struct ManualPortsTests {
    /// One row of the table: the process, its port, and the option that sets it.
    struct Row {
        let process: String
        let port: Int
        let option: String
    }

    static func rows() throws -> [Row] {
        let manual = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("deploy/README.md")
        let text = try String(contentsOf: manual, encoding: .utf8)
        let start = try #require(text.range(of: "## Ports"), "deploy/README.md has no \"## Ports\" section")
        var rows: [Row] = []
        for line in text[start.upperBound...].components(separatedBy: "\n").drop(while: { !$0.hasPrefix("|") }) {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 3, let port = Int(cells[1]) else { continue }
            // The socket kind names the option: the bus's XSUB and XPUB sides, every REP socket's
            // --listen, region-monitor's fix socket (PULL) --fix-listen.
            let kind = cells[2].prefix { $0 != ":" }
            let option = switch kind {
            case "XSUB": "xsub"
            case "XPUB": "xpub"
            case "REP": "listen"
            case "PULL": "fix-listen"
            default: ""
            }
            #expect(!option.isEmpty, "a ports row whose socket kind \(kind) names no option: \(line)")
            rows.append(Row(process: cells[0], port: port, option: option))
        }
        return rows
    }

    /// The port of `option`'s default in `executable --help` (the first endpoint when it is a list).
    static func defaultPort(_ executable: String, _ option: String) throws -> Int? {
        let result = try runCommand(try Platform.binaryDirectory().appendingPathComponent(executable), ["--help"],
                                    environment: environmentWithoutCafeVariables())
        try #require(result.status == 0, "\(executable) --help exited \(result.status): \(result.err)")
        let lines = result.out.components(separatedBy: "\n")
        guard let at = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix("--\(option) ") || $0.trimmingCharacters(in: .whitespaces) == "--\(option)" })
        else { return nil }
        // The option's own lines, up to the next option.
        let own = lines[(at + 1)...].prefix { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("--") }
        // The default is on the line that names it ("env CAFE_…, default tcp://…"); the help text
        // itself may say "default" too, about something else.
        for line in own where line.contains("default ") {
            guard let value = line.components(separatedBy: "default ").last,
                  let match = value.range(of: #"^[a-z]+://[^ ,]*:[0-9]+"#, options: .regularExpression),
                  let port = value[match].split(separator: ":").last.flatMap({ Int($0) })
            else { continue }
            return port
        }
        return nil
    }

    @Test("every port in the table is its executable's default")
    func portsAreDefaults() throws {
        let rows = try Self.rows()
        #expect(Set(rows.map(\.process)) == Set(Platform.services + ["bus", "edge"]), "the table's processes: \(rows.map(\.process))")
        for row in rows {
            let port = try Self.defaultPort(row.process, row.option)
            #expect(port == row.port, "deploy/README.md: \(row.process) \(row.port) (--\(row.option)); its --help: \(port.map(String.init) ?? "no such default")")
        }
    }

    @Test("the services dial the bus and region-monitor's fix socket on the ports the table gives them")
    func peersDialTheTablesPorts() throws {
        let rows = try Self.rows()
        let xsub = try #require(rows.first { $0.process == "bus" && $0.option == "xsub" }).port
        let xpub = try #require(rows.first { $0.process == "bus" && $0.option == "xpub" }).port
        let fixes = try #require(rows.first { $0.process == "region-monitor" && $0.option == "fix-listen" }).port
        for service in Platform.services {
            #expect(try Self.defaultPort(service, "bus-pub") == xsub, "\(service) --bus-pub")
            #expect(try Self.defaultPort(service, "bus-sub") == xpub, "\(service) --bus-sub")
        }
        #expect(try Self.defaultPort("beacon-ingest", "fix-endpoints") == fixes, "beacon-ingest --fix-endpoints")
        // The edge forwards to each service's request socket on the table's port.
        let options = ["beacon-ingest": "ingest-endpoints", "region-monitor": "region-endpoints", "order-service": "orders-endpoint",
                       "kitchen-display": "kitchen-endpoint", "notification-service": "notify-endpoint"]
        for (service, option) in options {
            let port = try #require(rows.first { $0.process == service && $0.option == "listen" }).port
            #expect(try Self.defaultPort("edge", option) == port, "edge --\(option)")
        }
    }
}
