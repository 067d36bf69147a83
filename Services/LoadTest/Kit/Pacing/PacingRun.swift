import Campus
import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// `load-test pacing`: the plan played in real time against a platform of its own (bus and the
/// five services, plain mode, free loopback ports, a fresh data folder, the twin catalog).
///
/// Each customer orders at the start (app channel, a window minutes ahead), then walks to the
/// counter, reporting a GPS fix every 3 s through beacon-ingest and the café's beacon once there.
/// A simulated crew works every station as the kitchen screen says: it starts a ticket once it
/// shows `FIRE` and bumps it its prep time later. The order is ready at its last bump. Per order:
/// how long food waited for its customer, and how long the customer waited for food.
final class PacingRun {
    /// One order's figures, times in seconds on the run's clock.
    struct Outcome {
        var cafe: String
        var customer: Int
        /// Its window's start, and (from the plan) when the walk began and entered the approach area.
        var windowStart = 0.0
        var walkStart = 0.0
        var approachEntry = 0.0
        /// When the crew started the order's first station ticket (it showed `FIRE`).
        var firedAt: Double?
        var readyAt: Double?
        var arrivedAt: Double?
        var foodWait: Double? { readyAt.flatMap { r in arrivedAt.map { a in max(0, a - r) } } }
        var customerWait: Double? { readyAt.flatMap { r in arrivedAt.map { a in max(0, r - a) } } }
    }

    let plan: PacingPlan
    let root: URL
    private var processes: [Process] = []
    private let started = Date()

    /// Whether phones stay silent until their walk begins (the first runs): the platform then knows
    /// nothing of where a customer is when the order comes. Otherwise a phone reports where it is
    /// (its desk, or on the way) as its order is placed, as an app sharing its location does.
    let silentUntilWalk: Bool

    init(plan: PacingPlan, silentUntilWalk: Bool = false) {
        self.plan = plan
        self.silentUntilWalk = silentUntilWalk
        root = FileManager.default.temporaryDirectory.appendingPathComponent("cafe-pacing-\(getpid())")
    }

    /// Seconds since the run began.
    private var clock: Double { Date().timeIntervalSince(started) }

    func stop() {
        for process in processes where process.isRunning { process.terminate() }
        for process in processes { process.waitUntilExit() }
        if ProcessInfo.processInfo.environment["CAFE_KEEP_BENCH_DATA"] == nil { try? FileManager.default.removeItem(at: root) }
    }

    func run(progress: (String) -> Void) throws -> [Outcome] {
        let bin = Bench.binaryDirectory
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let campus = root.appendingPathComponent("campus.json")
        try plan.catalog().write(to: campus)
        let ports = try LoopbackPorts.free(9)
        func endpoint(_ i: Int) -> String { "tcp://127.0.0.1:\(ports[i])" }
        let (xsub, xpub, fixes) = (endpoint(0), endpoint(1), endpoint(8))
        let data = root.appendingPathComponent("data").path
        let common = ["--bus-pub", xsub, "--bus-sub", xpub, "--data-dir", data, "--log-level", "warning"]
        try spawn(bin, "bus", ["--xsub", xsub, "--xpub", xpub, "--listen", endpoint(2)])
        try spawn(bin, "beacon-ingest", ["--listen", endpoint(3), "--fix-endpoints", fixes] + common)
        try spawn(bin, "region-monitor", ["--listen", endpoint(4), "--campus", campus.path, "--fix-listen", fixes, "--beacon-exit-seconds", "60"] + common)
        try spawn(bin, "order-service", ["--listen", endpoint(5), "--campus", campus.path, "--region-endpoints", endpoint(4)] + common)
        try spawn(bin, "kitchen-display", ["--listen", endpoint(6)] + common)
        try spawn(bin, "notification-service", ["--listen", endpoint(7), "--campus", campus.path, "--pickup-reminder-lead-seconds", "0"] + common)

        let context = try Context()
        let ingest = RequestClient(context: context, endpoint: endpoint(3), timeoutMilliseconds: 5_000)
        let orders = RequestClient(context: context, endpoint: endpoint(5), timeoutMilliseconds: 5_000)
        let kitchen = RequestClient(context: context, endpoint: endpoint(6), timeoutMilliseconds: 5_000)
        defer { [ingest, orders, kitchen].forEach { $0.close() } }
        try Bench.awaitHealthy([(ingest, "beacon-ingest"), (orders, "order-service"), (kitchen, "kitchen-display")], logsIn: root)

        // The two windows the pairs order for, the orders placed a fixed lead (one and a half
        // windows) before the first: windows are on the clock's grid, and a lead that followed the
        // wall clock (150–450 s) changed who is already on the way, so seeded runs differed. An
        // early customer whose walk would have begun before the orders is already on the way, nearer.
        let earliest = Double(plan.scale.windowMinutes * 90)
        let windows = try orders.call(Op.windowsList, WindowsRequest(cafeId: PacingPlan.paced, locale: "en_US", count: 96), as: WindowsReply.self).windows
        let now = Timestamp(Date())
        guard let first = windows.firstIndex(where: { $0.start.seconds(since: now) >= earliest }), first + 1 < windows.count else {
            throw ServiceError(.internalError, "no pickup window far enough ahead")
        }
        let starts = [windows[first].start, windows[first + 1].start]
        let startClock = starts.map { clock + $0.seconds(since: now) }
        while clock < startClock[0] - earliest { usleep(200_000) }

        // The walks: each customer's departure and arrival on this run's clock.
        let arrivals = plan.customers.map { startClock[$0.window] + $0.arrivalOffset }
        // Every phone shares its location; unless silent, it says where it is before ordering
        // (at its desk, or nearer if its walk began before the run), and region-monitor's word
        // reaches order-service before the order does.
        for customer in plan.customers {
            // A phone already inside the approach area says nothing yet: its first fix on the walk does.
            let distance = min(customer.startDistance, customer.speed * (arrivals[customer.index] - clock))
            let reports = !silentUntilWalk && distance > plan.scale.approachRadius
            for cafe in [PacingPlan.paced, PacingPlan.unpaced] {
                let device = "\(cafe)-\(customer.index)"
                _ = try ingest.call(Op.ingestReport, IngestReport(deviceId: device, status: DeviceStatusReport(authorization: .always, foreground: true)),
                                    as: IngestResult.self)
                if reports {
                    _ = try ingest.call(Op.ingestReport, IngestReport(deviceId: device, fixes: [PacingPlan.fix(cafe: cafe, distance: distance, at: Timestamp(Date()))]),
                                        as: IngestResult.self)
                }
            }
        }
        if !silentUntilWalk { usleep(2_000_000) }

        // Everyone orders now; the twins the same items for the same window.
        var orderIds: [String: (cafe: String, customer: Int)] = [:]
        for customer in plan.customers {
            for cafe in [PacingPlan.paced, PacingPlan.unpaced] {
                let device = "\(cafe)-\(customer.index)"
                let held = try orders.call(Op.windowReserve, ReserveRequest(cafeId: cafe, start: starts[customer.window], userId: device, locale: "en_US"),
                                           as: ReservationView.self)
                let placed = try orders.call(Op.orderPlace, PlaceOrderRequest(
                    idempotencyKey: "pacing-\(device)", channel: .app, userId: device, deviceId: device, cafeId: cafe, reservationId: held.reservationId,
                    items: customer.items.map { OrderItemRequest(itemId: "item-\($0)", quantity: 1) }, paymentToken: "tok_4242424242424242",
                    locale: "en_US"), as: OrderView.self)
                orderIds[placed.order.orderId] = (cafe, customer.index)
            }
        }
        progress("\(orderIds.count) orders placed for windows at +\(Int(startClock[0]))s and +\(Int(startClock[1]))s")

        var outcomes: [String: Outcome] = [:]
        for (id, who) in orderIds {
            let customer = plan.customers[who.customer], arrival = arrivals[who.customer]
            outcomes[id] = Outcome(cafe: who.cafe, customer: who.customer, windowStart: startClock[customer.window], walkStart: arrival - customer.walkSeconds,
                                   approachEntry: arrival - plan.scale.approachRadius / customer.speed)
        }
        var nextFix = plan.customers.map { arrivals[$0.index] - $0.walkSeconds }
        var started: [String: Double] = [:]
        var bumped = Set<String>()
        var lastPoll = 0.0
        let deadline = (arrivals.max() ?? 0) + Double(plan.scale.prep.max() ?? 0) * 3 + 120
        while clock < deadline, outcomes.values.contains(where: { $0.readyAt == nil || $0.arrivedAt == nil }) {
            let t = clock
            // The walkers: a fix every 3 s on the way, the café's beacon at the counter.
            for customer in plan.customers where nextFix[customer.index] <= t && nextFix[customer.index].isFinite {
                let arrival = arrivals[customer.index]
                let distance = max(0, customer.speed * (arrival - t))
                for cafe in [PacingPlan.paced, PacingPlan.unpaced] {
                    let report = IngestReport(deviceId: "\(cafe)-\(customer.index)", status: nil,
                                              sightings: distance <= 5 ? [PacingPlan.ranging(cafe: cafe, at: Timestamp(Date()))] : nil,
                                              fixes: [PacingPlan.fix(cafe: cafe, distance: distance, at: Timestamp(Date()))])
                    _ = try? ingest.call(Op.ingestReport, report, as: IngestResult.self)
                }
                if distance <= 5 {
                    for id in orderIds.keys where orderIds[id]!.customer == customer.index && outcomes[id]!.arrivedAt == nil { outcomes[id]!.arrivedAt = arrival }
                    // A few more beacon readings so the café's beacon condition is satisfied, then done.
                    nextFix[customer.index] = t - arrival > 6 ? .infinity : t + 1
                } else {
                    nextFix[customer.index] = min(t + 3, arrival)
                }
            }
            // The crew, once a second: start what the screen fires, bump what has cooked its prep time.
            if t - lastPoll >= 1 {
                lastPoll = t
                // A kitchen slow to answer on a busy machine costs this poll, not the run.
                let tickets = (try? kitchen.call(Op.kdsTickets, TicketsQuery(), as: TicketsReply.self).tickets) ?? []
                for ticket in tickets {
                    if ticket.state == .new, ticket.firing != .hold {
                        _ = try? kitchen.call(Op.kdsStart, TicketCommand(ticketId: ticket.ticketId), as: TicketView.self)
                        started[ticket.ticketId] = t
                        if let id = ticket.ticketId.split(separator: ":").first.map(String.init), outcomes[id]?.firedAt == nil { outcomes[id]?.firedAt = t }
                    } else if ticket.state == .inProgress, let since = started[ticket.ticketId], t - since >= Double(ticket.prepSeconds ?? 0) {
                        _ = try? kitchen.call(Op.kdsBump, TicketCommand(ticketId: ticket.ticketId), as: TicketView.self)
                        bumped.insert(ticket.ticketId)
                    }
                }
                // An order is ready at its last station's bump.
                for (id, outcome) in outcomes where outcome.readyAt == nil {
                    let stations = Set(plan.customers[outcome.customer].items.map { $0 % 2 == 0 ? "grill" : "bar" })
                    if stations.allSatisfy({ bumped.contains("\(id):\($0)") }) { outcomes[id]!.readyAt = t }
                }
            }
            usleep(100_000)
        }
        return Array(outcomes.values)
    }

    private func spawn(_ bin: URL, _ name: String, _ arguments: [String]) throws {
        processes.append(try Bench.spawn(bin, name, arguments, logsIn: root))
    }
}
