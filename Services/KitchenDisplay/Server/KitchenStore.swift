import Foundation
import KitchenCore
import Messages
import SQLite

/// kitchen-display's SQL, all of it: the tickets table and its schema (and the applied event ids,
/// see `KitchenStore+SeenEvents.swift`). A row maps to a `Ticket` here and nowhere else.
public struct KitchenStore {
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
        Migration(2, """
            ALTER TABLE tickets ADD COLUMN rush INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE tickets ADD COLUMN bumped_ms INTEGER;
            ALTER TABLE tickets ADD COLUMN closed_ms INTEGER;
            CREATE TABLE seen_events (event_id TEXT PRIMARY KEY, at_ms INTEGER NOT NULL) WITHOUT ROWID;
            """),
        // Event ids are deduped once for every consumer, by the runtime's StreamFollower.
        Migration(3, "DROP TABLE seen_events;"),
        // Kitchen timing: each ticket's prep time, the order's target and the ticket's fire time
        // (nil on tickets made before: they fire at once), and the customer's approach and lateness.
        Migration(4, """
            ALTER TABLE tickets ADD COLUMN prep_s INTEGER;
            ALTER TABLE tickets ADD COLUMN target_ms INTEGER;
            ALTER TABLE tickets ADD COLUMN fire_ms INTEGER;
            ALTER TABLE tickets ADD COLUMN arriving INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE tickets ADD COLUMN overdue INTEGER NOT NULL DEFAULT 0;
            """),
        // Retention: closed tickets found by when they closed (KitchenStore+Retention).
        Migration(5, "CREATE INDEX tickets_closed ON tickets (closed_ms) WHERE closed_ms IS NOT NULL;"),
    ]

    let db: Database

    /// A store on the service's database (call `migrate()` before using it).
    public init(db: Database) { self.db = db }

    /// Brings the schema up to date.
    public func migrate() throws {
        try db.migrate("kitchen-display", Self.migrations)
    }

    /// Adds a ticket unless one with its id exists.
    public func insert(_ ticket: Ticket, at now: Timestamp) throws {
        try db.run("""
            INSERT INTO tickets (ticket_id, order_id, cafe_id, station, state, lines, pickup_start_ms, customer_here, created_ms, updated_ms, rush,
                                 prep_s, target_ms, fire_ms, arriving, overdue)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(ticket_id) DO NOTHING
            """, ticket.ticketId, ticket.orderId, ticket.cafeId, ticket.station, ticket.state.rawValue,
            String(decoding: Wire.encode(ticket.lines), as: UTF8.self), ticket.pickupStart.milliseconds, ticket.customerHere,
            ticket.createdAt.milliseconds, now.milliseconds, ticket.rush, ticket.prepSeconds.map(Int64.init), ticket.targetReadyAt?.milliseconds,
            ticket.fireAt?.milliseconds, ticket.arriving == true, ticket.overdue == true)
    }

    /// Writes a ticket's changeable fields.
    public func update(_ ticket: Ticket, at now: Timestamp) throws {
        try db.run("""
            UPDATE tickets SET state = ?, customer_here = ?, rush = ?, bumped_ms = ?, closed_ms = ?, updated_ms = ?,
                               target_ms = ?, fire_ms = ?, arriving = ?, overdue = ? WHERE ticket_id = ?
            """, ticket.state.rawValue, ticket.customerHere, ticket.rush, ticket.bumpedAt?.milliseconds, ticket.closedAt?.milliseconds,
            now.milliseconds, ticket.targetReadyAt?.milliseconds, ticket.fireAt?.milliseconds, ticket.arriving == true, ticket.overdue == true,
            ticket.ticketId)
    }

    /// One ticket by id.
    public func ticket(_ ticketId: String) throws -> Ticket? { try load("SELECT * FROM tickets WHERE ticket_id = ?", ticketId).first }

    /// Whether the ticket is here, without reading it.
    public func hasTicket(_ ticketId: String) throws -> Bool {
        try !db.query("SELECT 1 AS found FROM tickets WHERE ticket_id = ?", ticketId).isEmpty
    }

    /// Every ticket of an order, by station.
    public func tickets(ofOrder orderId: String) throws -> [Ticket] { try load("SELECT * FROM tickets WHERE order_id = ? ORDER BY station", orderId) }

    /// Tickets that may still be on a screen: open, bumped, or closed since `closedSince`.
    public func current(closedSince: Timestamp) throws -> [Ticket] {
        try load("SELECT * FROM tickets WHERE state IN ('new','inProgress','ready') OR closed_ms >= ? ORDER BY created_ms LIMIT 2000", closedSince.milliseconds)
    }

    /// Every ticket, newest last (bounded).
    public func all() throws -> [Ticket] { try load("SELECT * FROM tickets ORDER BY created_ms DESC LIMIT 2000").reversed() }

    /// New and in-progress tickets.
    public func openCount() throws -> Int {
        try db.query("SELECT COUNT(*) AS n FROM tickets WHERE state IN ('new','inProgress')").first?.int("n") ?? 0
    }

    private func load(_ sql: String, _ values: SQLiteBindable...) throws -> [Ticket] {
        let statement = try db.prepare(sql)
        try statement.bind(values)
        return try statement.rows().map { row in
            Ticket(ticketId: row.string("ticket_id"), orderId: row.string("order_id"), cafeId: row.string("cafe_id"), station: row.string("station"),
                   state: TicketState(rawValue: row.string("state")) ?? .new,
                   lines: try Wire.decodeStored([TicketLine].self, from: Data(row.string("lines").utf8)),
                   pickupStart: Timestamp(milliseconds: row.int64("pickup_start_ms")), customerHere: row.bool("customer_here"),
                   createdAt: Timestamp(milliseconds: row.int64("created_ms")), rush: row.bool("rush"),
                   bumpedAt: row.optionalInt64("bumped_ms").map(Timestamp.init(milliseconds:)),
                   closedAt: row.optionalInt64("closed_ms").map(Timestamp.init(milliseconds:)),
                   prepSeconds: row.optionalInt64("prep_s").map { Int($0) },
                   targetReadyAt: row.optionalInt64("target_ms").map(Timestamp.init(milliseconds:)),
                   fireAt: row.optionalInt64("fire_ms").map(Timestamp.init(milliseconds:)),
                   arriving: row.bool("arriving") ? true : nil, overdue: row.bool("overdue") ? true : nil)
        }
    }
}
