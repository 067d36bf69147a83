import Foundation
import KitchenCore
import Messages
import SQLite
import ServiceRuntime

/// The shell of kitchen-display: tickets in its own SQLite file, built from order events, changed
/// by chef commands, each change written with its kitchen event in one transaction.
final class KitchenService {
    static let migrations = [
        Migration(1, """
            CREATE TABLE tickets (
                ticket_id TEXT PRIMARY KEY,
                order_id TEXT NOT NULL,
                cafe_id TEXT NOT NULL,
                station TEXT NOT NULL,
                state TEXT NOT NULL,
                lines TEXT NOT NULL,
                pickup_start_ms INTEGER NOT NULL,
                customer_here INTEGER NOT NULL,
                created_ms INTEGER NOT NULL,
                updated_ms INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX tickets_order ON tickets (order_id);
            CREATE INDEX tickets_state ON tickets (state);
            """),
    ]

    private let host: ServiceHost
    private var db: Database { host.db }

    init(host: ServiceHost) {
        self.host = host
    }

    func start() throws {
        try db.migrate("kitchen-display", Self.migrations)
        try host.subscribe(["order."], durableStreams: ["order"]) { [unowned self] _, envelope in try self.consume(envelope) }
        host.router.on(Op.kdsTickets, TicketsQuery.self) { [unowned self] query in
            var tickets = try self.allTickets().filter {
                (query.cafeId == nil || $0.cafeId == query.cafeId) && (query.station == nil || $0.station == query.station)
            }
            if query.includeDone != true { tickets = tickets.filter { $0.state == .new || $0.state == .inProgress } }
            return TicketsReply(tickets: TicketBoard.sorted(tickets))
        }
        host.router.on(Op.kdsStart, TicketCommand.self) { [unowned self] in try self.command(.start, $0.ticketId) }
        host.router.on(Op.kdsBump, TicketCommand.self) { [unowned self] in try self.command(.bump, $0.ticketId) }
        host.addHealthDetails { [unowned self] in
            let open = (try? db.query("SELECT COUNT(*) AS n FROM tickets WHERE state IN ('new','inProgress')").first?.int("n")) ?? -1
            return ["tickets.open": "\(open)"]
        }
    }

    private func consume(_ envelope: Envelope) throws {
        guard case .order(let event) = envelope.body else { return }
        let order = event.order
        switch envelope.type {
        case .orderPlaced:
            for ticket in TicketBoard.tickets(for: order, at: host.clock.now()) {
                try db.run("""
                    INSERT INTO tickets (ticket_id, order_id, cafe_id, station, state, lines, pickup_start_ms, customer_here, created_ms, updated_ms)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(ticket_id) DO NOTHING
                    """, ticket.ticketId, ticket.orderId, ticket.cafeId, ticket.station, ticket.state.rawValue,
                    String(decoding: Wire.encode(ticket.lines), as: UTF8.self), ticket.pickupStart.milliseconds, ticket.customerHere,
                    ticket.createdAt.milliseconds, ticket.createdAt.milliseconds)
            }
        case .orderCancelled:
            try db.run("UPDATE tickets SET state = 'cancelled', updated_ms = ? WHERE order_id = ?", host.clock.now().milliseconds, order.orderId)
        case .orderReady:
            // A queue rebuilt from replay must not show as open what the kitchen already finished.
            try db.run("UPDATE tickets SET state = 'ready', updated_ms = ? WHERE order_id = ? AND state IN ('new','inProgress')", host.clock.now().milliseconds, order.orderId)
        case .orderPickedUp:
            try db.run("UPDATE tickets SET state = 'pickedUp', updated_ms = ? WHERE order_id = ?", host.clock.now().milliseconds, order.orderId)
        case .orderArrived:
            try db.run("UPDATE tickets SET customer_here = 1 WHERE order_id = ?", order.orderId)
        default:
            break
        }
    }

    private func command(_ command: TicketBoard.Command, _ ticketId: String) throws -> TicketView {
        try host.write {
            guard var ticket = try loadTickets("SELECT * FROM tickets WHERE ticket_id = ?", ticketId).first else {
                throw ServiceError(.unknownTicket, "no ticket \(ticketId.prefix(80))")
            }
            ticket.state = try TicketBoard.apply(command, to: ticket.state)
            let now = host.clock.now()
            try db.run("UPDATE tickets SET state = ?, updated_ms = ? WHERE ticket_id = ?", ticket.state.rawValue, now.milliseconds, ticketId)
            let event = KitchenEvent(orderId: ticket.orderId, cafeId: ticket.cafeId, ticketId: ticket.ticketId, station: ticket.station, at: now)
            switch command {
            case .start:
                try host.emit(.kitchenStarted, topic: Topic.kitchen(event: "started", cafe: ticket.cafeId), stream: "kitchen", .kitchen(event))
            case .bump:
                try host.emit(.kitchenBumped, topic: Topic.kitchen(event: "bumped", cafe: ticket.cafeId), stream: "kitchen", .kitchen(event))
                if TicketBoard.orderReady(try loadTickets("SELECT * FROM tickets WHERE order_id = ?", ticket.orderId)) {
                    try host.emit(.kitchenReady, topic: Topic.kitchen(event: "ready", cafe: ticket.cafeId), stream: "kitchen",
                                  .kitchen(KitchenEvent(orderId: ticket.orderId, cafeId: ticket.cafeId, ticketId: nil, station: nil, at: now)))
                }
            }
            return ticket
        }
    }

    private func allTickets() throws -> [Ticket] { try loadTickets("SELECT * FROM tickets WHERE state IN ('new','inProgress','ready') ORDER BY created_ms LIMIT 500") }

    private func loadTickets(_ sql: String, _ values: SQLiteBindable...) throws -> [Ticket] {
        let statement = try db.prepare(sql)
        try statement.bind(values.map(\.sqliteValue))
        return try statement.rows().map { row in
            Ticket(ticketId: row.string("ticket_id"), orderId: row.string("order_id"), cafeId: row.string("cafe_id"), station: row.string("station"),
                   state: TicketState(rawValue: row.string("state")) ?? .new,
                   lines: try JSONDecoder().decode([TicketLine].self, from: Data(row.string("lines").utf8)),
                   pickupStart: Timestamp(milliseconds: row.int64("pickup_start_ms")), customerHere: row.bool("customer_here"),
                   createdAt: Timestamp(milliseconds: row.int64("created_ms")))
        }
    }
}
