import Foundation
import Messages
import ServiceRuntime
import Testing
import ZeroMQ

/// notification-service with the bus, sending to the strict local APNs peer: devices registered
/// on the apns channel, order events played onto the bus as order-service would publish them.
final class APNsRig: OrderEventPlayer {
    let platform: Platform
    let peer: APNsPeer
    let context: Context
    let notify: RequestClient
    let publisher: Socket
    var seq: UInt64 = 1
    let now = Timestamp(Date())

    /// `extra`: flags after the peer's (a later flag wins).
    /// `wrongKey`: the service starts with a signing key the peer does not know (`wrongKeyFile`).
    init(extra: [String] = [], wrongKey: Bool = false) throws {
        platform = try Platform()
        peer = try APNsPeer(in: platform.root.appendingPathComponent("apns"))
        var flags = peer.serviceArguments + ["--apns-retry-base-seconds", "0.05"]
        if wrongKey {
            let wrong = peer.folder.appendingPathComponent("wrong.p8").path
            _ = try runCommand(URL(fileURLWithPath: "/usr/bin/openssl"), ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", wrong])
            flags += ["--apns-key-file", wrong]
        }
        platform.extraArguments["notification-service"] = flags + extra
        try platform.start(busAnd: ["notification-service"])
        context = try Context()
        notify = RequestClient(context: context, endpoint: platform.endpoint("notification-service"), timeoutMilliseconds: 3_000)
        publisher = try platform.busPublisher(context)
        // Until the bus has passed notification-service's subscription up to this publisher, what
        // it sends is dropped: send seq 1 (an event that notifies nobody) until it is applied.
        _ = try eventually("the publisher's first order event applied") {
            seq = 1
            try play(order("ord-warm-up", device: "nobody", state: .placed), type: .orderPlaced, state: "placed")
            return try health()["cursor.order-service-player/order"] == "1" ? true : nil
        }
    }

    var wrongKeyFile: String { peer.folder.appendingPathComponent("wrong.p8").path }

    func stop() {
        notify.close()
        publisher.close()
        peer.stop()
        platform.stop()
    }

    func health() throws -> [String: String] { try notify.call(Op.health, Empty(), as: HealthStatus.self).details }
    func status() throws -> HealthStatus { try notify.call(Op.health, Empty(), as: HealthStatus.self) }

    @discardableResult
    func register(_ device: String, token: String, language: String = "en", locale: String = "en_US", authorization: NotificationAuthorization = .authorized) throws -> Registration {
        try notify.call(Op.deviceRegister, RegisterDevice(deviceId: device, userId: nil, channel: "apns", language: language, locale: locale,
                                                          authorization: authorization, apns: APNsDestination(token: token, environment: .sandbox, topic: APNsPeer.topic)),
                        as: Registration.self)
    }

    func order(_ orderId: String, device: String, state: OrderState) -> OrderSnapshot {
        let start = now.adding(seconds: 600)
        return OrderSnapshot(orderId: orderId, cafeId: "caffe-macs", cafeName: "Caffè Macs", timeZone: "America/Los_Angeles", currency: "USD", channel: .app,
                             userId: nil, deviceId: device, state: state, lines: [], total: 0, pickupStart: start, pickupEnd: start.adding(seconds: 900),
                             placedAt: now, customerHere: false, noShowAt: start.adding(seconds: 1_800))
    }

    /// Publishes `orderId` ready for `device`, as order-service would.
    func ready(_ orderId: String, device: String) throws {
        try play(order(orderId, device: device, state: .ready), type: .orderReady, state: "ready")
    }

    /// Publishes one state change of `orderId`, as order-service would.
    func event(_ orderId: String, device: String, _ type: EventType, _ state: OrderState, expectedArrivalAt: Timestamp? = nil) throws {
        var snapshot = order(orderId, device: device, state: state)
        snapshot.expectedArrivalAt = expectedArrivalAt
        try play(snapshot, type: type, state: type.rawValue.replacingOccurrences(of: "order.", with: ""))
    }
}
