import EdgeCore
import Foundation
import Messages
import Policy
import Testing

/// The two SSE routes: what they resolve to, who is refused before the streams part is asked, and
/// how the document describes them.
@Suite("route table: the SSE streams")
struct StreamRoutesTests {
    let router = EdgeRouter()

    func resolve(_ uri: String, headers: HTTPHeaders = HTTPHeaders(), body: String = "", role: Role?) throws(Problem) -> EdgeCall {
        try router.resolve(method: "GET", uri: uri, headers: headers, body: Array(body.utf8), role: role)
    }

    func problem(_ uri: String, headers: HTTPHeaders = HTTPHeaders(), body: String = "", role: Role?) -> Problem? {
        do {
            _ = try resolve(uri, headers: headers, body: body, role: role)
            return nil
        } catch {
            return error
        }
    }

    @Test("an order's stream: phone, kiosk and kitchen pass to the streams part with the order id")
    func orderStream() throws {
        for role in [Role.phone, .kiosk, .kitchen] {
            let call = try resolve("/v1/orders/ord-8c1f2a/events", role: role)
            #expect(call.action == .stream(.orderEvents) && call.pathParameters == ["orderId": "ord-8c1f2a"])
            #expect(call.route.isStream && call.route.op == nil && call.action.description == "orderEvents")
        }
    }

    @Test("a device's stream: a phone only")
    func deviceStream() throws {
        let call = try resolve("/v1/devices/dev-9f3b/events", headers: HTTPHeaders([("Last-Event-ID", "77")]), role: .phone)
        #expect(call.action == .stream(.deviceEvents) && call.pathParameters == ["deviceId": "dev-9f3b"])
        for role in [Role.kiosk, .kitchen, .gateway, .operator, .service, .edge] {
            #expect(problem("/v1/devices/dev-9f3b/events", role: role)?.code == ErrorCode.forbidden.rawValue, "\(role)")
        }
    }

    @Test("refused before anything is asked: 401 without a session, 403 for a role the order's stream is not open to")
    func refusals() throws {
        let unauthenticated = try #require(problem("/v1/orders/o1/events", role: nil))
        #expect(unauthenticated.status == 401 && unauthenticated.headers.contains { $0 == ("WWW-Authenticate", "Bearer") })
        #expect(problem("/v1/devices/d1/events", role: nil)?.status == 401)
        for role in [Role.gateway, .operator, .service, .edge] {
            #expect(problem("/v1/orders/o1/events", role: role)?.status == 403, "\(role)")
        }
    }

    @Test("a Last-Event-ID longer than any id, given twice, or a body: refused")
    func badRequests() {
        #expect(problem("/v1/orders/o1/events", headers: HTTPHeaders([("Last-Event-ID", String(repeating: "9", count: 20))]), role: .phone)?.status == 422)
        #expect(problem("/v1/orders/o1/events", headers: HTTPHeaders([("Last-Event-ID", "1"), ("last-event-id", "2")]), role: .phone)?.status == 422)
        #expect(problem("/v1/orders/o1/events", body: "{}", role: .phone)?.status == 400)
        #expect(problem("/v1/orders/o1/events?after=3", role: .phone)?.status == 422)
    }

    @Test("the order's stream is never open wider than order.get; a device's is a phone's, like inbox.list")
    func withinOpAccess() throws {
        let routes = RouteTable.v1.filter(\.isStream)
        #expect(routes.map(\.action) == [.stream(.orderEvents), .stream(.deviceEvents), .stream(.cafeEvents), .stream(.statusEvents)])
        let orderGet = try #require(OpAccess.rules[Op.orderGet])
        #expect(routes[0].roles.isSubset(of: orderGet.roles))
        #expect(routes[1].roles == [.phone])
    }

    @Test("the document: text/event-stream on 200, the Last-Event-ID header, no x-op")
    func document() throws {
        let document = try #require(JSONSerialization.jsonObject(with: Data(OpenAPIDocument.encoded())) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let operation = try #require(paths["/v1/orders/{orderId}/events"]?["get"] as? [String: Any])
        #expect(operation["x-action"] as? String == "orderEvents" && operation["x-op"] == nil)
        let ok = try #require((operation["responses"] as? [String: [String: Any]])?["200"]?["content"] as? [String: Any])
        #expect(Array(ok.keys) == ["text/event-stream"])
        let parameters = try #require(operation["parameters"] as? [[String: Any]])
        #expect(parameters.contains { $0["name"] as? String == "Last-Event-ID" && $0["in"] as? String == "header" && $0["required"] as? Bool == false })
    }
}
