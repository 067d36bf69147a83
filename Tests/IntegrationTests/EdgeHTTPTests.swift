import Foundation
import Messages
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// The HTTP edge end to end: curl → a real Pushpin (rendered from deploy/pushpin) → the `edge`
/// executable → the real services, each a process on free loopback ports.
@Suite(.serialized)
struct EdgeHTTPTests {
    static let ordering = ["region-monitor", "order-service"]

    @Test("deployed mode: sign in, register, menu, reserve, order (retried with its Idempotency-Key: one order), get; each route family refuses callers outside its roles; 413")
    func walkAndRefusals() throws {
        let edge = try EdgePlatform(security: .deployed)
        defer { edge.stop() }
        let keys = try requireValue(edge.platform.keys)
        _ = try keys.add(name: "kiosk-macs", role: .kiosk, cafeId: "caffe-macs")
        try edge.start(services: Platform.services)

        // A phone signs in with an ID token from the local issuer and walks the scenario.
        let (alice, userId) = try edge.signIn("alice", deviceId: "phone-1")
        let registration = try edge.request("PUT", "/v1/devices/phone-1/registration", token: alice,
                                            json: ["channel": "bus", "language": "en", "locale": "en_US", "authorization": "authorized"])
        #expect(registration.status == 200 && registration.json["deviceId"] as? String == "phone-1")
        let menu = try edge.request("GET", "/v1/menu?locale=en_US", token: alice)
        #expect(menu.status == 200 && (menu.json["items"] as? [Any])?.isEmpty == false)
        let reservation = try edge.request("POST", "/v1/cafes/macs-coffee/reservations", token: alice, json: ["locale": "en_US"])
        let reservationId = try requireValue(reservation.json["reservationId"] as? String)
        let order: [String: Any] = ["channel": "app", "cafeId": "macs-coffee", "reservationId": reservationId, "locale": "en_US",
                                    "items": [["itemId": "latte", "quantity": 1, "modifiers": [String]()]], "paymentToken": "tok_4242424242424242"]
        let placed = try edge.request("POST", "/v1/orders", token: alice, json: order, headers: ["Idempotency-Key": "k-alice-0001"])
        #expect(placed.status == 200)
        let orderId = try requireValue((placed.json["order"] as? [String: Any])?["orderId"] as? String)
        // The retry with the same key and body is the same order, not a second one.
        let retried = try edge.request("POST", "/v1/orders", token: alice, json: order, headers: ["Idempotency-Key": "k-alice-0001"])
        #expect(retried.status == 200 && (retried.json["order"] as? [String: Any])?["orderId"] as? String == orderId)
        let fetched = try edge.request("GET", "/v1/orders/\(orderId)?locale=en_US", token: alice)
        #expect(fetched.status == 200 && (fetched.json["order"] as? [String: Any])?["userId"] as? String == userId)

        // Alice's device serves her account only: mallory signing in on it, or a guest on it, is refused.
        let malloryToken = try edge.issuer.idToken(subject: "mallory", nonce: "n-m", now: Date().timeIntervalSince1970)
        #expect(try edge.request("POST", "/v1/sessions", json: ["idToken": malloryToken, "nonce": "n-m", "deviceId": "phone-1"]).status == 403)
        #expect(try edge.request("POST", "/v1/sessions/guest", json: ["deviceId": "phone-1"]).status == 403)
        // The service holds the session's principal to its scope: another device is refused.
        let other = try edge.request("PUT", "/v1/devices/phone-2/registration", token: alice,
                                     json: ["channel": "bus", "language": "en", "locale": "en_US", "authorization": "authorized"])
        #expect(other.status == 403 && other.code == "auth.forbidden")

        // Kiosk and kitchen tablets hold tokens from the operator's token op.
        let kitchen = try edge.deviceToken("kitchen", cafeId: "macs-coffee")
        // The kiosk's through cafectl, as an operator issues one.
        let issued = try edge.platform.cafectl(["tokens", "issue", "--kind", "kiosk", "--cafe", "caffe-macs", "--label", "counter-left", "--edge", edge.edgeEndpoint])
        #expect(issued.status == 0, "\(issued.err)")
        let kiosk = try requireValue(try JSONSerialization.jsonObject(with: Data(issued.out.utf8)) as? [String: Any])["token"] as? String
        let refusedCLI = try edge.platform.cafectl(["tokens", "list", "--edge", edge.edgeEndpoint], as: "kiosk-macs")
        #expect(refusedCLI.status == 1 && refusedCLI.err.contains("auth.forbidden"), "\(refusedCLI.err)")
        #expect(try edge.request("GET", "/v1/kitchen/tickets", token: kitchen).status == 200)
        // The kiosk takes a guest order at its café: its principal names the café, the route the channel.
        let kioskHold = try edge.request("POST", "/v1/cafes/caffe-macs/reservations", token: kiosk, json: ["locale": "en_US"])
        let guestBody: [String: Any] = ["reservationId": try requireValue(kioskHold.json["reservationId"] as? String),
                                        "locale": "en_US", "items": [["itemId": "fries", "quantity": 1]]]
        let guestOrder = try edge.request("POST", "/v1/cafes/caffe-macs/guest-orders", token: kiosk, json: guestBody, headers: ["Idempotency-Key": "k-kiosk-0001"])
        #expect(guestOrder.status == 200, "\(String(decoding: guestOrder.body, as: UTF8.self))")
        #expect(try edge.request("POST", "/v1/cafes/macs-coffee/reservations", token: kiosk, json: ["locale": "en_US"]).code == "auth.forbidden")
        // Each route family: no session 401, a session of another role 403, before any service is asked.
        let families: [(String, String, [String?])] = [
            ("GET", "/v1/menu?locale=en_US", [kitchen]), ("PUT", "/v1/devices/phone-1/registration", [kitchen, kiosk]),
            ("POST", "/v1/orders", [kitchen, kiosk]), ("GET", "/v1/kitchen/tickets", [alice, kiosk]),
            ("POST", "/v1/cafes/caffe-macs/guest-orders", [alice, kitchen]), ("POST", "/v1/orders/\(orderId)/pickup", [alice]),
            ("GET", "/v1/users/\(userId)/preference", [kiosk, kitchen]), ("GET", "/v1/sessions/current", []), ("DELETE", "/v1/sessions/current", []),
        ]
        for (method, path, refused) in families {
            let anonymous = try edge.request(method, path)
            #expect(anonymous.status == 401 && anonymous.headers["www-authenticate"] == "Bearer", "\(method) \(path) without a session")
            for token in refused {
                let response = try edge.request(method, path, token: token)
                #expect(response.status == 403 && response.code == "auth.forbidden", "\(method) \(path): \(response.status)")
            }
        }
        // Hostile headers: one longer than Pushpin's 8 KiB header buffer never reaches the edge
        // (condure drops the connection); 59 fields more (63 with curl's, within condure's 64, and
        // Pushpin adds its own) are more than the edge reads: 431.
        let longHeader = try? edge.request("GET", "/v1/menu?locale=en_US", token: alice, headers: ["X-Filler": String(repeating: "a", count: 9_000)])
        #expect(longHeader.map { (400..<500).contains($0.status) } ?? true, "\(longHeader?.status ?? 0)")
        let pushpinLog = edge.pushpin?.log ?? ""
        #expect(!pushpinLog.contains("X-Filler"))
        let manyFields = Dictionary(uniqueKeysWithValues: (0..<59).map { ("X-Field-\($0)", "v") })
        let crowded = try edge.request("GET", "/v1/menu?locale=en_US", token: alice, headers: manyFields)
        #expect(crowded.status == 431 && crowded.code == "http.headersTooLarge", "\(crowded.status)")
        // A body over 64 KiB is refused before it is read.
        let huge = try edge.request("POST", "/v1/orders", token: alice, headers: ["Idempotency-Key": "k-alice-0002"],
                                    rawBody: Data(repeating: UInt8(ascii: " "), count: 70_000))
        #expect(huge.status == 413 && huge.code == "request.tooLarge")

        // The token ops are the operator's: a kiosk's key is refused; a revoked token is 401 at once.
        let context = try Context()
        let kioskKey = try edge.platform.security(as: "kiosk-macs").requestClient(context: context, peer: edge.edgeEndpoint, defaultServer: "edge")
        let operatorKey = try edge.platform.security(as: KeyFolder.defaultOperator).requestClient(context: context, peer: edge.edgeEndpoint, defaultServer: "edge")
        defer { kioskKey.close(); operatorKey.close() }
        #expect(errorCode { try kioskKey.call(Op.tokenIssue, TokenIssueRequest(kind: "kiosk", cafeId: "caffe-macs"), as: TokenIssued.self) } == "auth.forbidden")
        #expect(errorCode { try kioskKey.call(Op.tokenList, TokenListRequest(), as: TokenList.self) } == "auth.forbidden")
        #expect(errorCode { try kioskKey.call(Op.tokenRevoke, TokenRevokeRequest(sessionId: "s000000000000000000000000"), as: TokenSession.self) } == "auth.forbidden")
        let listed = try operatorKey.call(Op.tokenList, TokenListRequest(kind: "kitchen"), as: TokenList.self).sessions
        #expect(listed.count == 1)
        _ = try operatorKey.call(Op.tokenRevoke, TokenRevokeRequest(sessionId: try requireValue(listed.first).sessionId), as: TokenSession.self)
        let revoked = try edge.request("GET", "/v1/kitchen/tickets", token: kitchen)
        #expect(revoked.status == 401 && (revoked.json["details"] as? [String: String])?["reason"] == "session.revoked")
        // The edge never publishes: the bus refused nothing from it (no heartbeats).
        let bus = try edge.platform.client("bus", as: KeyFolder.defaultOperator, context: context)
        defer { bus.close() }
        #expect(try bus.call(Op.health, Empty(), as: HealthStatus.self).details["refused.publications.notService"] == "0")
        // No token reaches a log.
        for name in ["edge", "order-service", "notification-service", "kitchen-display"] {
            #expect(!edge.platform.log(name).contains("cct_"), "\(name)'s log holds a bearer token")
        }
        let finalPushpinLog = edge.pushpin?.log ?? ""
        #expect(!finalPushpinLog.contains("cct_"), "Pushpin's log holds a bearer token")
    }

    @Test("deployed mode: an App Clip guest confirms its location, orders from the clip's code, then signs in and claims the order")
    func appClipGuest() throws {
        let edge = try EdgePlatform(security: .deployed)
        defer { edge.stop() }
        try edge.start(services: ["beacon-ingest", "region-monitor", "order-service"])
        let guest = try edge.request("POST", "/v1/sessions/guest", json: ["deviceId": "clip-kenji", "cafeId": "caffe-macs"])
        let clip = try requireValue(guest.json["token"] as? String)
        let now = Timestamp(Date()).rfc3339
        #expect(try edge.request("PUT", "/v1/devices/clip-kenji/location-authorization", token: clip,
                                 json: ["authorization": "whenInUse", "foreground": true, "precise": true, "monitoringAvailable": false, "rangingAvailable": false]).status == 200)
        let fix: [String: Any] = ["latitude": 37.3349, "longitude": -122.009, "horizontalAccuracy": 5, "precise": true, "timestamp": now]
        #expect(try edge.request("POST", "/v1/devices/clip-kenji/sightings", token: clip, json: ["fixes": [fix]]).json["accepted"] as? Int == 1)
        let code = "https://clip.campus.example/caffe-macs/counter"
        let confirmed = try eventually("the fix reaches region-monitor") { () -> String? in
            let answer = try edge.request("POST", "/v1/devices/clip-kenji/location-confirmations", token: clip,
                                          json: ["code": code, "acquiredAt": now, "cafeId": "caffe-macs"])
            return answer.json["result"] as? String == "yes" ? "yes" : nil
        }
        #expect(confirmed == "yes")
        // Another device's confirmation is not the guest's to ask.
        #expect(try edge.request("POST", "/v1/devices/phone-9/location-confirmations", token: clip,
                                 json: ["code": code, "acquiredAt": now, "cafeId": "caffe-macs"]).code == "auth.forbidden")
        let hold = try edge.request("POST", "/v1/cafes/caffe-macs/reservations", token: clip, json: ["locale": "en_US"])
        let order: [String: Any] = ["channel": "appClip", "cafeId": "caffe-macs", "reservationId": try requireValue(hold.json["reservationId"] as? String),
                                    "locale": "en_US", "items": [["itemId": "margherita", "quantity": 1]], "paymentToken": "tok_4242424242424242",
                                    "clip": ["url": code, "invocation": "appClipCode", "acquiredAt": now]]
        let placed = try edge.request("POST", "/v1/orders", token: clip, json: order, headers: ["Idempotency-Key": "clip-kenji-0001"])
        #expect(placed.status == 200, "\(String(decoding: placed.body, as: UTF8.self))")
        let orderId = try requireValue((placed.json["order"] as? [String: Any])?["orderId"] as? String)
        // After sign-in on the same device, the guest's order moves to the account.
        let (kenji, userId) = try edge.signIn("kenji", deviceId: "clip-kenji")
        let claimed = try edge.request("POST", "/v1/devices/clip-kenji/order-claims", token: kenji, json: [String: Any]())
        #expect(claimed.status == 200, "\(String(decoding: claimed.body, as: UTF8.self))")
        let owned = try edge.request("GET", "/v1/orders/\(orderId)?locale=en_US", token: kenji)
        #expect((owned.json["order"] as? [String: Any])?["userId"] as? String == userId)
    }

    @Test("plain mode: a stalled service is 504 by the deadline and the retry with the same Idempotency-Key gets the one order; a stopped one is 503 at once; a token over its rate is 429 with Retry-After")
    func failuresAndLimits() throws {
        let edge = try EdgePlatform(security: .plain)
        defer { edge.stop() }
        edge.edgeArguments = ["--token-burst", "12", "--token-rate", "0.2"]
        try edge.start(services: Self.ordering)
        let (bob, _) = try edge.signIn("bob", deviceId: "phone-bob")
        let reservation = try edge.request("POST", "/v1/cafes/macs-coffee/reservations", token: bob, json: ["locale": "en_US"])
        let reservationId = try requireValue(reservation.json["reservationId"] as? String)
        let order: [String: Any] = ["channel": "app", "cafeId": "macs-coffee", "reservationId": reservationId, "locale": "en_US",
                                    "items": [["itemId": "espresso", "quantity": 1]], "paymentToken": "tok_4242424242424242"]

        // order-service stops answering (SIGSTOP): the client gets 504 after the deadline, not a hang.
        let orders = try requireValue(edge.platform.process("order-service"))
        kill(orders.processIdentifier, SIGSTOP)
        let started = Date()
        let stalled = try edge.request("POST", "/v1/orders", token: bob, json: order, headers: ["Idempotency-Key": "k-bob-00001"])
        kill(orders.processIdentifier, SIGCONT)
        #expect(stalled.status == 504 && stalled.code == "client.timeout")
        #expect(Date().timeIntervalSince(started) < 10)
        // The retry gets the order the stalled request placed once the service went on, and again.
        let first = try edge.request("POST", "/v1/orders", token: bob, json: order, headers: ["Idempotency-Key": "k-bob-00001"])
        let second = try edge.request("POST", "/v1/orders", token: bob, json: order, headers: ["Idempotency-Key": "k-bob-00001"])
        let orderId = try requireValue((first.json["order"] as? [String: Any])?["orderId"] as? String)
        #expect(first.status == 200 && (second.json["order"] as? [String: Any])?["orderId"] as? String == orderId)

        // order-service stopped: 503 naming it, at once.
        #expect(edge.platform.terminate("order-service") != nil)
        let down = try eventually("the edge sees order-service gone") { () -> EdgePlatform.Response? in
            let response = try edge.request("GET", "/v1/orders/\(orderId)?locale=en_US", token: bob)
            return response.status == 503 ? response : nil
        }
        #expect(down.code == "http.serviceUnavailable" && (down.json["details"] as? [String: String])?["service"] == "order-service")
        // The operator sees both in the edge's log, once each (at most a line a minute per kind).
        let edgeLog = edge.platform.log("edge")
        #expect(edgeLog.contains("service did not answer in time") && edgeLog.contains("service unavailable"))

        // Bob's token has used most of its burst of 12; the rest run out and the next is 429 with Retry-After.
        var limited: EdgePlatform.Response?
        for _ in 0..<15 {
            let response = try edge.request("GET", "/v1/sessions/current", token: bob)
            if response.status == 429 { limited = response; break }
            #expect(response.status == 200)
        }
        let refusal = try requireValue(limited)
        #expect(refusal.code == "http.rateLimited" && Int(refusal.headers["retry-after"] ?? "") ?? 0 >= 1)
        // Another session has its own bucket.
        let guest = try edge.request("POST", "/v1/sessions/guest", json: ["deviceId": "clip-9"])
        #expect(try edge.request("GET", "/v1/sessions/current", token: try requireValue(guest.json["token"] as? String)).status == 200)
    }
}
