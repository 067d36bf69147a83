import Foundation
import Messages
import Policy
@testable import RegionMonitorServer
import Testing
import TestSupport

extension RegionHarness {
    /// A request through the router as `caller`, encoded and decoded as the wire carries it.
    func call<Body: Codable & Sendable, Result: Codable & Sendable>(_ op: String, _ body: Body, as result: Result.Type, caller: Caller) throws -> Result {
        try Wire.decodeReply(host.requests.router.handle(Wire.encode(Request(op: op, body: body)), caller: caller), body: Result.self).get()
    }

    /// What region-monitor keeps and has announced: monitors, conditions, records, fixes and
    /// events. A refused request leaves it as it was.
    func snapshot() throws -> String {
        "\(try service.store.monitors()) \(try service.store.conditions()) \(try service.store.records()) \(try service.store.fixes()) \(try announced().count)"
    }
}

/// Who may ask region-monitor where a device is, and who may administer monitors, by the caller
/// its connection proved: a phone only about its own device; order-service and operators about
/// any; monitors and records (every device's state) are the operator's alone.
@Suite(.serialized)
struct RegionAccessTests {
    static let others = [Callers.phone("phone-2"), Callers.service("notification-service"), Callers.service("kitchen-display"),
                         Callers.gateway, Callers.kiosk, Callers.kitchen]

    @Test("nearest.get and location.confirm: a phone about its own device, order-service and operators about any, nobody else")
    func locationAnswers() throws {
        let h = try RegionHarness()
        try h.sighting("phone-1")
        try h.fix("phone-1")
        let ask = DeviceQuery(deviceId: "phone-1")
        let confirm = ConfirmLocation(deviceId: "phone-1", code: "https://clip.campus.example/caffe-macs/counter", acquiredAt: h.clock.now(), cafeId: "caffe-macs")
        for caller in [Callers.phone("phone-1"), Callers.service("order-service"), Callers.service("order-service", instance: "order-service-2"), Callers.operator] {
            #expect(try h.call(Op.nearestGet, ask, as: NearestAnswer.self, caller: caller).cafeId == "caffe-macs", "\(caller.name)")
            #expect(try h.call(Op.locationConfirm, confirm, as: LocationConfirmation.self, caller: caller).result == .yes, "\(caller.name)")
        }
        let before = try h.snapshot()
        let answered = try h.health()["confirmations"]
        // Where is phone-1? Another phone, and services with no business locating devices, are not told.
        for caller in Self.others {
            let nearest = try requireValue(serviceError { try h.call(Op.nearestGet, ask, as: NearestAnswer.self, caller: caller) })
            #expect(nearest.code == "auth.forbidden", "\(caller.name)")
            #expect(!nearest.message.contains("caffe-macs"), "a refusal tells nothing of where the device is")
            #expect(errorCode { try h.call(Op.locationConfirm, confirm, as: LocationConfirmation.self, caller: caller) } == "auth.forbidden", "\(caller.name)")
        }
        #expect(try h.snapshot() == before)
        #expect(try h.health()["confirmations"] == answered, "a refused confirmation is not one")
        #expect(try h.health()["auth.refused"] == "\(2 * Self.others.count)")
    }

    @Test("monitor ops are the operator's; monitor.list services' too; no phone reads a record, not even its own device's")
    func monitorsAreTheOperators() throws {
        let h = try RegionHarness()
        try h.sighting("phone-1")
        let uuid = h.catalog.beaconUUID.lowercased()
        let open = MonitorOwnership(monitor: "pickup", owner: "com.example.cafe")
        let add = AddCondition(monitor: "pickup", owner: "com.example.cafe", identifier: "shelf",
                               condition: .beacon(uuid: uuid, major: RegionHarness.macsMajor, minor: 1), deviceId: "phone-1", assuming: nil)
        let ownRecord = RecordQuery(monitor: "campus", identifier: "caffe-macs", deviceId: "phone-1")
        let requests: [(op: String, call: (Caller) throws -> Void)] = [
            (Op.monitorOpen, { _ = try h.call(Op.monitorOpen, open, as: MonitorInfo.self, caller: $0) }),
            (Op.monitorAdd, { _ = try h.call(Op.monitorAdd, add, as: MonitorRecord.self, caller: $0) }),
            (Op.monitorIdentifiers, { _ = try h.call(Op.monitorIdentifiers, MonitorQuery(monitor: "pickup"), as: MonitorIdentifiers.self, caller: $0) }),
            (Op.monitorRecord, { _ = try h.call(Op.monitorRecord, ownRecord, as: MonitorRecord.self, caller: $0) }),
            (Op.monitorRemove, { _ = try h.call(Op.monitorRemove, RemoveCondition(monitor: "pickup", owner: "com.example.cafe", identifier: "shelf"),
                                                as: RemovedCondition.self, caller: $0) }),
            (Op.monitorClose, { _ = try h.call(Op.monitorClose, open, as: MonitorInfo.self, caller: $0) }),
            (Op.monitorList, { _ = try h.call(Op.monitorList, Empty(), as: MonitorList.self, caller: $0) }),
        ]
        for request in requests {
            var refused = [Callers.phone("phone-1"), Callers.phone("phone-2"), Callers.gateway, Callers.kiosk, Callers.kitchen]
            if request.op != Op.monitorList { refused.append(Callers.service("order-service")) }
            let before = try h.snapshot()
            for caller in refused {
                #expect(errorCode { try request.call(caller) } == "auth.forbidden", "\(request.op) as \(caller.name)")
            }
            #expect(try h.snapshot() == before, "\(request.op): a refusal changes nothing")
            try request.call(Callers.operator)
        }
        #expect(try h.call(Op.monitorList, Empty(), as: MonitorList.self, caller: Callers.service("order-service")).monitors.map(\.monitor) == ["campus", "pickup"])
        #expect(try h.call(Op.monitorRecord, ownRecord, as: MonitorRecord.self, caller: Callers.operator).lastEvent?.state == .satisfied)
    }
}
