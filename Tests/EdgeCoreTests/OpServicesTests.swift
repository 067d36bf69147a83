import EdgeCore
import Foundation
import Testing

@Suite("which service answers each op a route calls")
struct OpServicesTests {
    /// PROTOCOL.md section 5's table: op → "answered by".
    static func answeredBy() throws -> [String: String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("Shared/Messages/PROTOCOL.md"), encoding: .utf8)
        var table: [String: String] = [:]
        for line in text.components(separatedBy: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 4, cells[0].hasPrefix("`"), cells[2].hasPrefix("`") else { continue }
            table[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = cells[1]
        }
        return table
    }

    @Test("every op a route calls has its service, the one PROTOCOL.md names; nothing else is listed")
    func everyRouteOp() throws {
        let documented = try Self.answeredBy()
        #expect(documented.count >= 30, "PROTOCOL.md's op table was not found")
        let ops = Set(RouteTable.v1.compactMap(\.op))
        #expect(Set(OpServices.targets.keys) == ops)
        for op in ops {
            let target = try #require(OpServices.target(of: op), "\(op)")
            #expect(documented[op] == target.service, "\(op): PROTOCOL.md says \(documented[op] ?? "nothing"), the table \(target.service)")
        }
    }

    @Test("a sharded op's routes name the device in their path, so the edge can pick the shard")
    func shardedRoutesNameTheDevice() {
        for route in RouteTable.v1 {
            guard let op = route.op, OpServices.target(of: op)?.sharded == true else { continue }
            #expect(route.parameters.contains { $0.location == .path && $0.name == "deviceId" }, "\(route.name)")
        }
    }
}
