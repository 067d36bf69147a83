import Foundation
import Messages
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// Over CURVE, a backup is the operator's alone: the copy is the whole database (every order,
/// every device), so a phone, a kitchen and another service are refused; the operator's
/// `cafectl backup` fetches it; `cafectl restore` refuses while the service has its file open.
@Suite(.serialized)
struct BackupAccessTests {
    @Test("backup.start and backup.read refused to a phone, a kitchen and a service key; the operator backs up; restore refuses a running service")
    func operatorOnly() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        let keys = try #require(platform.keys)
        try keys.add(name: "phone-alice", role: .phone, deviceId: "D-alice", userId: "alice")
        try keys.add(name: "kitchen-macs", role: .kitchen, cafeId: "caffe-macs")
        try platform.start(busAnd: ["order-service"])
        let context = try Context()
        for principal in ["phone-alice", "kitchen-macs", "kitchen-display"] {
            let client = try platform.client("order-service", as: principal, context: context)
            defer { client.close() }
            #expect(errorCode { try client.call(Op.backupStart, BackupStartRequest(), as: BackupStatus.self) } == "auth.forbidden", "\(principal)")
            #expect(errorCode { try client.call(Op.backupRead, BackupReadRequest(backupId: "backup-x", offset: 0), as: BackupChunk.self) } == "auth.forbidden",
                    "\(principal)")
        }
        let refused = try platform.cafectl(["backup", platform.root.appendingPathComponent("phone-copy").path, "order-service"], as: "phone-alice")
        #expect(refused.status == 1 && refused.err.contains("auth.forbidden"), "\(refused.out) \(refused.err)")

        let folder = platform.root.appendingPathComponent("backups").path
        let backup = try platform.cafectl(["backup", folder, "order-service"])
        #expect(backup.status == 0, "\(backup.out) \(backup.err)")
        let manifest = try BackupRestore.readManifest("\(folder)/order-service.manifest.json")
        let copy = try SHA256Stream.file("\(folder)/order-service.sqlite")
        #expect(copy.hex == manifest.sha256 && copy.size == manifest.size)
        // A copy the service no longer holds is a typed error, not a silent empty read.
        let operatorClient = try platform.client("order-service", as: "operator", context: context)
        defer { operatorClient.close() }
        #expect(errorCode { try operatorClient.call(Op.backupRead, BackupReadRequest(backupId: "backup-none", offset: 0), as: BackupChunk.self) } == "backup.unknown")

        // The service is running: restore must not replace its file under it.
        let data = platform.root.appendingPathComponent("data").path
        let before = try SHA256Stream.file("\(data)/order-service.sqlite")
        let restore = try runCommand(platform.bin.appendingPathComponent("cafectl"), ["restore", "\(folder)/order-service.sqlite", "--data-dir", data])
        #expect(restore.status == 1 && restore.err.contains("stop order-service first"), "\(restore.out) \(restore.err)")
        #expect(try SHA256Stream.file("\(data)/order-service.sqlite").hex == before.hex, "a refused restore changed the database")
        // A copy that is not the one its manifest describes is refused before anything changes.
        platform.kill9("order-service")
        let handle = try #require(FileHandle(forWritingAtPath: "\(folder)/order-service.sqlite"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        let tampered = try runCommand(platform.bin.appendingPathComponent("cafectl"), ["restore", "\(folder)/order-service.sqlite", "--data-dir", data])
        #expect(tampered.status == 1 && tampered.err.contains("not the copy its manifest describes"), "\(tampered.out) \(tampered.err)")
    }
}
