import Campus
import Foundation
import Messages
import OrderCore
import Testing

/// PROTOCOL.md's request examples are what client developers copy: they must pass the service's
/// own rules, not only decode (its payment token once did not). Orders are placed against the
/// demo campus a new user runs (deploy/campus.json).
@Suite("Protocol examples pass the rules")
struct ProtocolExampleRulesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The bodies of every ```json request <op> block.
    static func requestBodies(_ op: String) throws -> [Data] {
        let text = try String(contentsOf: root.appendingPathComponent("Shared/Messages/PROTOCOL.md"), encoding: .utf8)
        var bodies: [Data] = []
        var current: [String]?
        for line in text.components(separatedBy: "\n") {
            if var lines = current {
                if line == "```" {
                    bodies.append(Data(lines.joined(separator: "\n").utf8))
                    current = nil
                } else {
                    lines.append(line)
                    current = lines
                }
            } else if line == "```json request \(op)" {
                current = []
            }
        }
        return bodies
    }


    @Test("every order.place example passes the field, channel, token and menu rules")
    func orderPlace() throws {
        let examples = try Self.requestBodies(Op.orderPlace)
        #expect(examples.count >= 2)
        let catalog = try DemoCampus.load()
        for frame in examples {
            let request = try Wire.decodeRequest(frame, body: PlaceOrderRequest.self).body
            #expect(throws: Never.self, "\(String(decoding: frame, as: UTF8.self).prefix(120))") {
                try RequestRules.validateIdempotencyKey(request.idempotencyKey)
                _ = try OrderPlacement.check(request, catalog: catalog)
            }
        }
    }

    @Test("the examples that carry a locale carry one the service accepts")
    func locales() throws {
        for op in [Op.menuGet, Op.windowsList, Op.windowReserve, Op.orderPlace] {
            let examples = try Self.requestBodies(op)
            #expect(!examples.isEmpty, "\(op)")
            for frame in examples {
                let body = try #require(try JSONSerialization.jsonObject(with: frame) as? [String: Any])["body"] as? [String: Any]
                let locale = try #require(body?["locale"] as? String, "\(op): locale is required and the example must show it")
                #expect(throws: Never.self, "\(op)") { try RequestRules.validateLocale(locale) }
            }
        }
    }
}
