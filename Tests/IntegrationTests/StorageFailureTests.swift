import Foundation
import Messages
import SQLite
import ServiceRuntime
import Testing
import ZeroMQ

/// Storage that fails or is damaged, through the real executables: a full disk loses no consumed
/// event and health says so while it lasts; a broken database never starts as a new empty one.
@Suite("Storage failures through real processes", .serialized)
struct StorageFailureTests {
    /// Takes every free page of notification-service's 1 MiB cap from a second connection, so its
    /// next write that needs a page fails as on a full disk; `free()` gives the pages back.
    struct DiskFiller {
        let db: Database

        init(path: String, capPages: Int) throws {
            db = try Database(path: path, create: false)
            try db.execute("CREATE TABLE IF NOT EXISTS filler (b BLOB)")
            while (try db.query("PRAGMA page_count").first?.int("page_count") ?? 0) < capPages {
                try db.run("INSERT INTO filler VALUES (zeroblob(16384))")
            }
        }

        func free() throws {
            try db.execute("DELETE FROM filler")
        }
    }

    @Test("a full disk at notification-service: health degraded (storage.full) while it lasts, then every ready order notified exactly once")
    func diskFullLosesNothing() throws {
        let platform = try Platform()
        defer { platform.stop() }
        platform.extraArguments["notification-service"] = ["--max-database-mb", "1"]
        try platform.startAll()
        let context = try Context()
        let orders = RequestClient(context: context, endpoint: platform.endpoint("order-service"), timeoutMilliseconds: 2_000)
        let kitchen = RequestClient(context: context, endpoint: platform.endpoint("kitchen-display"), timeoutMilliseconds: 2_000)
        let notify = RequestClient(context: context, endpoint: platform.endpoint("notification-service"), timeoutMilliseconds: 2_000)
        defer { [orders, kitchen, notify].forEach { $0.close() } }
        let device = "phone-full"
        _ = try notify.call(Op.deviceRegister, RegisterDevice(deviceId: device, userId: "fay", channel: "bus", language: "en", locale: "en_US", authorization: .authorized),
                            as: Registration.self)
        func readyOrders() throws -> [String] { try NotificationTests.inbox(notify, device).filter { $0.kind == .orderReady }.compactMap(\.orderId) }
        func health() throws -> HealthStatus { try notify.call(Op.health, Empty(), as: HealthStatus.self) }

        let first = try NotificationTests.placeOrder(orders, key: "disk-full-1", user: "fay", device: device)
        try NotificationTests.bump(kitchen, first)
        _ = try eventually("the first ready notification") { try readyOrders() == [first.orderId] ? true : nil }
        #expect(try health().status == "ok")

        let filler = try DiskFiller(path: platform.root.appendingPathComponent("data/notification-service.sqlite").path, capPages: 256)
        // Orders until a write needs a page there is none of: how many fit in the pages' free
        // space depends on the events' size, so not a fixed count (at least five, at most 40).
        var later: [OrderSnapshot] = []
        var degradedStatus: HealthStatus?
        for n in 2...41 {
            let order = try NotificationTests.placeOrder(orders, key: "disk-full-\(n)", user: "fay", device: device)
            try NotificationTests.bump(kitchen, order)
            later.append(order)
            guard later.count >= 5 else { continue }
            degradedStatus = try? eventually("health degraded by the full disk", timeout: 2) { () -> HealthStatus? in
                let status = try health()
                return status.status == "degraded" ? status : nil
            }
            if degradedStatus != nil { break }
        }
        let degraded = try #require(degradedStatus, "health never said degraded while the disk was full")
        #expect(degraded.details["reasons"]?.contains("storage.full") == true, "\(degraded.details)")
        let cafectl = try platform.cafectl(["health", "notification-service"])
        #expect(cafectl.status == 1 && cafectl.out.contains("degraded"), "cafectl health: \(cafectl.out) \(cafectl.err)")

        try filler.free()
        let expected = ([first] + later).map(\.orderId)
        _ = try eventually("every ready order notified after space came back", timeout: 30) { Set(try readyOrders()) == Set(expected) ? true : nil }
        _ = try eventually("health ok again", timeout: 25) { try health().status == "ok" ? true : nil }
        // Not a wait for something to happen (every order was awaited above): a quiet second and a
        // half, heartbeats and replays going on, proving no notification comes twice.
        usleep(1_500_000)
        let ready = try readyOrders()
        #expect(ready.count == expected.count && Set(ready) == Set(expected), "each exactly once: \(ready)")
        // The failed batches were consumed, rolled back and replayed, not skipped.
        #expect(platform.log("notification-service").contains("consumed events will be replayed"))
        #expect(Int(try health().details["replayed"] ?? "0") ?? 0 > 0)
        filler.db.close()
    }

    @Test("an existing database that is empty or damaged stops the service at start; a missing one is created")
    func brokenDatabaseRefused() throws {
        let platform = try Platform()
        defer { platform.stop() }
        let data = platform.root.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let file = data.appendingPathComponent("kitchen-display.sqlite")
        let kitchen = platform.bin.appendingPathComponent("kitchen-display")
        let args = platform.arguments(for: "kitchen-display")

        FileManager.default.createFile(atPath: file.path, contents: Data())
        let empty = try runCommand(kitchen, args)
        #expect(empty.status == 1, "\(empty.err)")
        #expect(empty.err.contains("exists but is empty"), "\(empty.err)")
        #expect((try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue == 0, "the empty file is left as it was")

        // A sound database with a table, then garbage over its second page.
        try FileManager.default.removeItem(at: file)
        let db = try Database(path: file.path)
        try db.execute("CREATE TABLE t (a TEXT); PRAGMA wal_checkpoint(TRUNCATE);")
        for n in 0..<400 { try db.run("INSERT INTO t VALUES (?)", String(repeating: "x", count: 100) + "\(n)") }
        try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
        let handle = try FileHandle(forWritingTo: file)
        try handle.seek(toOffset: 4096)
        handle.write(Data(repeating: 0xA5, count: 4096))
        try handle.close()
        let damaged = try runCommand(kitchen, args)
        #expect(damaged.status == 1, "\(damaged.err)")
        #expect(damaged.err.contains("is damaged"), "\(damaged.err)")
    }

    @Test("a service that cannot reach the bus says bus.unreachable; once the bus is up, ok")
    func busUnreachable() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.start("kitchen-display")
        let context = try Context()
        let kitchen = RequestClient(context: context, endpoint: platform.endpoint("kitchen-display"), timeoutMilliseconds: 2_000)
        defer { kitchen.close() }
        let down = try eventually("bus.unreachable") { () -> HealthStatus? in
            let status = try kitchen.call(Op.health, Empty(), as: HealthStatus.self)
            return status.details["reasons"]?.contains("bus.unreachable") == true ? status : nil
        }
        #expect(down.status == "degraded")
        try platform.start("bus")
        _ = try eventually("ok once the bus is up") { try kitchen.call(Op.health, Empty(), as: HealthStatus.self).status == "ok" ? true : nil }
    }
}

/// Best-effort events shed while a consumer was down are counted, across its restart.
@Suite("Shedding made visible through real processes", .serialized)
struct SheddingTests {
    @Test("sightings published while region-monitor was down show as shed.beacon-ingest in its health after the restart")
    func shedAcrossRestart() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.start(busAnd: ["beacon-ingest", "region-monitor"])
        let context = try Context()
        let ingest = RequestClient(context: context, endpoint: platform.endpoint("beacon-ingest"), timeoutMilliseconds: 2_000)
        let region = RequestClient(context: context, endpoint: platform.endpoint("region-monitor"), timeoutMilliseconds: 2_000)
        defer { [ingest, region].forEach { $0.close() } }
        let device = "phone-shed"
        _ = try LocationTests.report(ingest, device, status: DeviceStatusReport(authorization: .always, foreground: true))
        func sight(_ count: Int) throws {
            let now = Timestamp(Date())
            let sightings = (0..<count).map { RangingReport(uuid: LocationTests.uuid, major: 1, minor: 1, rssi: -60, measuredPower: -59,
                                                            timestamp: now.adding(seconds: Double($0 - count) * 0.01)) }
            _ = try LocationTests.report(ingest, device, sightings: sightings)
        }
        func health() throws -> HealthStatus { try region.call(Op.health, Empty(), as: HealthStatus.self) }
        // Sightings reach region-monitor, and its position in beacon-ingest's numbering is stored:
        // the consumer stores it in the transaction that counts them, and health answers between
        // transactions, so a count health reports is committed.
        _ = try eventually("sightings consumed") { () -> Bool? in
            try sight(3)
            return Int(try health().details["sightings.consumed"] ?? "0") ?? 0 >= 3 ? true : nil
        }
        platform.kill9("region-monitor")
        // Published to a bus nobody is subscribed to for them: shed. `shed.` counts messages, and
        // beacon-ingest publishes one sighting.batch per report, so 40 reports are 40 messages.
        for _ in 0..<40 { try sight(1) }
        try platform.start("region-monitor")
        region.reset()
        let shed = try eventually("shed counted after the restart") { () -> Int? in
            try sight(1)
            let value = Int(try health().details["shed.beacon-ingest"] ?? "0") ?? 0
            return value >= 40 ? value : nil
        }
        #expect(shed >= 40)
    }
}
