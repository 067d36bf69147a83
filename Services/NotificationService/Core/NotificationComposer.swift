import Campus
import Messages

/// What a notification is about, with everything its text and expiry need.
public enum NotificationSubject: Sendable, Equatable {
    /// An order notification: ready, cancelled (with the reason), pickup reminder or no-show.
    case order(NotificationKind, OrderSnapshot, reason: String?)
    /// A region reminder the user set, firing on arrival at the café.
    case regionReminder(RegionReminder, cafeName: String)
}

/// Turns a subject into one device's notification: localized text, the café's local pickup time
/// in the device's locale, the collapse id, the expiry, and whether it may be delivered now.
/// Pure: the clock and the id come in as values.
public final class NotificationComposer {
    /// How long a cancellation or no-show stays worth showing after the pickup window ended.
    public static let afterWindowSeconds = 24.0 * 3600
    private let times = PickupTimeFormatter()

    /// A composer with its own time formatter.
    public init() {}

    /// `subject` as one device's notification, composed at `now` under `notificationId`.
    public func compose(_ subject: NotificationSubject, deviceId: String, registration: DeviceRegistration?, notificationId: String, now: Timestamp) -> DeviceNotification {
        let requested = registration?.language ?? "en"
        let language = MessageCatalog.language(for: requested)
        let locale = registration?.locale ?? "en_US"
        let kind: NotificationKind
        let text: MessageCatalog.Text?
        let collapseId: String
        let expiresAt: Timestamp?
        var orderId: String?
        var reminderId: String?
        let cafeId: String
        switch subject {
        case .order(let k, let order, let reason):
            kind = k
            let time = times.format(order.pickupStart, timeZone: order.timeZone, locale: locale)
            text = MessageCatalog.render(kind, language: language, cafe: order.cafeName, time: time, reason: reason)
            collapseId = order.orderId
            orderId = order.orderId
            cafeId = order.cafeId
            expiresAt = Self.expiry(kind, order: order)
        case .regionReminder(let reminder, let cafeName):
            kind = .regionReminder
            text = MessageCatalog.render(.regionReminder, language: language, cafe: cafeName, time: "", text: reminder.text)
            collapseId = reminder.reminderId
            reminderId = reminder.reminderId
            cafeId = reminder.cafeId
            expiresAt = nil
        }
        // Every kind has text in every catalog language (NotifyCoreTests checks); English is the floor.
        let rendered = text ?? MessageCatalog.Text(title: kind.rawValue, body: "")
        return DeviceNotification(
            notificationId: notificationId, deviceId: deviceId, kind: kind, collapseId: collapseId,
            title: rendered.title, body: rendered.body, language: language, orderId: orderId, expiresAt: expiresAt, createdAt: now,
            undeliverableReason: DeliveryPolicy.refusal(registration, expiresAt: expiresAt, now: now),
            requestedLanguage: MessageCatalog.catalogLanguage(for: requested) == nil ? requested : nil,
            reminderId: reminderId, cafeId: cafeId)
    }

    /// Seconds after the window a ready order waits when the event does not say (`noShowAt`).
    public static let defaultGraceSeconds = 15.0 * 60

    /// A ready order is worth telling until it becomes a no-show (its `noShowAt`: the window's
    /// end plus the café's grace), whenever the kitchen finishes it; a pickup reminder until the
    /// window ends; a cancellation, no-show, delay or lateness for a day after the window.
    public static func expiry(_ kind: NotificationKind, order: OrderSnapshot) -> Timestamp? {
        switch kind {
        case .orderReady: order.noShowAt ?? order.pickupEnd.adding(seconds: defaultGraceSeconds)
        case .pickupReminder: order.pickupEnd
        case .orderCancelled, .noShow: order.pickupEnd.adding(seconds: afterWindowSeconds)
        case .orderDelayed, .orderLate: order.pickupEnd.adding(seconds: afterWindowSeconds)
        case .regionReminder: nil
        }
    }
}

/// Which order events notify, and whom.
public enum OrderNotifications {
    /// The notification an order event of this state gives; nil for the states that give none.
    public static func kind(for state: OrderState) -> NotificationKind? {
        switch state {
        case .ready: .orderReady
        case .cancelled: .orderCancelled
        case .noShow: .noShow
        case .placed, .accepted, .preparing, .pickedUp: nil
        }
    }

    /// What an order event notifies about: its state's notification (a ready one without the
    /// event's reason); a ready order taken back by the kitchen (`order.preparing` after `ready`)
    /// "a moment longer"; an overdue one "running late". `order.arrived`, `order.approaching` and
    /// `order.claimed` carry the unchanged state: nothing to tell. nil when it notifies nobody.
    public static func subject(_ type: EventType, _ event: OrderEvent) -> NotificationSubject? {
        switch type {
        case .orderArrived, .orderClaimed, .orderApproaching: return nil
        case .orderOverdue: return .order(.orderLate, event.order, reason: nil)
        case .orderPreparing where event.previous == .ready: return .order(.orderDelayed, event.order, reason: nil)
        default:
            guard let kind = kind(for: event.order.state) else { return nil }
            return .order(kind, event.order, reason: kind == .orderReady ? nil : event.reason)
        }
    }

    /// What a device is told once of an order, per kind: the order id; after the kitchen took a
    /// ready order back, its ready and "a moment longer" carry the recall's number, so each
    /// recall tells once and the next ready tells again (under the same collapse id).
    public static func onceKey(_ kind: NotificationKind, _ order: OrderSnapshot) -> String {
        switch kind {
        case .orderReady, .orderDelayed: (order.recalls ?? 0) > 0 ? "\(order.orderId)#\(order.recalls ?? 0)" : order.orderId
        default: order.orderId
        }
    }

    /// The devices to notify: the order's own device first, then every other device registered
    /// for the order's user, each once.
    public static func recipients(orderDevice: String?, userDevices: [String]) -> [String] {
        var seen = Set<String>()
        return ([orderDevice].compactMap { $0 } + userDevices.sorted()).filter { seen.insert($0).inserted }
    }
}
