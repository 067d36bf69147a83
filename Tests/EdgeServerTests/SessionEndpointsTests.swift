import EdgeCore
import EdgeServer
import Foundation
import Identity
import Messages
import Policy
import SQLite
import Testing
import TestSupport

/// The session routes against a real SQLite file and ID tokens from a local issuer made with the
/// openssl command line (`LocalIssuer`), on a clock in the test's hand.
@Suite("Sessions at the edge: sign-in with an ID token, guests, the bearer check, sign-out")
struct SessionEndpointsTests {
    static let issuer: LocalIssuer = {
        do { return try LocalIssuer() } catch { fatalError("cannot make the local issuer: \(error)") }
    }()
    let folder: URL
    let clock = ManualClock(Timestamp(milliseconds: 1_780_000_000_000))
    let database: Database
    let endpoints: SessionEndpoints

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("edge-sessions-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        database = try Database(path: folder.appendingPathComponent("edge.sqlite").path)
        let store = try SessionStore(database: database, clock: clock)
        endpoints = try SessionEndpoints(store: store, configuration: try IssuerConfiguration(file: Self.issuer.issuersFile.path), clock: clock)
    }

    var now: Double { Double(clock.now().milliseconds) / 1_000 }

    func body(_ object: [String: Any]) throws -> [UInt8] { [UInt8](try JSONSerialization.data(withJSONObject: object)) }

    func json(_ response: EdgeResponse) throws -> [String: Any] {
        try requireValue(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    func bearer(_ token: String) -> HTTPHeaders { HTTPHeaders([("Authorization", "Bearer " + token)]) }

    @Test("a good ID token with its nonce signs in: a user session bound to the device, its token once, no-store; the bearer finds it")
    func signIn() throws {
        let token = try Self.issuer.idToken(subject: "alice-001", nonce: "n-123", now: now)
        let response = endpoints.answer(.signIn, body: try body(["idToken": token, "nonce": "n-123", "deviceId": "phone-1"]), session: nil)
        #expect(response.status == 200)
        #expect(response.headers.contains { $0.0 == "Cache-Control" && $0.1 == "no-store" })
        let reply = try json(response)
        let bearerToken = try requireValue(reply["token"] as? String)
        #expect(reply["kind"] as? String == "user" && reply["role"] as? String == "phone" && reply["deviceId"] as? String == "phone-1")
        let userId = try requireValue(reply["userId"] as? String)
        #expect(userId.hasPrefix("u-"))
        let session = try requireValue(try endpoints.authenticate(bearer(bearerToken)))
        #expect(session.userId == userId && session.deviceId == "phone-1")
        #expect(SessionEndpoints.principal(of: session) == .phone(session.id, userId: userId, deviceId: "phone-1"))
        // The current session shows no token; signing out revokes it, and the bearer is refused after.
        let current = try json(endpoints.answer(.current, body: [], session: session))
        #expect(current["token"] == nil && current["sessionId"] as? String == session.id)
        #expect(endpoints.answer(.signOut, body: [], session: session).status == 200)
        #expect(throws: Problem.self) { try endpoints.authenticate(bearer(bearerToken)) }
    }

    @Test("a wrong nonce, an expired token, another issuer's audience and a bad signature are each 401 with the check in details.reason; nothing is issued")
    func refusedTokens() throws {
        func reason(_ token: String, nonce: String = "n-1") throws -> String? {
            let response = endpoints.answer(.signIn, body: try body(["idToken": token, "nonce": nonce, "deviceId": "phone-1"]), session: nil)
            #expect(response.status == 401)
            #expect(response.headers.contains { $0.0 == "WWW-Authenticate" })
            return (try json(response)["details"] as? [String: String])?["reason"]
        }
        #expect(try reason(try Self.issuer.idToken(subject: "a", nonce: "n-other", now: now)) == "idToken.nonce")
        #expect(try reason(try Self.issuer.idToken(subject: "a", nonce: nil, now: now)) == "idToken.nonce")
        #expect(try reason(try Self.issuer.idToken(subject: "a", nonce: "n-1", now: now - 7_200)) == "idToken.expired")
        #expect(try reason(try Self.issuer.idToken(subject: "a", nonce: "n-1", now: now, extra: ["aud": "someone.else"])) == "idToken.audience")
        let good = try Self.issuer.idToken(subject: "a", nonce: "n-1", now: now)
        #expect(try reason(String(good.dropLast(4)) + "AAAA") == "jws.signature")
        #expect(try reason("not-a-token") == "jws.segments")
        let store = try SessionStore(database: database, clock: clock)
        #expect(try store.list(includeInactive: true).isEmpty)
    }

    @Test("bodies: a missing member or a bad device id is 422 and issues nothing")
    func badBodies() throws {
        #expect(endpoints.answer(.signIn, body: try body(["idToken": "x", "deviceId": "phone-1"]), session: nil).status == 422)
        #expect(endpoints.answer(.signIn, body: try body(["idToken": "x", "nonce": "", "deviceId": "phone-1"]), session: nil).status == 422)
        #expect(endpoints.answer(.signIn, body: try body(["idToken": "x", "nonce": String(repeating: "n", count: 257), "deviceId": "phone-1"]), session: nil).status == 422)
        #expect(endpoints.answer(.guest, body: try body(["cafeId": "caffe-macs"]), session: nil).status == 422)
        #expect(endpoints.answer(.guest, body: try body(["deviceId": "not an id!"]), session: nil).status == 422)
        let store = try SessionStore(database: database, clock: clock)
        #expect(try store.list(includeInactive: true).isEmpty)
    }

    @Test("a guest session is an App Clip's phone without a user, acting for its device only")
    func guest() throws {
        let reply = try json(endpoints.answer(.guest, body: try body(["deviceId": "clip-7", "cafeId": "caffe-macs"]), session: nil))
        #expect(reply["kind"] as? String == "guest" && reply["userId"] == nil)
        let session = try requireValue(try endpoints.authenticate(bearer(try requireValue(reply["token"] as? String))))
        #expect(SessionEndpoints.role(of: session) == .phone)
        #expect(SessionEndpoints.principal(of: session) == .phone(session.id, userId: nil, deviceId: "clip-7"))
    }

    @Test("the bearer check: none is nil; a wrong scheme, two fields, every wrong token shape, an expired session are 401")
    func bearerShapes() throws {
        #expect(try endpoints.authenticate(HTTPHeaders()) == nil)
        let reply = try json(endpoints.answer(.guest, body: try body(["deviceId": "clip-8"]), session: nil))
        let token = try requireValue(reply["token"] as? String)
        for headers in [HTTPHeaders([("Authorization", "Basic " + token)]), HTTPHeaders([("Authorization", "Bearer " + token), ("Authorization", "Bearer " + token)]),
                        bearer(""), bearer("cct_"), bearer(String(token.dropLast())), bearer(token + "A"), bearer(String(token.dropLast()) + "!"),
                        bearer("cct_" + String(repeating: "A", count: 43))] {
            #expect(throws: Problem.self) { try endpoints.authenticate(headers) }
        }
        #expect(try endpoints.authenticate(bearer(token)) != nil)
        clock.advance(seconds: 8 * 3_600 + 1)
        do {
            _ = try endpoints.authenticate(bearer(token))
            Issue.record("an expired guest session was accepted")
        } catch {
            #expect(error.status == 401 && error.details?["reason"] == "session.expired")
        }
    }

    @Test("an ID token signs in once: the same token again is 401 idToken.replayed; a refused token is not used up")
    func replay() throws {
        let store = try SessionStore(database: database, clock: clock)
        let once = try SessionEndpoints(store: store, configuration: try IssuerConfiguration(file: Self.issuer.issuersFile.path), clock: clock,
                                        usedTokens: try UsedIDTokens(database: database))
        let token = try Self.issuer.idToken(subject: "carol", nonce: "n-9", now: now)
        // With the wrong nonce first: refused, and the token still signs in afterwards.
        #expect(once.answer(.signIn, body: try body(["idToken": token, "nonce": "n-other", "deviceId": "phone-3"]), session: nil).status == 401)
        #expect(once.answer(.signIn, body: try body(["idToken": token, "nonce": "n-9", "deviceId": "phone-3"]), session: nil).status == 200)
        let again = once.answer(.signIn, body: try body(["idToken": token, "nonce": "n-9", "deviceId": "phone-3"]), session: nil)
        let reason = (try json(again)["details"] as? [String: String])?["reason"]
        #expect(again.status == 401 && reason == "idToken.replayed")
        #expect(try store.list(includeInactive: true).count == 1)
        // Purged once expired (and refused as expired by then anyway).
        let used = try UsedIDTokens(database: database)
        #expect(try used.purge(before: clock.now()) == 0)
        #expect(try used.purge(before: clock.now().adding(seconds: 7_200)) == 1)
    }

    @Test("a device serves one account: another user's sign-in on it, or a guest on a signed-in device, is 403 and issues nothing")
    func deviceBindings() throws {
        let store = try SessionStore(database: database, clock: clock)
        let bound = try SessionEndpoints(store: store, configuration: try IssuerConfiguration(file: Self.issuer.issuersFile.path), clock: clock,
                                         devices: try DeviceBindings(database: database))
        func signIn(_ subject: String, _ device: String) throws -> Int {
            let token = try Self.issuer.idToken(subject: subject, nonce: "n", now: now)
            return bound.answer(.signIn, body: try body(["idToken": token, "nonce": "n", "deviceId": device]), session: nil).status
        }
        func guest(_ device: String) throws -> Int { bound.answer(.guest, body: try body(["deviceId": device]), session: nil).status }
        // An App Clip's device: a guest first, then its person signs in on it and owns it.
        #expect(try guest("clip-1") == 200)
        #expect(try guest("clip-1") == 200)
        #expect(try signIn("dana", "clip-1") == 200)
        #expect(try signIn("dana", "clip-1") == 200)
        let before = try store.list(includeInactive: true).count
        #expect(try signIn("mallory", "clip-1") == 403)
        #expect(try guest("clip-1") == 403)
        #expect(try store.list(includeInactive: true).count == before)
        // Mallory on her own device is fine.
        #expect(try signIn("mallory", "phone-m") == 200)
    }

    @Test("without issuers, sign-in answers 503 and guests still work")
    func noIssuers() throws {
        let store = try SessionStore(database: database, clock: clock)
        let bare = try SessionEndpoints(store: store, configuration: IssuerConfiguration(), clock: clock)
        #expect(bare.answer(.signIn, body: try body(["idToken": "x", "nonce": "n", "deviceId": "phone-1"]), session: nil).status == 503)
        #expect(bare.answer(.guest, body: try body(["deviceId": "clip-9"]), session: nil).status == 200)
    }

    @Test("issuers are taken anew (SIGHUP re-reads the file): a new issuer's token signs in at once, a dropped one's no longer; sessions stay")
    func reloadIssuers() throws {
        let store = try SessionStore(database: database, clock: clock)
        let bare = try SessionEndpoints(store: store, configuration: IssuerConfiguration(), clock: clock)
        let token = try Self.issuer.idToken(subject: "carol-001", nonce: "n-7", now: now)
        #expect(bare.answer(.signIn, body: try body(["idToken": token, "nonce": "n-7", "deviceId": "phone-7"]), session: nil).status == 503)
        try bare.use(try IssuerConfiguration(file: Self.issuer.issuersFile.path))
        let signedIn = bare.answer(.signIn, body: try body(["idToken": token, "nonce": "n-7", "deviceId": "phone-7"]), session: nil)
        #expect(signedIn.status == 200)
        let bearerToken = try requireValue(try json(signedIn)["token"] as? String)
        // The issuer dropped: its tokens no longer sign in, the session it gave stays.
        try bare.use(IssuerConfiguration())
        let again = try Self.issuer.idToken(subject: "carol-001", nonce: "n-8", now: now)
        #expect(bare.answer(.signIn, body: try body(["idToken": again, "nonce": "n-8", "deviceId": "phone-7"]), session: nil).status == 503)
        #expect(try bare.authenticate(bearer(bearerToken)) != nil)
    }
}
