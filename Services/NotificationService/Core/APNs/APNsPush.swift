import Foundation
import Messages

/// One notification as an APNs request (everything but the bearer token, which the sender adds):
/// the path, the headers APNs reads and the JSON payload. Built again from the stored
/// notification for every attempt, and the same every time: `apns-id` comes from the
/// notification's id, so a resend after a timeout or a restart replaces the first copy on the
/// phone instead of stacking beside it (with `apns-collapse-id`).
public struct APNsPush: Sendable, Equatable {
    public var notificationId: String
    public var deviceId: String
    public var destination: APNsDestination
    /// Lower-case UUID, stable per notification.
    public var apnsId: String
    /// The notification's `collapseId` when it fits APNs' 64 bytes; nil otherwise (never cut: a
    /// cut id could collapse two different orders).
    public var collapseId: String?
    /// `apns-expiration`: the notification's `expiresAt` in UNIX seconds; 0 (deliver now or never) without one.
    public var expiration: Int64
    /// 10 (now, with sound) for what the customer is waiting on; 5 (when the phone is awake) else.
    public var priority: Int
    public var payload: [UInt8]

    /// APNs' largest alert payload.
    public static let maxPayloadBytes = 4_096
    /// APNs' longest `apns-collapse-id`.
    public static let maxCollapseIdBytes = 64
    /// The kinds a customer is standing by for: sent at priority 10.
    public static let urgentKinds: Set<NotificationKind> = [.orderReady, .orderDelayed, .orderLate]

    /// The request for `notification` to `destination`.
    public init(_ notification: DeviceNotification, destination: APNsDestination) {
        notificationId = notification.notificationId
        deviceId = notification.deviceId
        self.destination = destination
        apnsId = Self.apnsId(for: notification.notificationId)
        collapseId = notification.collapseId.utf8.count <= Self.maxCollapseIdBytes && !notification.collapseId.isEmpty ? notification.collapseId : nil
        expiration = notification.expiresAt.map { $0.milliseconds / 1_000 } ?? 0
        priority = Self.urgentKinds.contains(notification.kind) ? 10 : 5
        payload = APNsPayload.encode(notification, sound: priority == 10)
    }

    /// `/3/device/<token>`.
    public var path: String { "/3/device/\(destination.token)" }

    /// The request headers, in a fixed order; `authorization` carries the provider token.
    public func headers(bearer: String) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            ("authorization", "bearer \(bearer)"), ("apns-id", apnsId), ("apns-push-type", "alert"), ("apns-topic", destination.topic),
            ("apns-priority", "\(priority)"), ("apns-expiration", "\(expiration)"),
        ]
        if let collapseId { headers.append(("apns-collapse-id", collapseId)) }
        return headers
    }

    /// The lower-case UUID of a notification id "ntf_<uuid>"; any other id gets a UUID derived from
    /// its bytes (FNV-1a), the same every time.
    public static func apnsId(for notificationId: String) -> String {
        let tail = notificationId.hasPrefix("ntf_") ? String(notificationId.dropFirst(4)) : notificationId
        if let uuid = TextRules.canonicalUUID(tail) { return uuid.lowercased() }
        func fnv(_ seed: UInt64) -> UInt64 {
            notificationId.utf8.reduce(seed) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        }
        let bytes = withUnsafeBytes(of: fnv(0xcbf2_9ce4_8422_2325).bigEndian) { Array($0) } + withUnsafeBytes(of: fnv(0x8422_2325_cbf2_9ce4).bigEndian) { Array($0) }
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }
}

/// The JSON APNs shows: `aps.alert` with the already localized title and body, `thread-id` the
/// order (the reminder for a region reminder) so one order's notifications group together, and
/// the notification's id and kind for the app.
enum APNsPayload {
    private struct Alert: Encodable { var title: String; var body: String }
    private struct APS: Encodable {
        var alert: Alert
        var threadId: String
        var sound: String?
        enum CodingKeys: String, CodingKey { case alert, threadId = "thread-id", sound }
    }
    private struct Payload: Encodable {
        var aps: APS
        var notificationId: String
        var kind: String
        var orderId: String?
    }

    /// The payload, at most `APNsPush.maxPayloadBytes`: a body that would go over is shortened
    /// (a region reminder's text is at most 200 characters, so this only guards).
    static func encode(_ notification: DeviceNotification, sound: Bool) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var body = notification.body
        while true {
            let payload = Payload(aps: APS(alert: Alert(title: String(notification.title.prefix(200)), body: body),
                                           threadId: notification.orderId ?? notification.collapseId, sound: sound ? "default" : nil),
                                  notificationId: notification.notificationId, kind: notification.kind.rawValue, orderId: notification.orderId)
            let bytes = Array((try? encoder.encode(payload)) ?? Data("{}".utf8))
            if bytes.count <= APNsPush.maxPayloadBytes || body.isEmpty { return bytes }
            body = String(body.prefix(max(0, body.count - max(16, (bytes.count - APNsPush.maxPayloadBytes) / 2))))
        }
    }
}
