import EdgeCore
@testable import EdgeServer
import Foundation
import Messages
import SQLite
import ServiceRuntime
import TestSupport

/// The streams part on a real ServiceHost (a real SQLite file in a temporary folder, the clock in
/// the test's hand) with its bus consumer fed as the bus would: each event through the runtime's
/// stream follower, in one transaction, then the publish turn. Sockets bind in-process endpoints
/// nobody else uses, except the PUSH socket, which goes where the test says (a PULL socket or a
/// real Pushpin). `ask` stands in for the edge server: the answer the test gives, at once.
final class StreamsHarness {
    static let t0 = Timestamp(milliseconds: 1_795_464_000_000)

    let clock: ManualClock
    let folder: URL
    let publishEndpoint: String
    private(set) var host: ServiceHost
    private(set) var streams: EdgeStreams
    /// The service behind `ask`: what it was asked, and what it answers.
    let service = FakeService()

    /// The bus's XPUB side the consumer subscribes to (an in-process endpoint nobody serves unless given).
    let busSub: String?

    init(publishEndpoint: String? = nil, busSub: String? = nil) throws {
        self.busSub = busSub
        clock = ManualClock(Self.t0)
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("edge-streams-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.publishEndpoint = publishEndpoint ?? "inproc://pushpin-\(UUID().uuidString.prefix(8))"
        (host, streams) = try Self.open(folder: folder, clock: clock, publishEndpoint: self.publishEndpoint, busSub: busSub, service: service)
    }

    deinit {
        streams.close()
        try? FileManager.default.removeItem(at: folder)
    }

    private static func open(folder: URL, clock: ManualClock, publishEndpoint: String, busSub: String?, service: FakeService) throws -> (ServiceHost, EdgeStreams) {
        let tag = UUID().uuidString.prefix(8)
        let common = CommonOptions(service: "edge", listenPort: 7460)
        let config = try Configuration(program: "edge", specs: common.specs + EdgeStreamSettings.specs,
                                       arguments: ["--listen", "inproc://edge-\(tag)", "--bus-pub", "inproc://bus-pub-\(tag)",
                                                   "--bus-sub", busSub ?? "inproc://bus-sub-\(tag)", "--data-dir", folder.path, "--log-level", "error",
                                                   "--publish-endpoint", publishEndpoint],
                                       environment: [:])
        let host = try ServiceHost(options: common, config: config, clock: clock)
        let streams = EdgeStreams(host: host, settings: EdgeStreamSettings(config), ask: { op, body, principal, done in
            done(service.ask(op, String(decoding: body, as: UTF8.self), principal))
        })
        try streams.start()
        return (host, streams)
    }

    /// The edge started again on the same file, as after a crash (nothing closed first but the database).
    func restart() throws {
        streams.close()
        host.db.close()
        (host, streams) = try Self.open(folder: folder, clock: clock, publishEndpoint: publishEndpoint, busSub: busSub, service: service)
    }

    /// One event as the bus consumer applies it: through the follower in a transaction, then the
    /// publish turn. Returns what the follower did with it.
    @discardableResult
    func deliver(_ envelope: Envelope, topic: String) throws -> StreamFollower.Outcome {
        let follower = try requireValue(host.bus.consumer).follower
        let outcome = try host.db.transaction { follower.receive(topic: topic, envelope: envelope, raw: Wire.encode(envelope)) }
        streams.flush()
        return outcome
    }

    static func orderEvent(_ type: EventType, seq: UInt64, orderId: String = "ord-1", state: OrderState) -> (Envelope, String) {
        let order = OrderSnapshot(orderId: orderId, cafeId: "caffe-macs", cafeName: "Caffè Macs", timeZone: "America/Los_Angeles", currency: "USD",
                                  channel: .app, userId: "user-42", deviceId: "dev-9f3b", state: state, lines: [], total: 0, pickupStart: t0,
                                  pickupEnd: t0.adding(seconds: 900), placedAt: t0, customerHere: false)
        let envelope = Envelope(type: type, source: "order-service", stream: "order", seq: seq, time: t0,
                                body: .order(OrderEvent(order: order, previous: nil, reason: nil, at: t0)))
        return (envelope, Topic.order(state: String(type.rawValue.dropFirst("order.".count)), cafe: "caffe-macs"))
    }

    static func delivery(seq: UInt64, device: String) -> (Envelope, String) {
        let notification = DeviceNotification(notificationId: "ntf-\(seq)", deviceId: device, kind: .orderReady, collapseId: "ord-1", title: "Ready",
                                              body: "Your order is ready", language: "en", orderId: "ord-1", expiresAt: nil, createdAt: t0,
                                              undeliverableReason: nil)
        let envelope = Envelope(type: .notifyDelivery, source: "notification-service", stream: "notify", seq: seq, time: t0, body: .notification(notification))
        return (envelope, Topic.notifyDelivery(device: device))
    }

    static let alice = OnBehalfOf.phone("phone-alice", userId: "user-42", deviceId: "dev-9f3b")

    /// Opens a stream and returns the answer (the fake `ask` answers at once).
    func open(_ action: Route.StreamAction, _ parameters: [String: String], lastEventId: String? = nil, as principal: OnBehalfOf = alice) -> EdgeResponse {
        let result = Answer()
        streams.open(action: .stream(action), pathParameters: parameters, headers: HTTPHeaders(lastEventId.map { [("Last-Event-ID", $0)] } ?? []),
                     principal: principal) { response in result.set(response) }
        return result.response ?? EdgeResponse(status: 0, headers: [], body: [])
    }

    /// The ids in an SSE body, in order.
    static func ids(_ body: [UInt8]) -> [String] {
        String(decoding: body, as: UTF8.self).components(separatedBy: "\n").filter { $0.hasPrefix("id: ") }.map { String($0.dropFirst(4)) }
    }
}

/// The service behind the fake `EdgeAsk` (a fake inside the unit tests of the code that uses it):
/// it records each op with its body and principal, and answers `answer`.
final class FakeService: @unchecked Sendable {
    private let lock = NSLock()
    private var log: [(String, String, OnBehalfOf)] = []
    private var reply: EdgeResponse = .json(Array(#"{"order":{}}"#.utf8))

    func ask(_ op: String, _ body: String, _ principal: OnBehalfOf) -> EdgeResponse {
        lock.withLock {
            log.append((op, body, principal))
            return reply
        }
    }

    /// What was asked, in order.
    var asked: [(String, String, OnBehalfOf)] { lock.withLock { log } }

    /// What `order.get` answers from now on.
    var answer: EdgeResponse {
        get { lock.withLock { reply } }
        set { lock.withLock { reply = newValue } }
    }
}

/// One answer handed over from a `done` closure.
final class Answer: @unchecked Sendable {
    private let lock = NSLock()
    private var value: EdgeResponse?
    func set(_ response: EdgeResponse) { lock.withLock { value = response } }
    var response: EdgeResponse? { lock.withLock { value } }
}
