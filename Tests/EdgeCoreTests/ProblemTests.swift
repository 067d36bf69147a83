import EdgeCore
import Foundation
import Messages
import Testing

@Suite("problems: RFC 9457 bodies and a status for every error code")
struct ProblemTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Codes declared as `static let x: ErrorCode = "…"` in a source file, as ProtocolDocumentTests reads them.
    static func declaredCodes(in path: String) throws -> [String] {
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: "static let \\w+: ErrorCode = \"([^\"]+)\"")
        return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { Range($0.range(at: 1), in: text).map { String(text[$0]) } }
    }

    @Test("every code in ServiceError.swift and the edge's own has a status of its own")
    func everyCodeHasAStatus() throws {
        let platform = try Self.declaredCodes(in: "Shared/Messages/ServiceError.swift")
        let edge = try Self.declaredCodes(in: "Services/Edge/Core/EdgeErrorCodes.swift")
        #expect(platform.count >= 60 && edge.count == EdgeErrorCodes.all.count)
        let missing = (platform + edge).filter { ProblemStatus.statuses[$0] == nil }
        #expect(missing.isEmpty, "no status for \(missing)")
        let extra = Set(ProblemStatus.statuses.keys).subtracting(platform + edge)
        #expect(extra.isEmpty, "statuses for codes nobody declares: \(extra.sorted())")
        #expect(ProblemStatus.status(of: "future.code") == 500)
    }

    @Test("the statuses are the documented ones", arguments: [
        (ErrorCode.malformed, 400), (.httpUnauthenticated, 401), (.forbidden, 403), (.unknownOrder, 404), (.httpNotFound, 404),
        (.idempotencyConflict, 409), (.windowFull, 409), (.tooLarge, 413), (.invalidField, 422), (.httpRateLimited, 429),
        (.confirmationUnavailable, 503), (.httpServiceUnavailable, 503), (.clientTimeout, 504), (.internalError, 500),
    ])
    func statuses(_ code: ErrorCode, _ status: Int) {
        #expect(ProblemStatus.status(of: code.rawValue) == status)
    }

    @Test("every status has its reason phrase")
    func reasons() {
        for status in Set(ProblemStatus.statuses.values) {
            #expect(!ProblemStatus.reason(status).hasPrefix("Status"), "\(status)")
        }
    }

    @Test("a service's error becomes a problem carrying its code, message and details")
    func fromServiceError() throws {
        let error = ServiceError(.windowFull, "the window at 10:00 is full; next free: 10:15", details: ["nextFreeStart": "2020-06-25T17:15:00.000Z"])
        let response = Problem(error).response
        #expect(response.status == 409)
        #expect(response.headers.first { $0.0 == "Content-Type" }?.1 == "application/problem+json")
        let body = try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        #expect(body["type"] as? String == "urn:campus-cafe:error:order.windowFull")
        #expect(body["title"] as? String == "Conflict")
        #expect(body["status"] as? Int == 409)
        #expect(body["code"] as? String == "order.windowFull")
        #expect(body["detail"] as? String == error.message)
        #expect((body["details"] as? [String: String])?["nextFreeStart"] == "2020-06-25T17:15:00.000Z")
    }

    @Test("a problem's text is escaped JSON whatever the message holds")
    func escaping() throws {
        let problem = Problem(.invalidField, "field \"a\\b\"\n\u{0}é")
        let body = try #require(JSONSerialization.jsonObject(with: Data(problem.json.encoded())) as? [String: Any])
        #expect(body["detail"] as? String == "field \"a\\b\"\n\u{0}é")
        #expect(body["details"] == nil)
    }
}
