import EdgeCore
import Foundation
import Messages
import Policy
import Testing

/// Requests through the route table: the op each calls and the body it sends, and each refusal.
@Suite("route table: requests become ops and bodies, or problems")
struct EdgeRouterTests {
    let router = EdgeRouter()
    static let json = HTTPHeaders([("Content-Type", "application/json")])

    func call(_ method: String, _ uri: String, body: String = "", headers: HTTPHeaders = json, role: Role? = .phone) throws -> EdgeCall {
        do {
            return try router.resolve(method: method, uri: uri, headers: headers, body: Array(body.utf8), role: role)
        } catch {
            Issue.record("refused: \(error)")
            throw error
        }
    }

    func problem(_ method: String, _ uri: String, body: String = "", headers: HTTPHeaders = json, role: Role? = .phone) -> Problem? {
        do {
            _ = try router.resolve(method: method, uri: uri, headers: headers, body: Array(body.utf8), role: role)
            return nil
        } catch {
            return error
        }
    }

    /// The body as an object, members compared as JSON values.
    func object(_ call: EdgeCall) throws -> NSDictionary {
        try #require(JSONSerialization.jsonObject(with: Data(call.body)) as? NSDictionary)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let method: String, uri: String, body: String, role: Role, headers: [(String, String)]
        let op: String, expected: String
        var testDescription: String { "\(method) \(uri)" }
        init(_ method: String, _ uri: String, body: String = "", role: Role = .phone, headers: [(String, String)] = [], op: String, _ expected: String) {
            self.method = method; self.uri = uri; self.body = body; self.role = role; self.headers = headers; self.op = op; self.expected = expected
        }
    }

    /// One request per op route, with the op body it must become.
    static let cases: [Case] = [
        Case("PUT", "/v1/devices/dev-9f3b/registration", body: #"{"channel":"bus","language":"en","locale":"en_US","authorization":"authorized"}"#,
             op: Op.deviceRegister, #"{"deviceId":"dev-9f3b","channel":"bus","language":"en","locale":"en_US","authorization":"authorized"}"#),
        Case("PUT", "/v1/devices/dev-9f3b/location-authorization", body: #"{"authorization":"whenInUse","foreground":true,"precise":true,"monitoringAvailable":true,"rangingAvailable":true}"#,
             op: Op.ingestReport, #"{"deviceId":"dev-9f3b","status":{"authorization":"whenInUse","foreground":true,"precise":true,"monitoringAvailable":true,"rangingAvailable":true}}"#),
        Case("POST", "/v1/devices/dev-9f3b/sightings", body: #"{"sightings":[{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":1,"minor":2,"rssi":-64,"measuredPower":-59,"timestamp":"2020-06-25T16:41:00.123Z"}]}"#,
             op: Op.ingestReport, #"{"deviceId":"dev-9f3b","sightings":[{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":1,"minor":2,"rssi":-64,"measuredPower":-59,"timestamp":"2020-06-25T16:41:00.123Z"}]}"#),
        Case("GET", "/v1/devices/dev-9f3b/nearest", op: Op.nearestGet, #"{"deviceId":"dev-9f3b"}"#),
        Case("POST", "/v1/devices/clip-phone/location-confirmations", body: #"{"code":"https://cafe.example.com/clip/caffe-macs?table=4","acquiredAt":"2020-06-25T16:41:00.123Z","cafeId":"caffe-macs"}"#,
             op: Op.locationConfirm, #"{"deviceId":"clip-phone","code":"https://cafe.example.com/clip/caffe-macs?table=4","acquiredAt":"2020-06-25T16:41:00.123Z","cafeId":"caffe-macs"}"#),
        Case("GET", "/v1/devices/dev-9f3b/inbox?sinceId=ntf-5b70&limit=20", op: Op.inboxList, #"{"deviceId":"dev-9f3b","sinceId":"ntf-5b70","limit":20}"#),
        Case("POST", "/v1/devices/dev-9f3b/reminders", body: #"{"cafeId":"caffe-macs","text":"Pick up the team's coffee order"}"#,
             op: Op.reminderSet, #"{"deviceId":"dev-9f3b","cafeId":"caffe-macs","text":"Pick up the team's coffee order"}"#),
        Case("GET", "/v1/devices/dev-9f3b/reminders?includeDone=true", op: Op.reminderList, #"{"deviceId":"dev-9f3b","includeDone":true}"#),
        Case("DELETE", "/v1/devices/dev-9f3b/reminders/rem_3c9d", op: Op.reminderCancel, #"{"deviceId":"dev-9f3b","reminderId":"rem_3c9d"}"#),
        Case("POST", "/v1/devices/clip-phone/order-claims", body: #"{"userId":"dana"}"#, op: Op.orderClaim, #"{"deviceId":"clip-phone","userId":"dana"}"#),
        Case("POST", "/v1/devices/clip-phone/order-claims", op: Op.orderClaim, #"{"deviceId":"clip-phone"}"#),
        Case("GET", "/v1/users/user-42/preference", op: Op.preferenceGet, #"{"userId":"user-42"}"#),
        Case("PUT", "/v1/users/user-42/preference", body: #"{"kind":"cafe","cafeId":"macs"}"#, op: Op.preferenceSet,
             #"{"userId":"user-42","preference":{"kind":"cafe","cafeId":"macs"}}"#),
        Case("GET", "/v1/menu?locale=en_US&userId=user-42&deviceId=dev-9f3b", op: Op.menuGet, #"{"locale":"en_US","userId":"user-42","deviceId":"dev-9f3b"}"#),
        Case("GET", "/v1/menu?locale=en_US", role: .kiosk, op: Op.menuGet, #"{"locale":"en_US"}"#),
        Case("GET", "/v1/cafes/macs/windows?locale=en_US&count=2", op: Op.windowsList, #"{"cafeId":"macs","locale":"en_US","count":2}"#),
        Case("POST", "/v1/cafes/macs/reservations", body: #"{"start":"2020-06-25T17:00:00.000Z","locale":"en_US"}"#, op: Op.windowReserve,
             #"{"cafeId":"macs","start":"2020-06-25T17:00:00.000Z","locale":"en_US"}"#),
        Case("POST", "/v1/orders", body: #"{"channel":"app","cafeId":"macs","reservationId":"rsv-2d9c","items":[{"itemId":"latte","quantity":2}],"paymentToken":"tok_4242","locale":"en_US"}"#,
             headers: [("Idempotency-Key", "k-7f3a9c21")], op: Op.orderPlace,
             #"{"idempotencyKey":"k-7f3a9c21","channel":"app","cafeId":"macs","reservationId":"rsv-2d9c","items":[{"itemId":"latte","quantity":2}],"paymentToken":"tok_4242","locale":"en_US"}"#),
        Case("POST", "/v1/cafes/macs/guest-orders", body: #"{"reservationId":"rsv-1","items":[{"itemId":"latte","quantity":1}],"locale":"en_US"}"#, role: .kiosk,
             headers: [("idempotency-key", "kiosk-0001")], op: Op.orderPlace,
             #"{"cafeId":"macs","idempotencyKey":"kiosk-0001","channel":"kiosk","reservationId":"rsv-1","items":[{"itemId":"latte","quantity":1}],"locale":"en_US"}"#),
        Case("GET", "/v1/orders/ord-8c1f2a?locale=de_DE", op: Op.orderGet, #"{"orderId":"ord-8c1f2a","locale":"de_DE"}"#),
        Case("GET", "/v1/orders/ord-8c1f2a", role: .kitchen, op: Op.orderGet, #"{"orderId":"ord-8c1f2a"}"#),
        Case("GET", "/v1/orders/ord-8c1f2a/history", op: Op.orderHistory, #"{"orderId":"ord-8c1f2a"}"#),
        Case("POST", "/v1/orders/ord-8c1f2a/cancel", op: Op.orderCancel, #"{"orderId":"ord-8c1f2a","by":"customer"}"#),
        Case("POST", "/v1/orders/ord-8c1f2a/cancel", body: #"{"locale":"en_US"}"#, role: .kiosk, op: Op.orderCancel, #"{"orderId":"ord-8c1f2a","by":"customer","locale":"en_US"}"#),
        Case("POST", "/v1/orders/ord-8c1f2a/pickup", role: .kiosk, op: Op.orderPickup, #"{"orderId":"ord-8c1f2a"}"#),
        Case("GET", "/v1/kitchen/tickets?station=espresso&includeDone=false", role: .kitchen, op: Op.kdsTickets, #"{"station":"espresso","includeDone":false}"#),
        Case("GET", "/v1/kitchen/orders?cafeId=macs", role: .kitchen, op: Op.kdsOrders, #"{"cafeId":"macs"}"#),
        Case("GET", "/v1/kitchen/counts", role: .kitchen, op: Op.kdsCounts, #"{}"#),
        Case("POST", "/v1/kitchen/tickets/ord_8c1f2a%3Aespresso/start", role: .kitchen, op: Op.kdsStart, #"{"ticketId":"ord_8c1f2a:espresso"}"#),
        Case("POST", "/v1/kitchen/tickets/ord_8c1f2a:espresso/bump", role: .kitchen, op: Op.kdsBump, #"{"ticketId":"ord_8c1f2a:espresso"}"#),
        Case("POST", "/v1/kitchen/tickets/ord_8c1f2a:espresso/recall", role: .kitchen, op: Op.kdsRecall, #"{"ticketId":"ord_8c1f2a:espresso"}"#),
        Case("PUT", "/v1/kitchen/orders/ord_8c1f2a/rush", body: #"{"rush":true}"#, role: .kitchen, op: Op.kdsRush, #"{"orderId":"ord_8c1f2a","rush":true}"#),
        Case("POST", "/v1/kitchen/orders/ord-8c1f2a/cancel", body: #"{"reason":"out of buns"}"#, role: .kitchen, op: Op.orderCancel,
             #"{"orderId":"ord-8c1f2a","by":"kitchen","reason":"out of buns"}"#),
        Case("PUT", "/v1/kitchen/items/latte/availability", body: #"{"available":false,"reason":"out of oat milk"}"#, role: .kitchen,
             op: Op.menuAvailabilitySet, #"{"itemId":"latte","available":false,"reason":"out of oat milk"}"#),
    ]

    @Test("each route calls its op with the body the op takes", arguments: cases)
    func routes(_ c: Case) throws {
        var headers = Self.json
        for (name, value) in c.headers { headers.append(name, value) }
        let made = try call(c.method, c.uri, body: c.body, headers: headers, role: c.role)
        #expect(made.action == .op(c.op))
        #expect(String(decoding: made.body, as: UTF8.self) == c.expected)
        let expected = try #require(JSONSerialization.jsonObject(with: Data(c.expected.utf8)) as? NSDictionary)
        #expect(try object(made) == expected)
    }

    @Test("every op route has a case above")
    func everyRouteTested() {
        let tested = Set(Self.cases.map { c in router.routes.first { (try? router.match(method: c.method, segments: (try? RequestTarget.parse(c.uri))?.segments ?? [])).map { $0.0.name } == $0.name }?.name ?? "" })
        let opRoutes = Set(router.routes.filter { $0.op != nil }.map(\.name))
        #expect(opRoutes.subtracting(tested).isEmpty, "untested: \(opRoutes.subtracting(tested).sorted())")
    }

    @Test("the client's JSON reaches the service as written: numbers, escapes and unknown members")
    func bodyVerbatim() throws {
        let made = try call("POST", "/v1/devices/d1/reminders", body: " {\"text\":\"caf\\u00e9 \\\"x\\\"\",\"n\":1.50e2,\"future\":[1,{}]} \n")
        #expect(String(decoding: made.body, as: UTF8.self) == #"{"deviceId":"d1","text":"caf\u00e9 \"x\"","n":1.50e2,"future":[1,{}]}"#)
    }
}
