import EdgeCore
import Foundation
import Messages
import Testing

@Suite("request targets: the URI Pushpin hands over, as path segments and query parameters")
struct RequestTargetTests {
    @Test("absolute and origin-form URIs give the same target", arguments: [
        "https://cafe.example/v1/orders/o%201?locale=de_DE", "http://cafe.example:7999/v1/orders/o%201?locale=de_DE",
        "HTTPS://cafe.example/v1/orders/o%201?locale=de_DE#frag", "/v1/orders/o%201?locale=de_DE",
    ])
    func forms(_ uri: String) throws {
        let target = try RequestTarget.parse(uri)
        #expect(target.segments == ["v1", "orders", "o 1"])
        #expect(target.queryValue("locale") == "de_DE" && target.query.count == 1)
        #expect(target.path == "/v1/orders/o 1")
    }

    @Test("a host without a path is the root; an empty query is none")
    func edges() throws {
        #expect(try RequestTarget.parse("https://cafe.example").segments == [""])
        #expect(try RequestTarget.parse("https://cafe.example?a=1").queryValue("a") == "1")
        #expect(try RequestTarget.parse("/v1/menu?").query.isEmpty)
        #expect(try RequestTarget.parse("/v1/menu?&&a=&b").query.map(\.name) == ["a", "b"])
        #expect(try RequestTarget.parse("/v1/menu?a=1+2&b=%2B").query.map(\.value) == ["1+2", "+"], "a plus stays a plus")
        #expect(try RequestTarget.parse("/v1/menu?note=a=b").queryValue("note") == "a=b")
    }

    @Test("refusals: not a path, broken escapes, control characters, repeats, too many", arguments: [
        ("v1/menu", 400), ("ftp://x/v1", 400), ("/v1/%G0", 400), ("/v1/%0", 400), ("/v1/%0A", 400), ("/v1/%7F", 400), ("/v1/%C3", 400),
        ("/v1/menu?a=%", 400), ("/v1/menu?a=1&a=2", 422), ("/" + Array(repeating: "a", count: 17).joined(separator: "/"), 404),
        ("/v1/menu?" + (0..<33).map { "p\($0)=1" }.joined(separator: "&"), 422), ("/v1/menu?a=" + String(repeating: "x", count: 1_025), 422),
    ])
    func refusals(_ uri: String, _ status: Int) {
        do {
            _ = try RequestTarget.parse(uri)
            Issue.record("\(uri.prefix(40)) was read")
        } catch {
            #expect(error.status == status, "\(uri.prefix(40)): \(error)")
        }
    }
}

@Suite("JSON the edge writes")
struct JSONValueTests {
    @Test("objects keep their order; strings are escaped; the bytes parse back")
    func encoding() throws {
        let value = JSONValue.object([("z", .integer(-1)), ("a", .array([.bool(true), .null, .string("\"\\\n\u{1}é")])), ("m", .object([]))])
        let text = String(decoding: value.encoded(), as: UTF8.self)
        #expect(text == #"{"z":-1,"a":[true,null,"\"\\\n\u0001é"],"m":{}}"#)
        let parsed = try #require(JSONSerialization.jsonObject(with: Data(value.encoded())) as? [String: Any])
        #expect((parsed["a"] as? [Any])?.last as? String == "\"\\\n\u{1}é")
    }

    @Test("an answer to Pushpin carries the problem as its body, with its status and reason")
    func problemAnswer() throws {
        let answer = Problem(.httpMethodNotAllowed, "no", headers: [("Allow", "GET")]).response.zhttp(answering: [7], from: "edge-1")
        #expect(answer.code == 405 && answer.reason == "Method Not Allowed")
        #expect(answer.headers["content-type"] == "application/problem+json" && answer.headers["allow"] == "GET")
        #expect(ZhttpResponse.decode(answer.frame) == answer)
    }
}
