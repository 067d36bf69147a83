import EdgeCore
import Foundation
import Messages
import Testing

@Suite("service exchange: the request frame an op route sends, the answer its reply becomes")
struct ServiceExchangeTests {
    @Test("the request frame is the op, the id and the body as built, and it decodes as the op's request")
    func requestFrame() throws {
        let frame = ServiceExchange.requestFrame(op: Op.orderGet, id: "edge-\"1\"", body: Array(#"{"orderId":"ord-1","locale":"de_DE"}"#.utf8))
        let request = try Wire.decodeRequest(frame, body: OrderQuery.self)
        #expect(request.op == Op.orderGet && request.id == "edge-\"1\"" && request.body == OrderQuery(orderId: "ord-1", locale: "de_DE"))
    }

    @Test("a success passes the reply's body through byte for byte, wherever the body member sits")
    func success() throws {
        let body = #"{"n":1.50e2,"s":"a,b}\"]","list":[{"body":1},[]],"nested":{"ok":false}}"#
        for frame in [#"{"body":\#(body),"ok":true}"#, #"{"ok":true, "body" : \#(body) }"#, #"{"ok":true,"error":null,"body":\#(body)}"#] {
            let response = ServiceExchange.response(toReply: Data(frame.utf8), from: "order-service")
            #expect(response.status == 200 && String(decoding: response.body, as: UTF8.self) == body, "\(frame)")
            #expect(response.headers.first { $0.0 == "Content-Type" }?.1 == "application/json")
        }
    }

    @Test("a service's refusal becomes its problem, with its status")
    func failure() throws {
        let reply = Reply<Empty>.failure(ServiceError(.unknownOrder, "no order ord-1"))
        let response = ServiceExchange.response(toReply: Wire.encode(reply), from: "order-service")
        #expect(response.status == 404)
        let problem = try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        #expect(problem["code"] as? String == "order.unknown" && problem["detail"] as? String == "no order ord-1")
    }

    @Test("a reply the edge cannot read is 502, never passed on", arguments: [
        "", "not json", "[]", #"{"ok":"yes"}"#, #"{"ok":true}"#, #"{"ok":true,"body":[1]}"#, #"{"ok":false}"#,
        #"{"ok":false,"error":{"code":1}}"#, String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
    ])
    func unreadable(_ frame: String) {
        let response = ServiceExchange.response(toReply: Data(frame.utf8), from: "kitchen-display")
        #expect(response.status == 502, "\(frame.prefix(30))")
    }
}
