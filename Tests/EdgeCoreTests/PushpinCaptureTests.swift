import EdgeCore
import Foundation
import Messages
import Policy
import Testing

/// Requests exactly as Pushpin 1.36 (Debian 12) sent them to a `zhttpreq` route, captured from the
/// ROUTER socket (`Fixtures/pushpin-1.36-*.zhttp`): its member order, `max-size`,
/// `ignore-policies`, and the `Grip-Sig` and `Grip-Feature` fields it adds. The answers these
/// requests got from this core (`EdgeResponse.zhttp`) reached curl through the same Pushpin.
@Suite("captured from Pushpin 1.36")
struct PushpinCaptureTests {
    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)"))
    }

    @Test("a GET without a body: read, routed, and its encoding is Pushpin's bytes")
    func get() throws {
        let frame = try Self.fixture("pushpin-1.36-get.zhttp")
        let request = try ZhttpRequest.decode(frame)
        #expect(request.method == "GET" && request.uri == "http://127.0.0.1:17999/v1/devices/d1/nearest" && request.body.isEmpty)
        #expect(String(decoding: request.from ?? [], as: UTF8.self).hasPrefix("pushpin-proxy"))
        #expect(request.headers["authorization"] == "Bearer x")
        #expect(request.headers["Grip-Sig"] != nil, "Pushpin signs what it forwards (sig_key): the edge can check a request came through it")
        let value = try TNetStringDecoder(limits: .zhttp).decode([UInt8](frame.dropFirst()))
        #expect(value.encoded() == [UInt8](frame.dropFirst()), "the codec writes back Pushpin's own bytes")
        let call = try EdgeRouter().resolve(request, role: .phone)
        #expect(call.action == .op(Op.nearestGet) && String(decoding: call.body, as: UTF8.self) == #"{"deviceId":"d1"}"#)
    }

    @Test("a POST with a JSON body and an Idempotency-Key")
    func post() throws {
        let request = try ZhttpRequest.decode(try Self.fixture("pushpin-1.36-post.zhttp"))
        #expect(request.method == "POST" && request.headers["Content-Length"] == "116" && request.body.count == 116)
        let call = try EdgeRouter().resolve(request, role: .phone)
        #expect(call.action == .op(Op.orderPlace))
        let body = try #require(JSONSerialization.jsonObject(with: Data(call.body)) as? [String: Any])
        #expect(body["idempotencyKey"] as? String == "k-7f3a9c21" && body["cafeId"] as? String == "macs")
    }
}
