import Foundation
import Messages
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// PROTOCOL §7 and deploy/README.md ("Acting as a principal"): a phone may leave its own
/// `userId` and `deviceId` out of a body, and they are taken from its key. Every op a phone calls
/// with an id in its body, over real CURVE sockets: left out, it acts as the key's user and device;
/// naming another user's or device's id, it is refused, counted, and nothing changes. A caller
/// that is not a phone has no key identity to stand in, and leaving the id out is a missing field.
@Suite(.serialized)
struct DeployedLeftOutIdsTests {
    @Test("a phone that leaves its ids out acts as its key's user and device on every op; naming another's is refused and changes nothing")
    func leftOutIds() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        let keys = try requireValue(platform.keys)
        try keys.add(name: "phone-ann", role: .phone, deviceId: "phone-ann", userId: "ann")
        try keys.add(name: "phone-bob", role: .phone, deviceId: "phone-bob", userId: "bob")
        try platform.startAll()
        let context = try Context()
        var clients: [RequestClient] = []
        defer { clients.forEach { $0.close() } }
        func client(_ service: String, as principal: String) throws -> RequestClient {
            clients.append(try platform.client(service, as: principal, context: context))
            return clients[clients.count - 1]
        }
        let (ingest, region) = (try client("beacon-ingest", as: "phone-ann"), try client("region-monitor", as: "phone-ann"))
        let (orders, notify) = (try client("order-service", as: "phone-ann"), try client("notification-service", as: "phone-ann"))
        let admin = KeyFolder.defaultOperator
        let (opOrders, opNotify, opRegion) = (try client("order-service", as: admin), try client("notification-service", as: admin), try client("region-monitor", as: admin))

        // Every op with Ann's ids left out answers for Ann's user and device.
        let status = DeviceStatusReport(authorization: .whenInUse, foreground: true)
        #expect(try ingest.call(Op.ingestReport, IngestReport(deviceId: nil, status: status), as: IngestResult.self).accepted == 1)
        #expect(try orders.call(Op.preferenceSet, PreferenceRequest(userId: nil, preference: .cafe("caffe-macs")), as: PreferenceView.self).userId == "ann")
        #expect(try orders.call(Op.preferenceGet, PreferenceRequest(userId: nil), as: PreferenceView.self) == PreferenceView(userId: "ann", preference: .cafe("caffe-macs")))
        #expect(try orders.call(Op.menuGet, MenuRequest(userId: nil, deviceId: nil, locale: "en_US"), as: MenuReply.self).cafe.id == "caffe-macs", "Ann's preference chose it")
        #expect(try orders.call(Op.orderClaim, ClaimOrdersRequest(deviceId: nil, userId: nil), as: ClaimOrdersReply.self) == ClaimOrdersReply(userId: "ann", orderIds: []))
        let register = RegisterDevice(deviceId: nil, userId: nil, channel: "bus", language: "en", locale: "en_US", authorization: .authorized)
        #expect(try notify.call(Op.deviceRegister, register, as: Registration.self).deviceId == "phone-ann")
        #expect(try notify.call(Op.inboxList, InboxQuery(deviceId: nil), as: InboxReply.self).deviceId == "phone-ann")
        let reminder = try notify.call(Op.reminderSet, SetReminder(deviceId: nil, cafeId: "caffe-macs", text: "oat milk"), as: RegionReminder.self)
        #expect(reminder.deviceId == "phone-ann")
        #expect(try notify.call(Op.reminderList, ReminderQuery(deviceId: nil), as: ReminderList.self).reminders.map(\.reminderId) == [reminder.reminderId])
        #expect(try region.call(Op.nearestGet, DeviceQuery(deviceId: nil), as: NearestAnswer.self).deviceId == "phone-ann")
        let confirm = ConfirmLocation(deviceId: nil, code: "https://clip.campus.example/caffe-macs/counter", acquiredAt: Timestamp(Date()), cafeId: "caffe-macs")
        #expect(try region.call(Op.locationConfirm, confirm, as: LocationConfirmation.self).deviceId == "phone-ann")

        // Naming Bob's ids instead is refused on every one of them.
        var other = confirm
        other.deviceId = "phone-bob"
        let refusals: [(String, () throws -> Void)] = [
            ("ingest.report", { _ = try ingest.call(Op.ingestReport, IngestReport(deviceId: "phone-bob", status: status), as: IngestResult.self) }),
            ("preference.set", { _ = try orders.call(Op.preferenceSet, PreferenceRequest(userId: "bob", preference: .cafe("macs-coffee")), as: PreferenceView.self) }),
            ("preference.get", { _ = try orders.call(Op.preferenceGet, PreferenceRequest(userId: "bob"), as: PreferenceView.self) }),
            ("menu.get", { _ = try orders.call(Op.menuGet, MenuRequest(userId: "bob", deviceId: nil, locale: "en_US"), as: MenuReply.self) }),
            ("order.claim", { _ = try orders.call(Op.orderClaim, ClaimOrdersRequest(deviceId: "phone-bob", userId: nil), as: ClaimOrdersReply.self) }),
            ("device.register", { _ = try notify.call(Op.deviceRegister, RegisterDevice(deviceId: "phone-bob", userId: nil, channel: "bus", language: "en",
                                                                                        locale: "en_US", authorization: .authorized), as: Registration.self) }),
            ("inbox.list", { _ = try notify.call(Op.inboxList, InboxQuery(deviceId: "phone-bob"), as: InboxReply.self) }),
            ("reminder.set", { _ = try notify.call(Op.reminderSet, SetReminder(deviceId: "phone-bob", cafeId: "caffe-macs", text: "x"), as: RegionReminder.self) }),
            ("reminder.list", { _ = try notify.call(Op.reminderList, ReminderQuery(deviceId: "phone-bob"), as: ReminderList.self) }),
            ("reminder.cancel", { _ = try notify.call(Op.reminderCancel, CancelReminder(deviceId: "phone-bob", reminderId: reminder.reminderId), as: RegionReminder.self) }),
            ("nearest.get", { _ = try region.call(Op.nearestGet, DeviceQuery(deviceId: "phone-bob"), as: NearestAnswer.self) }),
            ("location.confirm", { _ = try region.call(Op.locationConfirm, other, as: LocationConfirmation.self) }),
        ]
        for (op, request) in refusals {
            let refusal = serviceError(request)
            #expect(refusal?.code == "auth.forbidden" && refusal?.message.contains("phone-ann") == true, "\(op): \(String(describing: refusal))")
        }

        // Nothing changed: Bob's preference is the default, his device never registered, Ann's reminder stands.
        #expect(try opOrders.call(Op.preferenceGet, PreferenceRequest(userId: "bob"), as: PreferenceView.self).preference == .closestToMe)
        #expect(errorCode { try opNotify.call(Op.inboxList, InboxQuery(deviceId: "phone-bob"), as: InboxReply.self) } == "notify.unknownDevice")
        #expect(try opNotify.call(Op.reminderList, ReminderQuery(deviceId: "phone-ann"), as: ReminderList.self).reminders.map(\.state) == [.active])
        // Each refusal was counted where it was refused.
        for (service, refused) in [("beacon-ingest", 1), ("order-service", 4), ("notification-service", 5), ("region-monitor", 2)] {
            let health = try client(service, as: admin).call(Op.health, Empty(), as: HealthStatus.self)
            #expect(health.details["auth.refused"] == "\(refused)", "\(service): \(health.details)")
        }

        // The operator has no key identity to stand in: leaving the id out is a missing field.
        let missing: [(String, () throws -> Void)] = [
            ("preference.get", { _ = try opOrders.call(Op.preferenceGet, PreferenceRequest(userId: nil), as: PreferenceView.self) }),
            ("menu.get", { _ = try opOrders.call(Op.menuGet, MenuRequest(userId: nil, deviceId: nil, locale: "en_US"), as: MenuReply.self) }),
            ("inbox.list", { _ = try opNotify.call(Op.inboxList, InboxQuery(deviceId: nil), as: InboxReply.self) }),
            ("reminder.list", { _ = try opNotify.call(Op.reminderList, ReminderQuery(deviceId: nil), as: ReminderList.self) }),
            ("nearest.get", { _ = try opRegion.call(Op.nearestGet, DeviceQuery(deviceId: nil), as: NearestAnswer.self) }),
        ]
        for (op, request) in missing {
            let refusal = serviceError(request)
            #expect(refusal?.code == "request.invalidField" && refusal?.message.hasPrefix("missing field body.") == true, "\(op): \(String(describing: refusal))")
        }
    }
}
