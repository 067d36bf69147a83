import Foundation
import KitchenCore
@testable import KitchenServer
import Messages
import ServiceRuntime
import TestSupport

enum KitchenHarnessError: Error { case notSubscribed, deadLettered }

/// kitchen-display's shell on a real SQLite file in a temporary folder, its clock in the test's
/// hand. Its sockets bind in-process endpoints nobody else uses; chef commands and order events
/// are calls.
final class KitchenHarness {
    /// Monday 23 November 2026, 20:00 UTC.
    static let t0 = Timestamp(milliseconds: 1_795_464_000_000)

    let clock: ManualClock
    let folder: URL
    let arguments: [String]
    /// Where the kitchen's consumer subscribes (a `StandInBus` binds it to deliver for real).
    private(set) var busSub = ""
    private(set) var host: ServiceHost
    private(set) var service: KitchenService
    private var orderSeq: UInt64 = 0

    /// `arguments` are kitchen-display's own options (`--recall-seconds 90`).
    init(arguments: [String] = []) throws {
        clock = ManualClock(Self.t0)
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("kitchen-server-\(UUID().uuidString.prefix(8))")
        self.arguments = arguments
        (host, service, busSub) = try Self.open(folder: folder, clock: clock, arguments: arguments)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    private static func open(folder: URL, clock: ManualClock, arguments: [String]) throws -> (ServiceHost, KitchenService, String) {
        let tag = UUID().uuidString.prefix(8)
        let config = try Configuration(program: "kitchen-display", specs: KitchenDisplaySettings.specs,
                                       arguments: ["--listen", "inproc://kitchen-\(tag)", "--bus-pub", "inproc://bus-pub-\(tag)",
                                                   "--bus-sub", "inproc://bus-sub-\(tag)", "--data-dir", folder.path, "--log-level", "error"] + arguments,
                                       environment: [:])
        let host = try ServiceHost(options: KitchenDisplaySettings.common, config: config, clock: clock)
        let service = KitchenService(host: host, settings: KitchenDisplaySettings(config: config).times)
        try service.start()
        return (host, service, "inproc://bus-sub-\(tag)")
    }

    /// The service started again on the same file (as after a crash), at the clock's time.
    func restart() throws {
        host.db.close()
        (host, service, busSub) = try Self.open(folder: folder, clock: clock, arguments: arguments)
    }

    /// An order at Caffè Macs (or `cafe`) with a burger for the grill and a salad for the salad station.
    func order(_ orderId: String = "ord-1", state: OrderState = .accepted, cafe: String = "caffe-macs") -> OrderSnapshot {
        let lines = [OrderLine(itemId: "burger", name: "Burger", quantity: 2, modifiers: [], station: "grill", unitPrice: 900, lineTotal: 1800),
                     OrderLine(itemId: "caesar", name: "Caesar salad", quantity: 1, modifiers: [], station: "salad", unitPrice: 800, lineTotal: 800)]
        let start = clock.now().adding(seconds: 900)
        return OrderSnapshot(orderId: orderId, cafeId: cafe, cafeName: cafe, timeZone: "America/Los_Angeles", currency: "USD",
                             channel: .app, userId: "u1", deviceId: "phone-1", state: state, lines: lines, total: 2600,
                             pickupStart: start, pickupEnd: start.adding(seconds: 900), placedAt: clock.now(), customerHere: false)
    }

    /// order-service's next event on the `order` stream, stamped now.
    func event(_ type: EventType, _ order: OrderSnapshot) -> Envelope {
        orderSeq += 1
        return Envelope(type: type, source: "order-service", stream: "order", seq: orderSeq, time: clock.now(),
                        body: .order(OrderEvent(order: order, previous: nil, reason: nil, at: clock.now())))
    }

    /// Delivers an order event to the service's stream follower, as the bus would.
    func apply(_ envelope: Envelope) throws {
        guard case .order(let event) = envelope.body, let follower = host.bus.consumer?.follower else { throw KitchenHarnessError.notSubscribed }
        let topic = Topic.order(state: event.order.state.rawValue, cafe: event.order.cafeId)
        if follower.receive(topic: topic, envelope: envelope, raw: Wire.encode(envelope)) == .deadLettered { throw KitchenHarnessError.deadLettered }
    }

    /// The station screens as `kds.tickets` shows them (every café and station).
    func screen() throws -> [TicketView] { try service.tickets(TicketsQuery()).tickets }

    func ticket(_ ticketId: String, includeDone: Bool = true) throws -> TicketView? {
        try service.tickets(TicketsQuery(includeDone: includeDone)).tickets.first { $0.ticketId == ticketId }
    }

    /// The kitchen events in the outbox, oldest first, as "<type> <ticket id, or order id for kitchen.ready>".
    /// The chefs' kitchen events, oldest first (the pacing's are in `pacingEvents()`).
    func kitchenEvents() throws -> [String] {
        try host.db.query("SELECT envelope FROM outbox WHERE stream = 'kitchen' AND topic NOT LIKE 'kitchen.paced.%' ORDER BY seq").map { row in
            let envelope = try Wire.decodeEnvelope(row.data("envelope"))
            guard case .kitchen(let event) = envelope.body else { return envelope.type.rawValue }
            return "\(envelope.type.rawValue) \(event.ticketId ?? event.orderId)"
        }
    }

    /// Every `kitchen.paced`, oldest first.
    func pacingEvents() throws -> [KitchenPacing] {
        try host.db.query("SELECT envelope FROM outbox WHERE stream = 'kitchen' AND topic LIKE 'kitchen.paced.%' ORDER BY seq").compactMap { row in
            guard case .paced(let pacing) = try Wire.decodeEnvelope(row.data("envelope")).body else { return nil }
            return pacing
        }
    }
}
