import Foundation
@testable import Identity
import SQLite
import Testing
import TestSupport

/// The operator's status-page token (issue 29): no café, no user, no device; 30 days unless asked;
/// and the sessions table widened to hold it without losing a row issued before.
@Suite("Sessions: the operator's status-page token")
struct SessionOperatorTests {
    let folder: URL
    let clock = ManualClock()

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sessions-op-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    @Test("issued without a café, for 30 days; a café, a user or a device, or more than 90 days, refused")
    func operatorToken() throws {
        let store = try SessionStore(database: try Database(path: folder.appendingPathComponent("edge.sqlite").path), clock: clock)
        let (session, token) = try store.issue(.operator, for: SessionPrincipal(), label: "ops-laptop")
        #expect(session.kind == .operator && session.cafeId == nil && session.expiresAt == clock.now().adding(seconds: 30 * 86_400))
        #expect(try store.authenticate(token.presented) == session)
        #expect(try store.list(kind: .operator).map(\.id) == [session.id])
        for principal in [SessionPrincipal(cafeId: "caffe-macs"), SessionPrincipal(userId: "alice"), SessionPrincipal(deviceId: "laptop")] {
            #expect(throws: IdentityError.self) { try store.issue(.operator, for: principal) }
        }
        #expect(throws: IdentityError.self) { try store.issue(.operator, for: SessionPrincipal(), lifetime: 91 * 86_400) }
    }

    @Test("a file made before the operator kind: its sessions stay, and an operator's can be issued")
    func migration() throws {
        let path = folder.appendingPathComponent("edge.sqlite").path
        let old = try Database(path: path)
        try old.migrate(SessionStore.component, [SessionStore.migrations[0]])
        #expect(try old.schemaVersion(of: SessionStore.component) == 1)
        // A kitchen session as the old build stored it.
        try old.run("""
            INSERT INTO identity_sessions (id, token_hash, kind, cafe_id, created_at, expires_at) VALUES ('s-old', ?, 'kitchen', 'caffe-macs', 0, ?)
            """, Data(repeating: 7, count: 32), clock.now().adding(seconds: 86_400).milliseconds)
        #expect(throws: (any Error).self) {
            try old.run("INSERT INTO identity_sessions (id, token_hash, kind, created_at, expires_at) VALUES ('s-op', ?, 'operator', 0, 1)",
                        Data(repeating: 8, count: 32))
        }
        old.close()
        let store = try SessionStore(database: try Database(path: path), clock: clock)
        #expect(try store.list(kind: .kitchen).map(\.id) == ["s-old"])
        let (session, _) = try store.issue(.operator, for: SessionPrincipal())
        #expect(try store.list().map(\.id).sorted() == [session.id, "s-old"].sorted())
    }
}
