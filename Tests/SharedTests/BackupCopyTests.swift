import Foundation
import Messages
import SQLite
import ServiceRuntime
import Testing
import TestSupport

/// The pieces of an online backup apart from any process: the streaming SHA-256 agrees with the
/// whole-file one, `backup.start`/`backup.read` hand out a copy that is the database (with the
/// manifest read from the copy), and a restore gives the copy's outbox a new epoch.
@Suite("Backup copies")
struct BackupCopyTests {
    @Test("SHA256Stream fed in uneven pieces gives SHA256's digest", arguments: [0, 1, 55, 56, 63, 64, 65, 127, 1_000, 100_003])
    func streamingDigest(size: Int) {
        let data = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        var stream = SHA256Stream()
        var offset = 0
        var piece = 1
        while offset < data.count {
            let end = min(offset + piece, data.count)
            stream.update(data.subdata(in: offset..<end))
            offset = end
            piece = piece * 3 % 97 + 1
        }
        #expect(stream.hex() == SHA256.hex(data))
        #expect(stream.count == size)
    }

    @Test("a copy read out in chunks is the database: its manifest names the epoch and streams the copy holds; a restore stamps a new epoch")
    func copyAndRestore() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path("order-service.sqlite")
        let db = try Database(path: path)
        let outbox = try Outbox(db: db, source: "order-service", clock: ManualClock())
        try db.transaction {
            for _ in 0..<3 { try outbox.append(.kitchenStarted, topic: "order.x.", stream: "order", body: OutboxTests.body(1)) }
        }
        let backups = Backups(database: path, folder: folder.path("backup"), service: "order-service", instance: "order-service", clock: ManualClock(), logger: silentLogger)
        let router = RequestRouter(logger: silentLogger)
        backups.register(on: router)
        func call<R: Codable & Sendable>(_ op: String, _ body: some Codable & Sendable, as: R.Type) throws -> R {
            try Wire.decodeReply(router.handle(Wire.encode(Request(op: op, onBehalfOf: nil, body: body))), body: R.self).get()
        }
        let started = try call(Op.backupStart, BackupStartRequest(), as: BackupStatus.self)
        var chunk = try call(Op.backupRead, BackupReadRequest(backupId: started.backupId, offset: 0), as: BackupChunk.self)
        for _ in 0..<500 where chunk.status.manifest == nil {
            usleep(10_000)
            chunk = try call(Op.backupRead, BackupReadRequest(backupId: started.backupId, offset: 0), as: BackupChunk.self)
        }
        let manifest = try #require(chunk.status.manifest)
        #expect(manifest.epoch == outbox.epoch && manifest.streams == ["order": 3])
        var bytes = Data()
        while bytes.count < manifest.size {
            chunk = try call(Op.backupRead, BackupReadRequest(backupId: started.backupId, offset: bytes.count), as: BackupChunk.self)
            bytes += try #require(Data(base64Encoded: chunk.data))
        }
        #expect(bytes.count == manifest.size && SHA256.hex(bytes) == manifest.sha256)
        #expect(errorCode { try call(Op.backupRead, BackupReadRequest(backupId: started.backupId, offset: manifest.size + 1), as: BackupChunk.self) } == "request.invalidField")
        #expect(errorCode { try call(Op.backupRead, BackupReadRequest(backupId: "backup-other", offset: 0), as: BackupChunk.self) } == "backup.unknown")
        db.close()

        // The copy and its manifest, as cafectl writes them; then the database replaced by it.
        let copies = folder.path("copies")
        try FileManager.default.createDirectory(atPath: copies, withIntermediateDirectories: true)
        try bytes.write(to: URL(fileURLWithPath: copies + "/order-service.sqlite"))
        try JSONEncoder().encode(manifest).write(to: URL(fileURLWithPath: copies + "/order-service.manifest.json"))
        let data = folder.path("data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path, toPath: data + "/order-service.sqlite")
        let outcome = try BackupRestore.restore(copy: copies + "/order-service.sqlite", dataDir: data)
        #expect(outcome.newEpoch != manifest.epoch && outcome.replacedAs != nil)
        let restored = try Database(path: data + "/order-service.sqlite", create: false)
        defer { restored.close() }
        let reopened = try Outbox(db: restored, source: "order-service", clock: ManualClock())
        let seqs = try reopened.lastSeqs()
        #expect(reopened.epoch == outcome.newEpoch && seqs == ["order": 3])
    }
}
