import Foundation
import Messages
import ServiceRuntime
import Testing
import ZeroMQ

/// notification-service with the bus, sending to the strict local webhook peer: devices
/// registered on the webhook channel, order events played onto the bus as order-service would
/// publish them.
final class WebhookRig: OrderEventPlayer {
    let platform: Platform
    let peer: WebhookPeer
    let context: Context
    let notify: RequestClient
    let publisher: Socket
    var seq: UInt64 = 1
    let now = Timestamp(Date())

    /// `extra`: flags after the peer's (a later flag wins).
    init(extra: [String] = []) throws {
        platform = try Platform()
        peer = try WebhookPeer(in: platform.root.appendingPathComponent("webhook"), campus: platform.campus)
        platform.extraArguments["notification-service"] = peer.serviceArguments + ["--webhook-retry-base-seconds", "0.05"] + extra
        try platform.start(busAnd: ["notification-service"])
        context = try Context()
        notify = RequestClient(context: context, endpoint: platform.endpoint("notification-service"), timeoutMilliseconds: 3_000)
        publisher = try platform.busPublisher(context)
        // Until the bus has passed notification-service's subscription up, what is published is
        // dropped: send seq 1 (an event that notifies nobody) until it is applied.
        _ = try eventually("the publisher's first order event applied") {
            seq = 1
            try publish("ord-warm-up", device: "nobody", .orderPlaced, .placed, "placed")
            return try health()["cursor.order-service-player/order"] == "1" ? true : nil
        }
    }

    func stop() {
        notify.close()
        publisher.close()
        peer.stop()
        platform.stop()
    }

    func status() throws -> HealthStatus { try notify.call(Op.health, Empty(), as: HealthStatus.self) }
    func health() throws -> [String: String] { try status().details }

    @discardableResult
    func register(_ device: String, endpoint: String = WebhookPeer.endpointId, recipient: String? = nil, language: String = "en",
                  locale: String = "en_US") throws -> Registration {
        try notify.call(Op.deviceRegister, RegisterDevice(deviceId: device, userId: nil, channel: "webhook", language: language, locale: locale,
                                                          authorization: .authorized, webhook: WebhookDestination(endpoint: endpoint, recipient: recipient)),
                        as: Registration.self)
    }

    /// Publishes `orderId` ready for `device`, as order-service would.
    func ready(_ orderId: String, device: String) throws { try publish(orderId, device: device, .orderReady, .ready, "ready") }

    private func publish(_ orderId: String, device: String, _ type: EventType, _ state: OrderState, _ name: String) throws {
        let start = now.adding(seconds: 600)
        let snapshot = OrderSnapshot(orderId: orderId, cafeId: "caffe-macs", cafeName: "Caffè Macs", timeZone: "America/Los_Angeles", currency: "USD",
                                     channel: .app, userId: nil, deviceId: device, state: state, lines: [], total: 0, pickupStart: start,
                                     pickupEnd: start.adding(seconds: 900), placedAt: now, customerHere: false, noShowAt: start.adding(seconds: 1_800))
        try play(snapshot, type: type, state: name)
    }

    /// The notification ids of a device's inbox, oldest first.
    func inbox(_ device: String) throws -> [String] {
        try notify.call(Op.inboxList, InboxQuery(deviceId: device), as: InboxReply.self).notifications.map(\.notificationId)
    }
}
