import Foundation
import Messages

/// One Live Activity update for an order (`apns-push-type: liveactivity`): where the order is,
/// with the kitchen's pacing, so the lock screen says "ready when you arrive" and is right.
/// Pure: built from the order snapshot an event carried and the last timestamp sent, which it
/// always passes (iOS drops an update whose `timestamp` is not newer than the last one).
public struct LiveActivityUpdate: Sendable, Equatable {
    /// What the lock screen shows.
    public enum Phase: String, Sendable, CaseIterable {
        case placed, waitingToFire, preparing, ready, pickedUp, cancelled, noShow
    }

    public var orderId: String
    public var phase: Phase
    /// UNIX seconds, strictly after the previous update's.
    public var timestamp: Int64
    /// When the order should be ready: the customer's expected arrival for a paced order once it
    /// is known, else the start of the pickup window.
    public var targetReadyAt: Timestamp
    public var expectedArrivalAt: Timestamp?
    public var pickupStart: Timestamp
    public var pickupEnd: Timestamp
    /// `end` events (picked up, cancelled, no-show) leave the lock screen at this time.
    public var dismissalAt: Timestamp?

    /// How long an ended activity stays on the lock screen.
    public static let dismissalSeconds = 15.0 * 60

    /// The update for `order` at `now`, after one sent with `previous` (UNIX seconds; nil for the first).
    public init(_ order: OrderSnapshot, now: Timestamp, previous: Int64?) {
        orderId = order.orderId
        phase = Self.phase(order)
        timestamp = max(now.milliseconds / 1_000, (previous ?? 0) + 1)
        expectedArrivalAt = order.expectedArrivalAt
        targetReadyAt = (order.paced ?? true) ? (order.expectedArrivalAt ?? order.pickupStart) : order.pickupStart
        pickupStart = order.pickupStart
        pickupEnd = order.pickupEnd
        dismissalAt = isEnd ? now.adding(seconds: Self.dismissalSeconds) : nil
    }

    /// placed → waiting to fire (a paced order the kitchen holds until the customer approaches)
    /// → preparing → ready → picked up; or cancelled, no-show.
    public static func phase(_ order: OrderSnapshot) -> Phase {
        switch order.state {
        case .placed: .placed
        case .accepted: (order.paced ?? true) ? .waitingToFire : .placed
        case .preparing: .preparing
        case .ready: .ready
        case .pickedUp: .pickedUp
        case .cancelled: .cancelled
        case .noShow: .noShow
        }
    }

    /// Whether this update ends the activity.
    public var isEnd: Bool { phase == .pickedUp || phase == .cancelled || phase == .noShow }

    /// Ready is worth waking the phone for; the rest is sent at priority 5.
    public var priority: Int { phase == .ready || isEnd ? 10 : 5 }

    /// The payload: `aps.timestamp`, `aps.event` (`update` or `end`), `aps.content-state` and,
    /// for `end`, `aps.dismissal-date`.
    public var payload: [UInt8] {
        var state: [String: Any] = ["phase": phase.rawValue, "targetReadyAt": targetReadyAt.milliseconds / 1_000,
                                    "pickupStart": pickupStart.milliseconds / 1_000, "pickupEnd": pickupEnd.milliseconds / 1_000]
        state["expectedArrivalAt"] = expectedArrivalAt.map { $0.milliseconds / 1_000 }
        var aps: [String: Any] = ["timestamp": timestamp, "event": isEnd ? "end" : "update", "content-state": state]
        aps["dismissal-date"] = dismissalAt.map { $0.milliseconds / 1_000 }
        return Array((try? JSONSerialization.data(withJSONObject: ["aps": aps], options: [.sortedKeys])) ?? Data("{}".utf8))
    }

    /// A stable `apns-id` per order and timestamp: a resend of this update carries the same one.
    public var apnsId: String { Self.apnsId(orderId: orderId, timestamp: timestamp) }

    public static func apnsId(orderId: String, timestamp: Int64) -> String { APNsPush.apnsId(for: "activity/\(orderId)/\(timestamp)") }

    /// The headers for the activity's token; the topic is the app's with `.push-type.liveactivity`.
    public func headers(topic: String, bearer: String) -> [(name: String, value: String)] {
        Self.headers(orderId: orderId, timestamp: timestamp, priority: priority, expiresAt: expiresAt, topic: topic, bearer: bearer)
    }

    /// The same from a stored update's fields.
    public static func headers(orderId: String, timestamp: Int64, priority: Int, expiresAt: Timestamp, topic: String, bearer: String) -> [(name: String, value: String)] {
        [("authorization", "bearer \(bearer)"), ("apns-id", apnsId(orderId: orderId, timestamp: timestamp)), ("apns-push-type", "liveactivity"),
         ("apns-topic", topic + ".push-type.liveactivity"), ("apns-priority", "\(priority)"), ("apns-expiration", "\(expiresAt.milliseconds / 1_000)")]
    }

    /// Worth sending until the activity leaves the lock screen, or an hour after the window.
    public var expiresAt: Timestamp { dismissalAt ?? pickupEnd.adding(seconds: 3_600) }
}
