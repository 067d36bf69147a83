import Foundation
import Identity
import Messages
import SQLite
import Testing
import TestSupport

@Suite("Sessions: random tokens, stored hashed in a real SQLite file, expiring on the injected clock, revocable")
struct SessionStoreTests {
    let folder: URL
    let clock = ManualClock()
    let database: Database
    let store: SessionStore

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sessions-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        database = try Database(path: folder.appendingPathComponent("edge.sqlite").path)
        store = try SessionStore(database: database, clock: clock)
    }

    @Test("issue, then look up by the token: the session it was issued as")
    func issueAndLookUp() throws {
        let (session, token) = try store.issue(.user, for: SessionPrincipal(userId: "u-alice", deviceId: "phone-1"))
        #expect(token.presented.hasPrefix(SessionToken.prefix) && token.presented.count == SessionToken.presentedLength)
        #expect(session.kind == .user && session.userId == "u-alice" && session.deviceId == "phone-1")
        #expect(session.expiresAt == clock.now().adding(seconds: 30 * 86_400))
        #expect(try store.authenticate(token.presented) == session)
        let (guest, guestToken) = try store.issue(.guest, for: SessionPrincipal(deviceId: "clip-7", cafeId: "caffe-macs"))
        #expect(try store.authenticate(guestToken.presented) == guest)
        #expect(guest.expiresAt == clock.now().adding(seconds: 8 * 3_600))
        #expect(guest.id != session.id)
    }

    @Test("tokens are distinct and carry 256 bits: a thousand of them, no two alike")
    func distinct() throws {
        var seen = Set<String>()
        for _ in 0..<1_000 { seen.insert(try SessionToken.generate().presented) }
        #expect(seen.count == 1_000)
    }

    @Test("expiry follows the injected clock: good until the last millisecond, expired from then on")
    func expiry() throws {
        let (_, token) = try store.issue(.guest, for: SessionPrincipal(deviceId: "clip-1"), lifetime: 600)
        clock.advance(seconds: 599.999)
        #expect(refusal { try store.authenticate(token.presented) } == nil)
        clock.advance(seconds: 0.001)
        #expect(refusal { try store.authenticate(token.presented) } == .sessionExpired)
    }

    @Test("revoke by id: refused from then on, listed as revoked, revoking again changes nothing")
    func revoke() throws {
        let (kiosk, token) = try store.issue(.kiosk, for: SessionPrincipal(cafeId: "caffe-macs"), label: "counter-left")
        let (other, otherToken) = try store.issue(.kitchen, for: SessionPrincipal(cafeId: "caffe-macs"), label: "line.1")
        #expect(try store.list(kind: .kiosk).map(\.id) == [kiosk.id])
        clock.advance(seconds: 10)
        let revoked = try store.revoke(id: kiosk.id)
        #expect(revoked.revokedAt == clock.now())
        #expect(refusal { try store.authenticate(token.presented) } == .sessionRevoked)
        #expect(try store.authenticate(otherToken.presented) == other)
        clock.advance(seconds: 10)
        #expect(try store.revoke(id: kiosk.id) == revoked)
        #expect(try store.list(kind: .kiosk).isEmpty)
        #expect(try store.list(kind: .kiosk, includeInactive: true) == [revoked])
        #expect(refusal { try store.revoke(id: "s000000000000000000000000") } == .sessionNotFound)
    }

    @Test("list: newest first, by kind and by user, active only unless asked, bounded")
    func list() throws {
        let first = try store.issue(.user, for: SessionPrincipal(userId: "u-alice")).session
        clock.advance(seconds: 1)
        let second = try store.issue(.user, for: SessionPrincipal(userId: "u-bob")).session
        clock.advance(seconds: 1)
        let third = try store.issue(.user, for: SessionPrincipal(userId: "u-alice"), lifetime: 60).session
        #expect(try store.list().map(\.id) == [third.id, second.id, first.id])
        #expect(try store.list(userId: "u-alice").map(\.id) == [third.id, first.id])
        #expect(try store.list(limit: 1).map(\.id) == [third.id])
        clock.advance(seconds: 60)
        #expect(try store.list(userId: "u-alice").map(\.id) == [first.id])
        #expect(try store.purge(endedBefore: clock.now()) == 0, "it ended at this very moment, not before")
        clock.advance(seconds: 1)
        #expect(try store.list(userId: "u-alice", includeInactive: true).count == 2)
        #expect(try store.purge(endedBefore: clock.now()) == 1)
        #expect(refusal { try store.session(id: third.id) } == .sessionNotFound)
    }

    @Test("tokens of the wrong shape are malformed; a well-shaped token never issued is unknown")
    func malformed() throws {
        let (_, token) = try store.issue(.user, for: SessionPrincipal(userId: "u-alice"))
        let text = token.presented
        for bad in ["", "cct_", String(text.dropLast()), text + "A", "xyz_" + text.dropFirst(4), String(text.dropLast()) + "=",
                    String(text.dropLast()) + "+", "Bearer " + text, String(repeating: "a", count: 100_000)] {
            #expect(refusal { try store.authenticate(bad) } == .sessionMalformed, "\(bad.prefix(60))")
        }
        #expect(refusal { try store.authenticate(try SessionToken.generate().presented) } == .sessionUnknown)
    }

    @Test("only hashes on disk: the token's text and secret appear in no file of the database; its SHA-256 does")
    func hashesOnly() throws {
        var tokens: [SessionToken] = []
        for index in 0..<20 {
            tokens.append(try store.issue(.user, for: SessionPrincipal(userId: "u-\(index)")).token)
        }
        let bytes = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil).map { try Data(contentsOf: $0) }
        try database.checkpoint()
        let checkpointed = try Data(contentsOf: folder.appendingPathComponent("edge.sqlite"))
        for token in tokens {
            let secret = Data(try #require(Base64URL.decode(String(token.presented.dropFirst(SessionToken.prefix.count)))))
            for data in bytes + [checkpointed] {
                #expect(data.range(of: Data(token.presented.utf8)) == nil)
                #expect(data.range(of: Data(token.presented.dropFirst(4).prefix(16).utf8)) == nil)
                #expect(data.range(of: secret) == nil)
            }
            #expect(checkpointed.range(of: Data(token.hash)) != nil, "the hash is what is stored")
        }
    }

    @Test("a token never prints: description, debugDescription, interpolation, dump")
    func redacted() throws {
        let (_, token) = try store.issue(.user, for: SessionPrincipal(userId: "u-alice"))
        var dumped = ""
        dump(token, to: &dumped)
        let secretPart = String(token.presented.dropFirst(4))
        for text in ["\(token)", String(describing: token), String(reflecting: token), dumped, "\([token])", "\(Optional(token) as Any)"] {
            #expect(!text.contains(secretPart) && text.contains("redacted"), "\(text)")
        }
    }

    @Test("principals and lifetimes a kind does not allow are refused and store nothing")
    func invalid() throws {
        let cases: [(SessionKind, SessionPrincipal, Double?, String?)] = [
            (.user, SessionPrincipal(deviceId: "phone-1"), nil, nil),
            (.user, SessionPrincipal(userId: "u-alice", cafeId: "caffe-macs"), nil, nil),
            (.guest, SessionPrincipal(userId: "u-alice", deviceId: "clip-1"), nil, nil),
            (.guest, SessionPrincipal(), nil, nil),
            (.kiosk, SessionPrincipal(), nil, nil),
            (.kitchen, SessionPrincipal(deviceId: "tablet", cafeId: "caffe-macs"), nil, nil),
            (.user, SessionPrincipal(userId: "has space"), nil, nil),
            (.user, SessionPrincipal(userId: String(repeating: "u", count: 65)), nil, nil),
            (.user, SessionPrincipal(userId: "u-alice"), 59, nil),
            (.user, SessionPrincipal(userId: "u-alice"), 91 * 86_400, nil),
            (.guest, SessionPrincipal(deviceId: "clip-1"), 86_401, nil),
            (.kiosk, SessionPrincipal(cafeId: "caffe-macs"), .infinity, nil),
            (.kiosk, SessionPrincipal(cafeId: "caffe-macs"), .nan, nil),
            (.kiosk, SessionPrincipal(cafeId: "caffe-macs"), nil, "no spaces"),
        ]
        for (kind, principal, lifetime, label) in cases {
            #expect(refusal { try store.issue(kind, for: principal, label: label, lifetime: lifetime) } == .sessionInvalid, "\(kind) \(principal)")
        }
        #expect(try store.list(includeInactive: true).isEmpty)
    }

    @Test("the schema survives reopening: a token issued before is found by a new store on the same file")
    func reopen() throws {
        let (session, token) = try store.issue(.kitchen, for: SessionPrincipal(cafeId: "caffe-macs"))
        let again = try SessionStore(database: try Database(path: folder.appendingPathComponent("edge.sqlite").path), clock: clock)
        #expect(try again.authenticate(token.presented) == session)
        #expect(try database.schemaVersion(of: "identity.sessions") == 2)
    }
}
