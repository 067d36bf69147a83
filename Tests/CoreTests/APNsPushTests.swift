import Foundation
import Messages
import NotifyCore
import Testing

private let created = Timestamp(rfc3339: "2020-06-25T16:41:00.000Z")!

private func note(_ kind: NotificationKind = .orderReady, id: String = "ntf_9f1c2a4e-7b3d-4c5e-8f60-1a2b3c4d5e6f", body: String = "Your order from Caffè Macs is ready.",
                  collapseId: String = "ord-1", expiresAt: Timestamp? = created.adding(seconds: 1_800)) -> DeviceNotification {
    DeviceNotification(notificationId: id, deviceId: "phone-1", kind: kind, collapseId: collapseId, title: "Your order is ready", body: body, language: "en",
                       orderId: "ord-1", expiresAt: expiresAt, createdAt: created, undeliverableReason: nil)
}

private let destination = APNsDestination(token: String(repeating: "AB", count: 32), environment: .sandbox, topic: "edu.campus.cafe")

@Suite("APNs: the request for one notification")
struct APNsPushTests {
    @Test("headers: a lower-case apns-id from the notification id, collapse id, absolute expiration, priority 10 for what the customer waits on")
    func headers() {
        let push = APNsPush(note(), destination: destination)
        #expect(push.apnsId == "9f1c2a4e-7b3d-4c5e-8f60-1a2b3c4d5e6f")
        #expect(push.path == "/3/device/" + String(repeating: "ab", count: 32))
        let headers = Dictionary(uniqueKeysWithValues: push.headers(bearer: "t").map { ($0.name, $0.value) })
        #expect(headers == ["authorization": "bearer t", "apns-id": push.apnsId, "apns-push-type": "alert", "apns-topic": "edu.campus.cafe",
                            "apns-priority": "10", "apns-expiration": "\(created.adding(seconds: 1_800).milliseconds / 1_000)", "apns-collapse-id": "ord-1"])
        for kind in NotificationKind.allCases {
            let expected = [.orderReady, .orderDelayed, .orderLate].contains(kind) ? 10 : 5
            #expect(APNsPush(note(kind), destination: destination).priority == expected, "\(kind)")
        }
    }

    @Test("the same notification gives the same request every time; another id a UUID of its own, stable too")
    func stable() {
        #expect(APNsPush(note(), destination: destination) == APNsPush(note(), destination: destination))
        let odd = APNsPush.apnsId(for: "ntf-5b7f")
        #expect(odd == APNsPush.apnsId(for: "ntf-5b7f") && odd != APNsPush.apnsId(for: "ntf-5b7e"))
        #expect(TextRules.canonicalUUID(odd) != nil && odd == odd.lowercased())
    }

    @Test("payload: aps.alert with the localized text, thread-id the order, at most 4 KiB; a collapse id over 64 bytes is left out, never cut")
    func payload() throws {
        let push = APNsPush(note(), destination: destination)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(push.payload)) as? [String: Any])
        let aps = try #require(json["aps"] as? [String: Any])
        #expect((aps["alert"] as? [String: String]) == ["title": "Your order is ready", "body": "Your order from Caffè Macs is ready."])
        #expect(aps["thread-id"] as? String == "ord-1" && json["notificationId"] as? String == note().notificationId)
        let huge = APNsPush(note(body: String(repeating: "é", count: 5_000)), destination: destination)
        #expect(huge.payload.count <= APNsPush.maxPayloadBytes && huge.payload.count > 3_000)
        #expect(APNsPush(note(collapseId: String(repeating: "x", count: 65)), destination: destination).collapseId == nil)
        #expect(APNsPush(note(expiresAt: nil), destination: destination).expiration == 0)
    }
}

@Suite("APNs: what each answer does")
struct APNsOutcomeTests {
    static let now = created.adding(seconds: 60)
    static let expires = created.adding(seconds: 1_800)

    @Test("APNs' statuses and reasons, sorted")
    func classify() {
        func outcome(_ status: Int, _ body: String = "") -> APNsOutcome { APNsOutcome.classify(status: status, body: Array(body.utf8)) }
        #expect(outcome(200) == .accepted)
        #expect(outcome(410, #"{"reason":"Unregistered","timestamp":1593103260000}"#) == .unregistered(since: Timestamp(milliseconds: 1_593_103_260_000)))
        #expect(outcome(400, #"{"reason":"BadDeviceToken"}"#) == .unregistered(since: nil))
        #expect(outcome(403, #"{"reason":"InvalidProviderToken"}"#) == .credentials(reason: "InvalidProviderToken"))
        #expect(outcome(403, #"{"reason":"ExpiredProviderToken"}"#) == .tokenExpired)
        #expect(outcome(413) == .payloadTooLarge)
        #expect(outcome(429, #"{"reason":"TooManyRequests"}"#) == .throttled(reason: "TooManyRequests"))
        #expect(outcome(503, #"{"reason":"ServiceUnavailable"}"#) == .transient(reason: "503 ServiceUnavailable"))
        #expect(outcome(400, #"{"reason":"BadTopic"}"#) == .refused(status: 400, reason: "BadTopic"))
        #expect(outcome(500, "not json") == .transient(reason: "500 "))
        #expect(outcome(410, #"{"timestamp":-5}"#) == .unregistered(since: nil))
    }

    @Test("decisions: retire unless registered since, hold on credentials, never retry 413, back a throttled device off, retry with jitter until expiry")
    func decide() {
        func decide(_ outcome: APNsOutcome, attempts: Int = 1, registeredAt: Timestamp = created, jitter: Double = 0) -> PushDecision {
            PushRetryPolicy.decide(outcome, attempts: attempts, expiresAt: Self.expires, registeredAt: registeredAt, now: Self.now, jitter: jitter)
        }
        #expect(decide(.accepted) == .delivered)
        #expect(decide(.unregistered(since: Self.now)) == .retire(since: Self.now))
        #expect(decide(.unregistered(since: created.adding(seconds: -5))) == .retry(at: Self.now.adding(seconds: 0.5)))
        #expect(decide(.credentials(reason: "InvalidProviderToken")) == .hold)
        #expect(decide(.payloadTooLarge) == .failed(reason: "413 PayloadTooLarge"))
        #expect(decide(.throttled(reason: "TooManyRequests")) == .backOffDevice(until: Self.now.adding(seconds: PushRetryPolicy.throttleSeconds)))
        #expect(decide(.transient(reason: "500"), attempts: 3, jitter: 0) == .retry(at: Self.now.adding(seconds: 2)))
        #expect(decide(.transient(reason: "500"), attempts: 3, jitter: 0.5) == .retry(at: Self.now.adding(seconds: 3)))
        // The delay grows to at most 300 s; a retry that would come after expiry is expiry.
        #expect(PushRetryPolicy.delay(attempts: 40, jitter: 0.999) < PushRetryPolicy.maxSeconds)
        #expect(PushRetryPolicy.decide(.transient(reason: "500"), attempts: 6, expiresAt: Self.now.adding(seconds: 10), registeredAt: created, now: Self.now,
                                       jitter: 0.5) == .expired)
    }
}

@Suite("APNs: device.register's destination")
struct APNsDestinationTests {
    @Test("a token of 64 hex digits and a bundle-id topic decode; anything else is request.invalidField naming the field")
    func decoding() throws {
        func decode(_ apns: String) throws(WireError) -> RegisterDevice {
            let frame = #"{"op":"device.register","id":"1","body":{"deviceId":"p","channel":"apns","language":"en","locale":"en_US","authorization":"authorized","apns":\#(apns)}}"#
            return try Wire.decodeRequest(Data(frame.utf8), body: RegisterDevice.self).body
        }
        let token = String(repeating: "aB", count: 32)
        let good = try decode(#"{"token":"\#(token)","environment":"production","topic":"edu.campus.cafe.Clip"}"#)
        #expect(good.apns == APNsDestination(token: token.lowercased(), environment: .production, topic: "edu.campus.cafe.Clip"))
        for bad in [#"{"token":"\#(token.dropLast())","environment":"sandbox","topic":"edu.campus.cafe"}"#,
                    #"{"token":"\#(token.dropLast())g","environment":"sandbox","topic":"edu.campus.cafe"}"#,
                    #"{"token":"\#(token)","environment":"staging","topic":"edu.campus.cafe"}"#,
                    #"{"token":"\#(token)","environment":"sandbox","topic":"nodots"}"#,
                    #"{"token":"\#(token)","environment":"sandbox","topic":"\#(String(repeating: "a.", count: 80))x"}"#] {
            #expect(throws: WireError.self) { _ = try decode(bad) }
            #expect((try? decode(bad)) == nil)
            do { _ = try decode(bad) } catch { #expect(error.code == .invalidField, "\(bad)") }
        }
    }

    @Test("channel apns needs its destination, and no other channel takes one")
    func channelRules() throws {
        let apns = APNsDestination(token: String(repeating: "0", count: 64), environment: .sandbox, topic: "edu.campus.cafe")
        func check(_ channel: String, _ destination: APNsDestination?) -> String? {
            do {
                try NotifyRequestRules.checkRegistration(RegisterDevice(deviceId: "p", userId: nil, channel: channel, language: "en", locale: "en_US",
                                                                        authorization: .authorized, apns: destination))
                return nil
            } catch { return error.code }
        }
        #expect(check("apns", apns) == nil && check("bus", nil) == nil)
        #expect(check("apns", nil) == "request.invalidField" && check("bus", apns) == "request.invalidField")
        #expect(check("sms", nil) == "notify.channelUnsupported")
        let registration = try NotifyRequestRules.registration(RegisterDevice(deviceId: "p", userId: nil, channel: "apns", language: "en", locale: "en_US",
                                                                              authorization: .authorized, apns: apns), now: created)
        #expect(registration.apns == apns && DeliveryPolicy.refusal(registration, now: created) == nil)
        var retired = registration
        retired.apnsRetiredAt = created
        #expect(DeliveryPolicy.refusal(retired, now: created) == UndeliverableReason.tokenUnregistered)
    }
}

@Suite("APNs: Live Activity updates")
struct LiveActivityUpdateTests {
    static let start = created.adding(seconds: 900)

    func order(_ state: OrderState, paced: Bool? = nil, arrival: Timestamp? = nil) -> OrderSnapshot {
        OrderSnapshot(orderId: "ord-1", cafeId: "caffe-macs", cafeName: "Caffè Macs", timeZone: "America/Los_Angeles", currency: "USD", channel: .app, userId: nil,
                      deviceId: "phone-1", state: state, lines: [], total: 0, pickupStart: Self.start, pickupEnd: Self.start.adding(seconds: 900), placedAt: created,
                      customerHere: false, paced: paced, expectedArrivalAt: arrival)
    }

    @Test("phases: a paced accepted order waits to fire; an unpaced one is just placed; pickup, cancel and no-show end it")
    func phases() {
        #expect(LiveActivityUpdate.phase(order(.accepted)) == .waitingToFire && LiveActivityUpdate.phase(order(.accepted, paced: false)) == .placed)
        for state in [OrderState.pickedUp, .cancelled, .noShow] {
            let update = LiveActivityUpdate(order(state), now: created, previous: nil)
            #expect(update.isEnd && update.dismissalAt == created.adding(seconds: LiveActivityUpdate.dismissalSeconds) && update.priority == 10)
        }
        #expect(!LiveActivityUpdate(order(.preparing), now: created, previous: nil).isEnd)
    }

    @Test("timestamps strictly increase, even two updates in one second or with the clock behind; the target is the expected arrival of a paced order")
    func timestampsAndTarget() throws {
        let seconds = created.milliseconds / 1_000
        #expect(LiveActivityUpdate(order(.placed), now: created, previous: nil).timestamp == seconds)
        #expect(LiveActivityUpdate(order(.placed), now: created, previous: seconds).timestamp == seconds + 1)
        #expect(LiveActivityUpdate(order(.placed), now: created, previous: seconds + 50).timestamp == seconds + 51)
        let arrival = created.adding(seconds: 300)
        #expect(LiveActivityUpdate(order(.preparing, arrival: arrival), now: created, previous: nil).targetReadyAt == arrival)
        #expect(LiveActivityUpdate(order(.preparing, paced: false, arrival: arrival), now: created, previous: nil).targetReadyAt == Self.start)
        let update = LiveActivityUpdate(order(.ready, arrival: arrival), now: created, previous: nil)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(update.payload)) as? [String: Any])
        let aps = try #require(json["aps"] as? [String: Any])
        #expect(aps["event"] as? String == "update" && aps["timestamp"] as? Int == Int(seconds))
        #expect((aps["content-state"] as? [String: Any])?["phase"] as? String == "ready")
        let headers = Dictionary(uniqueKeysWithValues: update.headers(topic: "edu.campus.cafe", bearer: "t").map { ($0.name, $0.value) })
        #expect(headers["apns-push-type"] == "liveactivity" && headers["apns-topic"] == "edu.campus.cafe.push-type.liveactivity" && headers["apns-priority"] == "10")
        #expect(update.apnsId == LiveActivityUpdate(order(.ready, arrival: arrival), now: created, previous: nil).apnsId)
    }

    @Test("a Live Activity token: its order id and 16–256 hex digits; only with channel apns")
    func token() throws {
        func decode(_ activity: String) throws(WireError) -> RegisterDevice {
            let frame = #"{"op":"device.register","id":"1","body":{"deviceId":"p","channel":"apns","language":"en","locale":"en_US","authorization":"authorized","apns":{"token":"\#(String(repeating: "0", count: 64))","environment":"sandbox","topic":"edu.campus.cafe"},"liveActivity":\#(activity)}}"#
            return try Wire.decodeRequest(Data(frame.utf8), body: RegisterDevice.self).body
        }
        #expect(try decode(#"{"orderId":"ord-1","token":"\#(String(repeating: "AB", count: 40))"}"#).liveActivity?.token == String(repeating: "ab", count: 40))
        for bad in [#"{"orderId":"ord 1","token":"abab"}"#, #"{"orderId":"ord-1","token":"abc"}"#, #"{"orderId":"ord-1","token":"\#(String(repeating: "a", count: 258))"}"#,
                    #"{"orderId":"ord-1","token":"\#(String(repeating: "zz", count: 10))"}"#] {
            #expect(throws: WireError.self) { _ = try decode(bad) }
        }
        let onBus = RegisterDevice(deviceId: "p", userId: nil, channel: "bus", language: "en", locale: "en_US", authorization: .authorized,
                                   liveActivity: LiveActivityToken(orderId: "ord-1", token: "abababababababab"))
        #expect(throws: ServiceError.self) { try NotifyRequestRules.checkRegistration(onBus) }
    }
}
