import Foundation
import Messages
import ServiceRuntime
import Testing

/// A Live Activity for an order through real processes: each state change is a `liveactivity`
/// push to the activity's token, timestamps strictly increasing, ending at pickup.
@Suite("APNs Live Activity through the strict local peer", .serialized)
struct APNsLiveActivityTests {
    @Test("placed → waiting to fire → preparing → ready → picked up: one update each, newer timestamps, target ready at the expected arrival, end with a dismissal date")
    func orderSequence() throws {
        let rig = try APNsRig()
        defer { rig.stop() }
        let device = APNsPeer.token(40)
        let activity = String(repeating: "c0ffee", count: 16)
        let order = "ord-live-1"
        let arrival = rig.now.adding(seconds: 420)
        _ = try rig.notify.call(Op.deviceRegister, RegisterDevice(deviceId: "phone-live", userId: nil, channel: "apns", language: "en", locale: "en_US", authorization: .authorized,
                                                                  apns: APNsDestination(token: device, environment: .sandbox, topic: APNsPeer.topic),
                                                                  liveActivity: LiveActivityToken(orderId: order, token: activity)), as: Registration.self)
        let steps: [(EventType, OrderState, String)] = [(.orderPlaced, .placed, "placed"), (.orderAccepted, .accepted, "waitingToFire"),
                                                        (.orderPreparing, .preparing, "preparing"), (.orderReady, .ready, "ready"), (.orderPickedUp, .pickedUp, "pickedUp")]
        for (index, (type, state, phase)) in steps.enumerated() {
            try rig.event(order, device: "phone-live", type, state, expectedArrivalAt: index >= 1 ? arrival : nil)
            _ = try eventually("the \(phase) update") {
                rig.peer.seen(token: activity).contains { (($0.payload?["aps"] as? [String: Any])?["content-state"] as? [String: Any])?["phase"] as? String == phase } ? true : nil
            }
        }
        let updates = rig.peer.seen(token: activity)
        #expect(updates.allSatisfy { $0.status == 200 && $0.headers["apns-push-type"] == "liveactivity" && $0.headers["apns-topic"] == APNsPeer.topic + ".push-type.liveactivity" },
                "\(updates.map { "\($0.status) \($0.reason ?? "")" })")
        let aps = updates.compactMap { $0.payload?["aps"] as? [String: Any] }
        let phases = aps.compactMap { ($0["content-state"] as? [String: Any])?["phase"] as? String }
        #expect(phases == steps.map(\.2))
        let stamps = aps.compactMap { $0["timestamp"] as? Int }
        #expect(stamps.count == 5 && zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 }, "\(stamps)")
        #expect(aps.map { $0["event"] as? String } == ["update", "update", "update", "update", "end"])
        #expect(aps.last?["dismissal-date"] is Int && aps.dropLast().allSatisfy { $0["dismissal-date"] == nil })
        let ready = try #require(aps.first { ($0["content-state"] as? [String: Any])?["phase"] as? String == "ready" }?["content-state"] as? [String: Any])
        #expect(ready["targetReadyAt"] as? Int == Int(arrival.milliseconds / 1_000) && ready["expectedArrivalAt"] as? Int == Int(arrival.milliseconds / 1_000))
        #expect(Set(updates.compactMap(\.apnsId)).count == 5)
        // The ready alert went to the device's own token, beside the activity.
        try rig.await("activity.delivered", "1")
        try rig.await("push.delivered", "1")
        #expect(rig.peer.seen(token: device).map { $0.headers["apns-push-type"] } == ["alert"])
    }
}
