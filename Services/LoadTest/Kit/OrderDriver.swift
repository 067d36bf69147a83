import Campus
import Foundation
import Messages
import Metrics

/// Orders at a constant rate, each taken from its intended start to the "ready" notification:
/// reserve a pickup place, place the order (app channel, payment token), bump every kitchen ticket
/// as soon as the kitchen shows it, and wait for `notify.delivery.<device>.` with the order id.
/// Tickets are bumped when the place reply comes; one the kitchen does not have yet is bumped
/// again when the order's `kitchen.paced` comes off the bus (kitchen-display commits the tickets
/// and that event together, as a chef's screen shows them), not after a fixed retry interval.
/// Latency runs from the order's intended start (start + k / rate), never from when it was sent.
final class OrderDriver {
    /// What a reply on the order or kitchen socket answers.
    enum Step {
        case reserve(order: Int)
        case place(order: Int)
        case bump(order: Int, ticket: String)
    }

    enum Stage: String {
        case reserving, placing, bumping, notifying, done, failed
    }

    struct Tracked {
        let intended: Double
        let phone: Int
        let cafe: String
        var window: Int = 0
        var windowAttempts = 0
        var orderId: String?
        var openTickets: Set<String> = []
        var stage: Stage = .reserving
        var finished = false
        /// Schedule times of the replies that moved it on: reserved, placed, every ticket bumped.
        var reserved: Double?
        var placed: Double?
        var bumped: Double?
    }

    struct Window {
        var start: Timestamp
        var remaining: Int
    }

    /// Tallies for the report.
    struct Counts {
        var started = 0
        var placed = 0
        var notified = 0
        var failed = 0
        var lost = 0
        var bumpRetries = 0
        /// Orders whose refused bumps were sent again without their `kitchen.paced` seen within `kitchenWait`.
        var kitchenWaitsExpired = 0
        var windowRetries = 0
        /// Requests sent again, unchanged, after no reply came (a service killed with them in flight), by op.
        var resent: [String: Int] = [:]
        var errors: [String: Int] = [:]
        var lostAt: [String: Int] = [:]
    }

    let rate: Double
    let end: Double
    let measureFrom: Double
    let timeout: Double
    private let runID: String
    private let fleet: PhoneFleet
    private let orderingPhones: Int
    private let clients: OrderClients
    private var windows: [String: [Window]]
    private let menus: [String: [String]]
    private var tracked: [Tracked] = []
    private var byOrderId: [String: Int] = [:]
    private var bumpRetries: [(due: Double, order: Int, ticket: String)] = []
    /// Placed orders whose tickets wait for the kitchen's `kitchen.paced`, with the time to bump
    /// them anyway (a run against a kitchen that announces nothing still finishes).
    private var awaitingKitchen: [Int: (due: Double, tickets: Set<String>)] = [:]
    /// Order ids whose `kitchen.paced` was seen (bounded: cleared past 10,000; the wait's end covers a loss).
    private var shown: Set<String> = []
    /// How long a ticket the kitchen did not have waits for the order's `kitchen.paced`.
    static let kitchenWait = 0.05
    /// Tickets whose bump was sent more than once: the first may have been applied before its reply was lost.
    private var resentBumps: Set<String> = []
    /// Tickets bumped again at once because the kitchen had already announced their order (bounded
    /// as `shown`): a second refusal waits 5 ms, so a kitchen that keeps refusing is not spun on.
    private var bumpedAgainAtOnce: Set<String> = []
    private(set) var latency = Histogram()
    /// The same latency by stage, for the orders measured: intended start → reservation answered →
    /// order answered → last ticket's bump answered (the kitchen showing the tickets included) →
    /// the ready notification (the ready fact's way through order-service and notification-service).
    private(set) var stages = Stages()
    private(set) var counts = Counts()

    struct Stages {
        var reserve = Histogram()
        var place = Histogram()
        var kitchen = Histogram()
        var ready = Histogram()
    }

    init(rate: Double, end: Double, measureFrom: Double, timeout: Double, runID: String, fleet: PhoneFleet, orderingPhones: Int,
         clients: OrderClients, windows: [String: [Window]], catalog: CampusCatalog) {
        self.rate = rate
        self.end = end
        self.measureFrom = measureFrom
        self.timeout = timeout
        self.runID = runID
        self.fleet = fleet
        self.orderingPhones = max(1, orderingPhones)
        self.clients = clients
        self.windows = windows
        menus = Dictionary(uniqueKeysWithValues: catalog.cafes.map { ($0.id, $0.menu.map(\.id)) })
    }

    /// The user and the notification device of the k-th ordering phone.
    static func user(runID: String, phone: Int) -> String { "\(runID)-u\(phone)" }

    /// Schedule time of the next order to start, if any remain before the end.
    var nextDue: Double? {
        guard rate > 0 else { return nil }
        let next = Double(tracked.count) / rate
        return next < end ? next : nil
    }

    /// The earliest bump retry, if any.
    var nextRetry: Double? { (bumpRetries.map(\.due) + awaitingKitchen.values.map(\.due)).min() }

    /// Orders not yet notified, failed or given up.
    var inFlight: Int { tracked.count - counts.notified - counts.failed - counts.lost }

    /// Starts every order due by schedule time `now`, and the bump retries that are due.
    func startDue(now: Double) throws {
        while let due = nextDue, due <= now {
            let number = tracked.count
            let phone = number % orderingPhones
            let here = fleet.layout.places[fleet.phones[phone].place].id
            // Order where the phone stands when that café has a place left, else wherever one is.
            let cafe = hasPlace(here) ? here : (windows.keys.sorted().first { hasPlace($0) } ?? here)
            tracked.append(Tracked(intended: due, phone: phone, cafe: cafe))
            counts.started += 1
            try reserve(number, now: now)
        }
        let due = bumpRetries.filter { $0.due <= now }
        bumpRetries.removeAll { $0.due <= now }
        for retry in due where !tracked[retry.order].finished {
            try bump(retry.order, ticket: retry.ticket, now: now)
        }
        for (number, wait) in awaitingKitchen where wait.due <= now {
            counts.kitchenWaitsExpired += 1
            try bumpAll(number, now: now)
        }
    }

    /// The kitchen announced an order (`kitchen.paced`): its tickets are on the screen, bump them.
    func kitchenShows(orderId: String, now: Double) throws {
        if shown.count >= 10_000 { shown.removeAll() }
        shown.insert(orderId)
        if let number = byOrderId[orderId] { try bumpAll(number, now: now) }
    }

    /// Bumps again the tickets of an order that waited for the kitchen.
    private func bumpAll(_ number: Int, now: Double) throws {
        guard let wait = awaitingKitchen.removeValue(forKey: number), !tracked[number].finished else { return }
        for ticket in wait.tickets.sorted() { try bump(number, ticket: ticket, now: now) }
    }

    private func hasPlace(_ cafe: String) -> Bool { windows[cafe]?.contains { $0.remaining > 0 } ?? false }

    private func reserve(_ number: Int, now: Double) throws {
        let cafe = tracked[number].cafe
        guard let index = windows[cafe]?.firstIndex(where: { $0.remaining > 0 }) else {
            return fail(number, code: ErrorCode.windowFull.rawValue)
        }
        windows[cafe]![index].remaining -= 1
        tracked[number].window = index
        tracked[number].windowAttempts += 1
        let request = ReserveRequest(cafeId: cafe, start: windows[cafe]![index].start,
                                     userId: Self.user(runID: runID, phone: tracked[number].phone), locale: "en_US")
        try clients.orders(phone: tracked[number].phone).send(Wire.encode(Request(op: Op.windowReserve, id: "\(runID)-r\(number)", body: request)),
                                                             context: .reserve(order: number), now: now)
    }

    /// Handles a reply from order-service or kitchen-display.
    func handle(_ step: Step, reply: Data, now: Double) throws {
        switch step {
        case .reserve(let number):
            guard !tracked[number].finished else { return }
            switch Result(catching: { try Wire.decodeReply(reply, body: ReservationView.self).get() }) {
            case .success(let reservation):
                tracked[number].stage = .placing
                tracked[number].reserved = now
                try place(number, reservation: reservation.reservationId, now: now)
            case .failure(let error):
                let code = (error as? ServiceError)?.code ?? ErrorCode.messageMalformed.rawValue
                let windowGone: Set<String> = [ErrorCode.windowFull.rawValue, ErrorCode.windowPast.rawValue, ErrorCode.windowClosed.rawValue,
                                               ErrorCode.unknownWindow.rawValue]
                if windowGone.contains(code), tracked[number].windowAttempts < 8 {
                    // Someone else took the last place, or the window began: use the next one.
                    windows[tracked[number].cafe]![tracked[number].window].remaining = 0
                    counts.windowRetries += 1
                    try reserve(number, now: now)
                } else {
                    fail(number, code: code)
                }
            }
        case .place(let number):
            guard !tracked[number].finished else { return }
            switch Result(catching: { try Wire.decodeReply(reply, body: OrderView.self).get() }) {
            case .success(let view):
                counts.placed += 1
                tracked[number].placed = now
                let orderId = view.order.orderId
                tracked[number].orderId = orderId
                byOrderId[orderId] = number
                tracked[number].stage = .bumping
                // The kitchen makes one ticket per station, "<orderId>:<station>"; bump each.
                let tickets = Set(view.order.lines.map { "\(orderId):\($0.station)" })
                tracked[number].openTickets = tickets
                for ticket in tickets.sorted() { try bump(number, ticket: ticket, now: now) }
            case .failure(let error):
                fail(number, code: (error as? ServiceError)?.code ?? ErrorCode.messageMalformed.rawValue)
            }
        case .bump(let number, let ticket):
            guard !tracked[number].finished else { return }
            switch Result(catching: { try Wire.decodeReply(reply, body: TicketView.self).get() }) {
            case .success:
                bumped(number, ticket: ticket, now: now)
            case .failure(let error):
                let code = (error as? ServiceError)?.code ?? ErrorCode.messageMalformed.rawValue
                if code == ErrorCode.ticketIllegalTransition.rawValue, resentBumps.contains(ticket) {
                    // A bump sent again after a lost reply finds the ticket bumped: the first one was applied.
                    bumped(number, ticket: ticket, now: now)
                } else if code == ErrorCode.unknownTicket.rawValue || code == ErrorCode.forbidden.rawValue {
                    // The kitchen has not taken order.placed off the bus yet: try again shortly. In
                    // deployed mode a kitchen is told "forbidden" for a ticket it does not hold,
                    // so as not to learn other cafés' ids; the run's kitchen key is the order's café's.
                    counts.bumpRetries += 1
                    if let orderId = tracked[number].orderId, !shown.contains(orderId) {
                        // Bumped again when the kitchen announces the order (or after `kitchenWait`).
                        awaitingKitchen[number, default: (now + Self.kitchenWait, [])].tickets.insert(ticket)
                    } else if bumpedAgainAtOnce.insert(ticket).inserted {
                        // The announcement came in before this refusal was read: the ticket is on
                        // the screen, so the chef bumps it now (a fixed 5 ms wait here was the run's
                        // own latency, added to every order that raced so).
                        if bumpedAgainAtOnce.count > 10_000 { bumpedAgainAtOnce = [ticket] }
                        try bump(number, ticket: ticket, now: now)
                    } else {
                        bumpRetries.append((now + 0.005, number, ticket))
                    }
                } else {
                    fail(number, code: code)
                }
            }
        }
    }

    /// A ticket of the order is bumped: with the last one, the order waits for its notification.
    private func bumped(_ number: Int, ticket: String, now: Double) {
        tracked[number].openTickets.remove(ticket)
        guard tracked[number].openTickets.isEmpty && tracked[number].stage == .bumping else { return }
        tracked[number].stage = .notifying
        tracked[number].bumped = now
    }

    private func place(_ number: Int, reservation: String, now: Double) throws {
        let order = tracked[number]
        let menu = menus[order.cafe] ?? []
        let first = menu.isEmpty ? "" : menu[number % menu.count]
        var items = [OrderItemRequest(itemId: first, quantity: 1)]
        if menu.count > 1, number % 2 == 0 { items.append(OrderItemRequest(itemId: menu[(number + 1) % menu.count], quantity: 1)) }
        let user = Self.user(runID: runID, phone: order.phone)
        let request = PlaceOrderRequest(idempotencyKey: "\(runID)-o\(number)", channel: .app, userId: user, deviceId: fleet.phones[order.phone].id,
                                        cafeId: order.cafe, reservationId: reservation, items: items,
                                        paymentToken: "tok_" + String(format: "lt%014d", number), locale: "en_US")
        try clients.orders(phone: order.phone).send(Wire.encode(Request(op: Op.orderPlace, id: "\(runID)-p\(number)", body: request)), context: .place(order: number), now: now)
    }

    private func bump(_ number: Int, ticket: String, now: Double) throws {
        try clients.kitchen(cafe: tracked[number].cafe).send(Wire.encode(Request(op: Op.kdsBump, id: "\(runID)-k\(number)", body: TicketCommand(ticketId: ticket))),
                         context: .bump(order: number, ticket: ticket), now: now)
    }

    /// A notification reached a phone: the end of an order's journey when it is that order's "ready".
    func notified(orderId: String, kind: NotificationKind, now: Double) {
        guard kind == .orderReady, let number = byOrderId[orderId], !tracked[number].finished else { return }
        tracked[number].finished = true
        tracked[number].stage = .done
        counts.notified += 1
        let order = tracked[number]
        guard order.intended >= measureFrom else { return }
        func µs(_ seconds: Double) -> UInt64 { UInt64(max(0, seconds * 1_000_000)) }
        latency.record(µs(now - order.intended))
        if let reserved = order.reserved, let placed = order.placed, let bumped = order.bumped {
            stages.reserve.record(µs(reserved - order.intended))
            stages.place.record(µs(placed - reserved))
            stages.kitchen.record(µs(bumped - placed))
            stages.ready.record(µs(now - bumped))
        }
    }

    /// A request sent again, unchanged (the same idempotency key for an order), after no reply came.
    func resent(_ step: Step) {
        switch step {
        case .reserve: counts.resent[Op.windowReserve, default: 0] += 1
        case .place: counts.resent[Op.orderPlace, default: 0] += 1
        case .bump(_, let ticket):
            counts.resent[Op.kdsBump, default: 0] += 1
            resentBumps.insert(ticket)
        }
    }

    /// A request that got no reply in time.
    func gaveUp(_ step: Step) {
        switch step {
        case .reserve(let number), .place(let number), .bump(let number, _):
            fail(number, code: ErrorCode.clientTimeout.rawValue)
        }
    }

    /// Orders started more than `timeout` ago and still unfinished are lost, by the stage they reached.
    func expire(now: Double) {
        for number in tracked.indices where !tracked[number].finished && now - tracked[number].intended > timeout {
            tracked[number].finished = true
            counts.lost += 1
            counts.lostAt[tracked[number].stage.rawValue, default: 0] += 1
        }
    }

    /// Gives up every unfinished order (the drain ran out of time).
    func expireAll() {
        for number in tracked.indices where !tracked[number].finished {
            tracked[number].finished = true
            counts.lost += 1
            counts.lostAt[tracked[number].stage.rawValue, default: 0] += 1
        }
    }

    private func fail(_ number: Int, code: String) {
        guard !tracked[number].finished else { return }
        tracked[number].finished = true
        tracked[number].stage = .failed
        counts.failed += 1
        counts.errors[code, default: 0] += 1
    }
}
