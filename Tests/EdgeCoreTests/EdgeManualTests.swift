import EdgeCore
import Foundation
import Messages
import Policy
import Testing

/// Services/Edge/README.md against the code: its API table is the route table, row for row, and
/// its table of the edge's own codes gives each code's status.
@Suite("the edge's manual")
struct EdgeManualTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func manual() throws -> String {
        try String(contentsOf: root.appendingPathComponent("Services/Edge/README.md"), encoding: .utf8)
    }

    /// A route as the manual's API table writes it.
    static func row(_ route: Route) -> String {
        let roles = route.access == .anyone ? "anyone" : Role.allCases.filter(route.roles.contains).map(\.rawValue).joined(separator: ", ")
        return "| `\(route.method.rawValue)` | `\(route.path)` | `\(route.action)` | \(roles) | \(route.summary) |"
    }

    @Test("the API table is the route table, in order")
    func apiTable() throws {
        let rows = try Self.manual().components(separatedBy: "\n").filter { $0.hasPrefix("| `GET`") || $0.hasPrefix("| `POST`") || $0.hasPrefix("| `PUT`") || $0.hasPrefix("| `DELETE`") }
        let expected = RouteTable.v1.map(Self.row)
        #expect(rows == expected, "expected rows:\n\(expected.joined(separator: "\n"))")
    }

    @Test("each of the edge's own codes is listed with its status")
    func edgeCodes() throws {
        let text = try Self.manual()
        for code in EdgeErrorCodes.all {
            let status = ProblemStatus.status(of: code.rawValue)
            #expect(text.contains("| `\(code.rawValue)` | \(status) |"), "\(code.rawValue) (\(status)) is not in the manual's table")
        }
    }
}
