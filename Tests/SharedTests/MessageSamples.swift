import Foundation
import Messages

/// Realistic values for every message type, so round-trip tests cover each schema.
enum Samples {
    static let time = Timestamp(milliseconds: 1_593_103_260_123)
    static let beaconUUID = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
    static let beacon = BeaconIdentity(uuid: beaconUUID, major: 12, minor: 2)

    static let order = OrderSnapshot(
        orderId: "ord-7f3a", cafeId: "macs", cafeName: "Caffè Macs", timeZone: "America/Los_Angeles", currency: "USD",
        channel: .app, userId: "user-42", deviceId: "dev-9", state: .placed,
        lines: [OrderLine(itemId: "latte", name: "Latte", quantity: 2, modifiers: ["oat-milk"], station: "coffee", unitPrice: 475, lineTotal: 950)],
        total: 950, pickupStart: Timestamp(milliseconds: 1_593_104_400_000), pickupEnd: Timestamp(milliseconds: 1_593_105_300_000),
        placedAt: time, customerHere: false)

    static let notification = DeviceNotification(
        notificationId: "ntf-1", deviceId: "dev-9", kind: .orderReady, collapseId: "ord-7f3a", title: "Your order is ready",
        body: "Pick it up at Caffè Macs", language: "en", orderId: "ord-7f3a",
        expiresAt: Timestamp(milliseconds: 1_593_105_300_000), createdAt: time, undeliverableReason: nil)

    /// A body of the schema `type` carries. Exhaustive: a new event type must get a sample here.
    static func body(for type: EventType) -> EventBody {
        switch type {
        case .sightingReported:
            .sighting(Sighting(deviceId: "dev-9", beacon: beacon, rssi: -63, measuredPower: -59, accuracy: 1.6, proximity: .near, observedAt: time,
                               meanRssi: -64.2, readings: 12))
        case .sightingBatch:
            .sightings(SightingBatch(sightings: [
                Sighting(deviceId: "dev-9", beacon: beacon, rssi: -63, measuredPower: -59, accuracy: 1.6, proximity: .near, observedAt: time,
                         meanRssi: -64.2, readings: 12),
                Sighting(deviceId: "dev-10", beacon: BeaconIdentity(uuid: beaconUUID, major: 12, minor: 3), rssi: -81, measuredPower: -59, accuracy: 7.25,
                         proximity: .far, observedAt: time.adding(seconds: 0.5)),
            ]))
        case .locationFix:
            .locationFix(LocationFix(deviceId: "dev-9", latitude: 37.3349, longitude: -122.009, horizontalAccuracy: 12.5, precise: true, observedAt: time))
        case .deviceStatus:
            .deviceStatus(DeviceStatus(deviceId: "dev-9", authorization: .whenInUse, foreground: true, precise: true, monitoringAvailable: true, rangingAvailable: true, changedAt: time))
        case .regionEvent:
            .region(RegionEvent(monitor: "cafes", identifier: "macs-beacons", deviceId: "dev-9", state: .satisfied, refinement: beacon, flags: [.accuracyLimited], date: time))
        case .regionNearest:
            .nearest(NearestBeacon(deviceId: "dev-9", beacon: nil, proximity: nil, date: time,
                                   candidates: [beacon, BeaconIdentity(uuid: beaconUUID, major: 12, minor: 3)]))
        case .regionPurged:
            .purged(LocationPurged(deviceId: "dev-9", reason: .denied, date: time))
        case .orderPlaced:
            .order(OrderEvent(order: order, previous: nil, reason: nil, at: time))
        case .orderAccepted, .orderPreparing, .orderReady, .orderPickedUp, .orderArrived, .orderClaimed, .orderApproaching, .orderOverdue:
            .order(OrderEvent(order: order, previous: .placed, reason: nil, at: time))
        case .orderCancelled, .orderNoShow:
            .order(OrderEvent(order: order, previous: .ready, reason: "not collected", at: time))
        case .kitchenStarted, .kitchenBumped, .kitchenRecalled:
            .kitchen(KitchenEvent(orderId: "ord-7f3a", cafeId: "macs", ticketId: "tkt-1", station: "coffee", at: time))
        case .kitchenReady:
            .kitchen(KitchenEvent(orderId: "ord-7f3a", cafeId: "macs", ticketId: nil, station: nil, at: time))
        case .kitchenPaced:
            .paced(KitchenPacing(orderId: "ord-7f3a", cafeId: "macs", target: time.adding(seconds: 300), previousTarget: nil, reason: .window,
                                 expectedArrival: nil, fires: [.init(ticketId: "ord-7f3a:coffee", station: "coffee", fireAt: time.adding(seconds: 210))], at: time))
        case .menuAvailability:
            .availability(MenuAvailability(cafeId: "macs", itemId: "latte", available: false, reason: "out of oat milk", by: "kitchen-macs", at: time))
        case .notifyDelivery:
            .notification(notification)
        case .notifyUndeliverable:
            .notification({ var n = notification; n.undeliverableReason = "authorization denied"; return n }())
        case .heartbeat:
            .heartbeat(Heartbeat(service: "order-service", streams: ["order": 41], replayEndpoint: "tcp://127.0.0.1:7430"))
        case .deadLetter:
            .deadLetter(DeadLetter(service: "kitchen-display", code: "message.unknownType", message: "unknown event type \"order.teleported\"", topic: "order.teleported.macs.", excerpt: "{\"v\":1,\"type\":\"order.teleported\""))
        }
    }

    static func envelope(_ type: EventType, seq: UInt64 = 7, stream: String = "order", source: String = "order-service") -> Envelope {
        Envelope(type: type, id: "0b6f2f8e-6c1d-4f5e-9a51-3f1f0d7c2a11", source: source, stream: stream, seq: seq, time: time, body: body(for: type))
    }
}
