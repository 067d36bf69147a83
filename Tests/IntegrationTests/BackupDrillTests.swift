import Foundation
import Messages
import ServiceRuntime
import Testing
import ZeroMQ

/// The restore drill, with real processes: a service's database is copied while orders are being
/// placed (`cafectl backup`), its volume is then destroyed, the copy restored (`cafectl restore`)
/// and the service started again. What the copy holds comes back; what the service did after the
/// copy is gone; the restored outbox has a new epoch, so consumers replay it from the start and
/// skip by event id what they had applied, and events that reuse sequence numbers already
/// consumed are applied, not dropped. Nothing downstream is doubled.
@Suite(.serialized)
struct BackupDrillTests {
    /// The data folder's files of `instance`, removed as a lost volume would lose them.
    static func destroy(_ instance: String, in platform: Platform) throws {
        let data = platform.root.appendingPathComponent("data")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(at: data.appendingPathComponent("\(instance).sqlite\(suffix)")) }
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("\(instance).sqlite").path))
    }

    /// Restores `instance` from `folder` with cafectl, starts it, and returns the seconds from the
    /// restore command to the service answering health.
    static func restore(_ instance: String, from folder: String, in platform: Platform) throws -> Double {
        let started = Reactor.monotonic()
        let restore = try runCommand(platform.bin.appendingPathComponent("cafectl"),
                                     ["restore", "\(folder)/\(instance).sqlite", "--data-dir", platform.root.appendingPathComponent("data").path])
        #expect(restore.status == 0, "restore: \(restore.out) \(restore.err)")
        #expect(restore.out.contains("new epoch"), "\(restore.out)")
        try platform.start(instance)
        try platform.waitHealthy(instance)
        return Reactor.monotonic() - started
    }

    /// The epoch `instance`'s next heartbeat announces.
    static func announcedEpoch(_ instance: String, in platform: Platform, context: Context) throws -> String {
        let watcher = try BusWatcher(context: context, endpoint: platform.busSub, prefixes: [Topic.heartbeat(source: instance)])
        defer { watcher.close() }
        let beat = try watcher.waitFor(Topic.heartbeat(source: instance), timeout: 10)
        guard case .heartbeat(let heartbeat) = beat.envelope.body else { throw PlatformError("not a heartbeat: \(beat.topic)") }
        return heartbeat.epoch
    }

    /// (kind, order) of every notification in `device`'s inbox.
    static func inbox(_ notify: RequestClient, _ device: String) throws -> [String] {
        try notify.call(Op.inboxList, InboxQuery(deviceId: device, limit: 200), as: InboxReply.self).notifications
            .map { "\($0.kind.rawValue) \($0.orderId ?? "-")" }
    }

    @Test("order-service: backed up under load, its volume lost and restored: the copy's orders back, later ones gone, nothing doubled downstream")
    func orderServiceDrill() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        let orders = RequestClient(context: context, endpoint: platform.endpoint("order-service"), timeoutMilliseconds: 5_000)
        let kitchen = RequestClient(context: context, endpoint: platform.endpoint("kitchen-display"), timeoutMilliseconds: 5_000)
        let notify = RequestClient(context: context, endpoint: platform.endpoint("notification-service"), timeoutMilliseconds: 5_000)
        defer { [orders, kitchen, notify].forEach { $0.close() } }
        let device = "phone-drill"
        _ = try notify.call(Op.deviceRegister, RegisterDevice(deviceId: device, userId: "bob", channel: "bus", language: "en", locale: "en_US", authorization: .authorized),
                            as: Registration.self)
        let before = try (0..<2).map { try BackupLoad.placeOrder(orders, key: "drill-before-\($0)", device: device) }
        func tickets() throws -> [TicketView] {
            try kitchen.call(Op.kdsTickets, TicketsQuery(cafeId: "macs-coffee", includeDone: true), as: TicketsReply.self).tickets
        }
        _ = try eventually("the first orders on the kitchen screen") { try Set(tickets().map(\.orderId)).isSuperset(of: before) ? true : nil }

        // The operator's table: one line per process, within 120 columns.
        let table = try platform.cafectl(["health"])
        let lines = table.out.split(separator: "\n")
        #expect(table.status == 0 && lines.count == 7 && lines[0].hasPrefix("SERVICE"), "\(table.out)")
        #expect(lines.allSatisfy { $0.count <= 120 } && lines.dropFirst().allSatisfy { $0.contains(" ok ") }, "\(table.out)")
        print(table.out)

        // The copy, taken while orders are placed; health asked all along.
        let load = BackupLoad.Orders(endpoint: platform.endpoint("order-service"), device: device, prefix: "drill-during", limit: 40)
        _ = try eventually("orders under way") { load.count >= 3 ? true : nil }
        let probe = BackupLoad.HealthProbe(endpoint: platform.endpoint("order-service"))
        usleep(200_000)
        let folder = platform.root.appendingPathComponent("backups").path
        let backup = try platform.cafectl(["backup", folder, "order-service"])
        let (worst, answers) = probe.finish()
        let during = load.finish()
        #expect(backup.status == 0, "backup: \(backup.out) \(backup.err)")
        let manifest = try BackupRestore.readManifest("\(folder)/order-service.manifest.json")
        #expect(manifest.instance == "order-service" && manifest.streams["order"] ?? 0 > 0 && manifest.sha256.count == 64)
        print("backup drill (order-service): \(manifest.size) bytes copied with \(during.count) orders placed meanwhile; "
              + "health answered \(answers) times, the slowest in \(String(format: "%.1f", worst)) ms")

        // After the copy: two more orders, and the kitchen readies an order the copy holds.
        let after = try (0..<2).map { try BackupLoad.placeOrder(orders, key: "drill-after-\($0)", device: device) }
        _ = try kitchen.call(Op.kdsBump, TicketCommand(ticketId: "\(before[1]):espresso"), as: TicketView.self)
        _ = try eventually("the ready order notified") { try Self.inbox(notify, device).contains { $0.hasPrefix("orderReady \(before[1])") } ? true : nil }
        _ = try eventually("every order on the kitchen screen") { try Set(tickets().map(\.orderId)).isSuperset(of: before + during + after) ? true : nil }
        let inboxBefore = try Self.inbox(notify, device)
        #expect(try Self.announcedEpoch("order-service", in: platform, context: context) == manifest.epoch)

        // The volume is lost, the copy restored.
        platform.kill9("order-service")
        try Self.destroy("order-service", in: platform)
        let seconds = try Self.restore("order-service", from: folder, in: platform)
        print("backup drill (order-service): restored and answering \(String(format: "%.2f", seconds)) s after the restore command")
        orders.reset()
        let epoch = try Self.announcedEpoch("order-service", in: platform, context: context)
        #expect(!epoch.isEmpty && epoch != manifest.epoch, "the restored order-service must announce a new epoch")

        func known(_ id: String) throws -> Bool {
            do {
                _ = try orders.call(Op.orderGet, OrderQuery(orderId: id), as: OrderView.self)
                return true
            } catch let error as ServiceError where error.code == ErrorCode.unknownOrder.rawValue {
                return false
            }
        }
        // The copy is one moment: every order before it, a prefix of those placed during it, none after.
        #expect(try before.allSatisfy(known))
        let kept = try during.map(known)
        #expect(kept == kept.sorted { $0 && !$1 }, "the copy holds orders \(kept) of those placed during it: not one moment")
        #expect(try after.allSatisfy { try !known($0) }, "orders placed after the copy are gone with the volume")
        // The kitchen's bump after the copy is replayed into the restored order-service.
        _ = try eventually("the bumped order ready again") {
            try orders.call(Op.orderGet, OrderQuery(orderId: before[1]), as: OrderView.self).order.state == .ready ? true : nil
        }
        // The kitchen saw order-service start over (a new epoch) and replayed it, skipping what it had.
        _ = try eventually("the kitchen resets its cursor for order-service") {
            platform.log("kitchen-display").contains("publisher started over") ? true : nil
        }

        // New orders reuse sequence numbers the kitchen consumed before: they must arrive, once.
        let fresh = try (0..<2).map { try BackupLoad.placeOrder(orders, key: "drill-fresh-\($0)", device: device) }
        _ = try eventually("the new orders on the kitchen screen") { try Set(tickets().map(\.orderId)).isSuperset(of: fresh) ? true : nil }
        let perOrder = Dictionary(grouping: try tickets(), by: \.orderId).mapValues(\.count)
        #expect(perOrder.values.allSatisfy { $0 == 1 }, "one ticket per order, none doubled: \(perOrder.filter { $0.value != 1 })")
        _ = try kitchen.call(Op.kdsBump, TicketCommand(ticketId: "\(fresh[0]):espresso"), as: TicketView.self)
        let inboxAfter = try eventually("the new order notified") {
            let inbox = try Self.inbox(notify, device)
            return inbox.contains { $0.hasPrefix("orderReady \(fresh[0])") } ? inbox : nil
        }
        #expect(Set(inboxAfter).count == inboxAfter.count, "a notification doubled: \(inboxAfter)")
        #expect(Set(inboxAfter).isSuperset(of: inboxBefore), "notifications lost: \(Set(inboxBefore).subtracting(inboxAfter))")
    }

    @Test("notification-service: restored from a copy it re-derives what the orders since told it, once each; its own changes since are gone")
    func notificationServiceDrill() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        let orders = RequestClient(context: context, endpoint: platform.endpoint("order-service"), timeoutMilliseconds: 5_000)
        let kitchen = RequestClient(context: context, endpoint: platform.endpoint("kitchen-display"), timeoutMilliseconds: 5_000)
        let notify = RequestClient(context: context, endpoint: platform.endpoint("notification-service"), timeoutMilliseconds: 5_000)
        defer { [orders, kitchen, notify].forEach { $0.close() } }
        let device = "phone-notify-drill"
        _ = try notify.call(Op.deviceRegister, RegisterDevice(deviceId: device, userId: "bob", channel: "bus", language: "en", locale: "en_US", authorization: .authorized),
                            as: Registration.self)
        _ = try notify.call(Op.reminderSet, SetReminder(deviceId: device, cafeId: "macs-coffee", text: "kept"), as: RegionReminder.self)
        let first = try BackupLoad.placeOrder(orders, key: "notify-drill-1", device: device)
        _ = try eventually("the first order's ticket") {
            (try? kitchen.call(Op.kdsBump, TicketCommand(ticketId: "\(first):espresso"), as: TicketView.self)) != nil ? true : nil
        }
        _ = try eventually("the first order notified") { try Self.inbox(notify, device).contains { $0.hasPrefix("orderReady \(first)") } ? true : nil }

        let load = BackupLoad.Orders(endpoint: platform.endpoint("order-service"), device: device, prefix: "notify-drill-during", limit: 30)
        _ = try eventually("orders under way") { load.count >= 3 ? true : nil }
        let probe = BackupLoad.HealthProbe(endpoint: platform.endpoint("notification-service"))
        let folder = platform.root.appendingPathComponent("backups").path
        let backup = try platform.cafectl(["backup", folder, "notification-service"])
        let (worst, answers) = probe.finish()
        _ = load.finish()
        #expect(backup.status == 0, "backup: \(backup.out) \(backup.err)")
        print("backup drill (notification-service): health answered \(answers) times during the backup, the slowest in \(String(format: "%.1f", worst)) ms")

        // After the copy: the service's own change (a reminder), and an order readied and notified.
        _ = try notify.call(Op.reminderSet, SetReminder(deviceId: device, cafeId: "caffe-macs", text: "lost"), as: RegionReminder.self)
        let second = try BackupLoad.placeOrder(orders, key: "notify-drill-2", device: device)
        _ = try eventually("the second order's ticket") {
            (try? kitchen.call(Op.kdsBump, TicketCommand(ticketId: "\(second):espresso"), as: TicketView.self)) != nil ? true : nil
        }
        let inboxBefore = try eventually("the second order notified") {
            let inbox = try Self.inbox(notify, device)
            return inbox.contains { $0.hasPrefix("orderReady \(second)") } ? inbox : nil
        }

        platform.kill9("notification-service")
        try Self.destroy("notification-service", in: platform)
        let seconds = try Self.restore("notification-service", from: folder, in: platform)
        print("backup drill (notification-service): restored and answering \(String(format: "%.2f", seconds)) s after the restore command")
        notify.reset()
        let manifest = try BackupRestore.readManifest("\(folder)/notification-service.manifest.json")
        #expect(try Self.announcedEpoch("notification-service", in: platform, context: context) != manifest.epoch)

        // The orders' events since the copy are replayed: each notification is back, once.
        let inboxAfter = try eventually("every notification back") {
            let inbox = try Self.inbox(notify, device)
            return Set(inbox).isSuperset(of: inboxBefore) ? inbox : nil
        }
        #expect(Set(inboxAfter).count == inboxAfter.count, "a notification doubled: \(inboxAfter)")
        // Its own change since the copy is gone; the one before it is kept.
        let reminders = try notify.call(Op.reminderList, ReminderQuery(deviceId: device), as: ReminderList.self).reminders.map(\.text)
        #expect(reminders == ["kept"], "\(reminders)")
        // A new order after the restore is notified once (its notify events reuse seqs already published).
        let third = try BackupLoad.placeOrder(orders, key: "notify-drill-3", device: device)
        _ = try eventually("the third order's ticket") {
            (try? kitchen.call(Op.kdsBump, TicketCommand(ticketId: "\(third):espresso"), as: TicketView.self)) != nil ? true : nil
        }
        let last = try eventually("the third order notified") {
            let inbox = try Self.inbox(notify, device)
            return inbox.contains { $0.hasPrefix("orderReady \(third)") } ? inbox : nil
        }
        #expect(Set(last).count == last.count, "a notification doubled: \(last)")
    }
}
