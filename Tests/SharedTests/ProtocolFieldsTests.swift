import Foundation
import Messages
import Testing

/// Keeps what PROTOCOL.md says a request needs true: each op's section lists its body's required
/// and optional fields, and the body types decide which is which. A field is required when the
/// op's request example no longer decodes without it.
@Suite("Protocol document: required fields")
struct ProtocolFieldsTests {
    /// The `Required:` and `Optional:` lines of the `### <op>` section: the backticked names on each.
    static func documentedFields(of op: String, in document: String) -> (required: Set<String>, optional: Set<String>)? {
        guard let start = document.range(of: "\n### \(op)\n") else { return nil }
        let section = document[start.upperBound...].components(separatedBy: "\n").prefix { !$0.hasPrefix("#") }
        func names(after label: String) -> Set<String>? {
            guard let line = section.first(where: { $0.hasPrefix(label) }) else { return nil }
            return Set(line.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) })
        }
        guard let required = names(after: "Required:"), let optional = names(after: "Optional:") else { return nil }
        return (required, optional)
    }

    /// The body members of a request example, and for each whether the request still decodes without it.
    static func requiredness(of example: ProtocolDocumentTests.Example, contract: ProtocolDocumentTests.Contract) throws -> [String: Bool] {
        let object = try #require(try JSONSerialization.jsonObject(with: example.json) as? [String: Any])
        let body = object["body"] as? [String: Any] ?? [:]
        var result: [String: Bool] = [:]
        for name in body.keys {
            var without = body
            without.removeValue(forKey: name)
            var request = object
            request["body"] = without
            let data = try JSONSerialization.data(withJSONObject: request)
            result[name] = (try? contract.decodeRequest(data)) == nil
        }
        return result
    }

    @Test("every op's section lists its required and optional fields, and the body types agree")
    func requiredFieldsAreDocumented() throws {
        let document = try ProtocolDocumentTests.document()
        let examples = try ProtocolDocumentTests.examples()
        for (op, contract) in ProtocolDocumentTests.contracts.sorted(by: { $0.key < $1.key }) {
            guard let documented = Self.documentedFields(of: op, in: document) else {
                Issue.record("### \(op) has no \"Required: …\" and \"Optional: …\" lines")
                continue
            }
            #expect(documented.required.isDisjoint(with: documented.optional), "\(op): a field is both required and optional")
            for example in examples where example.kind == "request" && example.name == op {
                let fields = try Self.requiredness(of: example, contract: contract)
                let required = Set(fields.filter(\.value).keys), optional = Set(fields.filter { !$0.value }.keys)
                #expect(required.isSubset(of: documented.required), "\(example): \(required.subtracting(documented.required).sorted()) are required but not documented so")
                // A field the body type lets out may still be one the handler requires (`preference`
                // of `preference.set`): documented either way, but documented.
                let listed = documented.required.union(documented.optional)
                #expect(optional.isSubset(of: listed), "\(example): \(optional.subtracting(listed).sorted()) are in neither list")
                #expect(documented.required.isSubset(of: Set(fields.keys)), "\(example): leaves out required \(documented.required.subtracting(fields.keys).sorted())")
            }
        }
    }

    @Test("a body that is not an object is refused, even for an op without parameters")
    func bodyMustBeAnObject() throws {
        for body in ["\"x\"", "7", "[]", "true"] {
            let frame = Data("{\"op\":\"health\",\"id\":\"h\",\"body\":\(body)}".utf8)
            #expect(throws: WireError.self, "body \(body)") { try Wire.decodeRequest(frame, body: Empty.self) }
        }
        #expect(try Wire.decodeRequest(Data("{\"op\":\"health\",\"id\":\"h\"}".utf8), body: Empty.self).op == "health")
        #expect(try Wire.decodeRequest(Data("{\"op\":\"health\",\"id\":\"h\",\"body\":{}}".utf8), body: Empty.self).op == "health")
    }
}
