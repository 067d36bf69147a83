import Foundation
import Messages
import ServiceRuntime
import Testing

/// kill -9 of notification-service in the middle of a burst of pushes: nothing lost, and what is
/// sent again carries the first copy's apns-id (the phone replaces it rather than showing two).
@Suite("APNs pushes across kill -9", .serialized)
struct APNsRecoveryTests {
    @Test("kill -9 mid-burst: every push accepted once restarted, every resend with the same apns-id")
    func killMidBurst() throws {
        let rig = try APNsRig()
        defer { rig.stop() }
        let count = 120
        let token = APNsPeer.token(99)
        // The peer answers slowly, so the kill finds pushes in flight and pushes not yet sent.
        try rig.peer.script(delayMilliseconds: 10)
        try rig.register("phone-burst", token: token)
        for index in 0..<count { try rig.ready("ord-burst-\(index)", device: "phone-burst") }
        // Every event applied first: this test's publisher cannot answer a replay as order-service
        // would, so an event the killed service had not read would be lost to the test, not to the platform.
        try rig.await("notifications.held", "\(count)")
        _ = try eventually("a part of the burst accepted") { rig.peer.seen(token: token).filter { $0.status == 200 }.count >= 10 ? true : nil }
        rig.platform.kill9("notification-service")
        let beforeKill = rig.peer.seen(token: token).filter { $0.status == 200 }.count
        #expect(beforeKill < count, "the kill came in the middle of the burst")
        try rig.platform.start("notification-service")
        rig.notify.reset()
        try rig.await("push.delivered", "\(count)", timeout: 60)
        let inbox = try rig.notify.call(Op.inboxList, InboxQuery(deviceId: "phone-burst", limit: 500), as: InboxReply.self).notifications
        let expected = Set(inbox.map { String($0.notificationId.dropFirst(4)) })
        let seen = rig.peer.seen(token: token)
        let accepted = seen.filter { $0.status == 200 }.compactMap(\.apnsId)
        #expect(inbox.count == count && expected.count == count)
        #expect(Set(accepted) == expected, "every notification accepted, under its own apns-id")
        #expect(Set(seen.compactMap(\.apnsId)).isSubset(of: expected), "no request under an apns-id of its own")
        // What was in flight at the kill may have reached the peer twice: always with the same id and collapse id.
        let byId = Dictionary(grouping: seen, by: { $0.apnsId ?? "" })
        #expect(byId.values.allSatisfy { Set($0.compactMap { $0.headers["apns-collapse-id"] }).count == 1 })
    }
}
