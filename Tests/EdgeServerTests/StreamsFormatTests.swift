import EdgeCore
@testable import EdgeServer
import Foundation
import Messages
import Testing

/// The pure parts of the streams: SSE bytes, Pushpin publish items, channel names, event ids, the
/// held response, and which bus events are streamed where.
@Suite("streams: SSE events, publish items, channels and ids")
struct StreamsFormatTests {
    static let t0 = Timestamp(milliseconds: 1_795_464_000_000)

    @Test("an event is id, event and data lines and a blank line")
    func sse() {
        let event = ServerSentEvent(id: 45, event: "order.ready", data: Array(#"{"state":"ready"}"#.utf8))
        #expect(String(decoding: event.encoded, as: UTF8.self) == "id: 45\nevent: order.ready\ndata: {\"state\":\"ready\"}\n\n")
    }

    @Test("a line break in the data starts another data line; none in the type survives, so nothing ends an event early")
    func sseLineBreaks() {
        let event = ServerSentEvent(id: 1, event: "a\nid: 9\r", data: Array("x\ny\r\nz\rw".utf8))
        #expect(String(decoding: event.encoded, as: UTF8.self) == "id: 1\nevent: aid: 9\ndata: x\ndata: y\ndata: z\ndata: w\n\n")
    }

    @Test("a publish item is J and Pushpin's JSON: channel, id, the http-stream content")
    func publishItem() throws {
        let item = PushpinPublishItem(channel: "order:ord-1", event: ServerSentEvent(id: 7, event: "order.placed", data: Array(#"{"a":"é"}"#.utf8)))
        let message = item.message
        #expect(message.first == UInt8(ascii: "J"))
        let object = try #require(JSONSerialization.jsonObject(with: Data(message.dropFirst())) as? [String: Any])
        #expect(object["channel"] as? String == "order:ord-1" && object["id"] as? String == "7" && object["prev-id"] == nil)
        let formats = try #require(object["formats"] as? [String: [String: String]])
        #expect(formats == ["http-stream": ["content": "id: 7\nevent: order.placed\ndata: {\"a\":\"é\"}\n\n"]])
    }

    @Test("channels: an id is escaped outside A–Z a–z 0–9 . _ ~ -, so no id reaches another's channel or breaks Grip-Channel")
    func channels() {
        #expect(StreamChannel.order("ord-8c1f2a") == "order:ord-8c1f2a")
        #expect(StreamChannel.device("dev_9f3b.1~x") == "device:dev_9f3b.1~x")
        #expect(StreamChannel.order("a,b; prev-id=3") == "order:a%2Cb%3B%20prev-id%3D3")
        #expect(StreamChannel.order("café") == "order:caf%C3%A9")
        #expect(StreamChannel.order("a%2C") != StreamChannel.order("a,"))
    }

    @Test("Last-Event-ID: none is nil; one of ours reads back; anything else is 422", arguments: [
        "", "-1", "+1", "01", "1.0", " 1", "1 ", "0x1", "9223372036854775808", "99999999999999999999", "１",
    ])
    func badIds(_ text: String) {
        #expect(throws: Problem.self) { try StreamEventId.parse(text) }
        #expect((try? StreamEventId.parse(text)) == nil)
    }

    @Test("Last-Event-ID: ids the streams send are read back")
    func goodIds() throws {
        #expect(try StreamEventId.parse(nil) == nil)
        #expect(try StreamEventId.parse("0") == 0)
        #expect(try StreamEventId.parse("45") == 45)
        #expect(try StreamEventId.parse("9223372036854775807") == UInt64(Int64.max))
        do {
            _ = try StreamEventId.parse("x")
        } catch {
            #expect(error.status == 422 && error.code == ErrorCode.invalidField.rawValue)
        }
    }

    @Test("the held response: event-stream, the GRIP stream hold on the channel, a keep-alive comment, the missed events")
    func held() {
        let missed = [ServerSentEvent(id: 1, event: "order.placed", data: Array("{}".utf8)), ServerSentEvent(id: 4, event: "order.ready", data: Array("{}".utf8))]
        let response = HeldStream.response(channel: "order:o1", missed: missed, keepAliveSeconds: 20)
        let headers = HTTPHeaders(response.headers)
        #expect(response.status == 200)
        #expect(headers["Content-Type"] == "text/event-stream" && headers["Grip-Hold"] == "stream" && headers["Grip-Channel"] == "order:o1")
        #expect(headers["Grip-Keep-Alive"] == #":\n\n; format=cstring; timeout=20"#)
        #expect(String(decoding: response.body, as: UTF8.self) == ":\n\nid: 1\nevent: order.placed\ndata: {}\n\nid: 4\nevent: order.ready\ndata: {}\n\n")
        #expect(HeldStream.response(channel: "order:o1", missed: [], keepAliveSeconds: 20).body == Array(":\n\n".utf8),
                "a comment, so Pushpin sends the headers at once")
    }

    static func order(_ orderId: String, _ state: OrderState) -> OrderSnapshot {
        OrderSnapshot(orderId: orderId, cafeId: "caffe-macs", cafeName: "Caffè Macs", timeZone: "America/Los_Angeles", currency: "USD", channel: .app,
                      userId: "user-42", deviceId: "dev-9f3b", state: state, lines: [], total: 0, pickupStart: t0, pickupEnd: t0.adding(seconds: 900),
                      placedAt: t0, customerHere: false)
    }

    static func notification(device: String, undeliverable: String? = nil) -> DeviceNotification {
        DeviceNotification(notificationId: "ntf-1", deviceId: device, kind: .orderReady, collapseId: "ord-1", title: "Ready", body: "Your order is ready",
                           language: "en", orderId: "ord-1", expiresAt: nil, createdAt: t0, undeliverableReason: undeliverable)
    }

    @Test("an order event goes to its order's channel, its body as data; a delivery to its device's; nothing else is streamed")
    func streamedEvents() throws {
        let body = OrderEvent(order: Self.order("ord-1", .ready), previous: .preparing, reason: nil, at: Self.t0)
        let ready = Envelope(type: .orderReady, source: "order-service", stream: "order", seq: 45, time: Self.t0, body: .order(body))
        let streamed = try #require(StreamEvent.of(ready))
        #expect(streamed.channel == "order:ord-1" && streamed.event.id == 45 && streamed.event.event == "order.ready")
        #expect(try JSONDecoder().decode(OrderEvent.self, from: Data(streamed.event.data)) == body)
        #expect(!streamed.event.data.contains(0x0A), "compact JSON: one data line")

        let delivery = Envelope(type: .notifyDelivery, source: "notification-service", stream: "notify", seq: 77, time: Self.t0,
                                body: .notification(Self.notification(device: "dev-9f3b")))
        #expect(StreamEvent.of(delivery)?.channel == "device:dev-9f3b" && StreamEvent.of(delivery)?.event.id == 77)

        let undeliverable = Envelope(type: .notifyUndeliverable, source: "notification-service", stream: "notify", seq: 78, time: Self.t0,
                                     body: .notification(Self.notification(device: "dev-9f3b", undeliverable: "authorization.denied")))
        #expect(StreamEvent.of(undeliverable) == nil)
    }
}
