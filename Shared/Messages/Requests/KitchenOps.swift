/// A station ticket's state on the kitchen screen.
///
/// new → inProgress → ready (bumped) → pickedUp; a bumped ticket may be recalled to inProgress
/// within the recall window. `cancelled` leaves the screen with a mark; `noShow` leaves it quietly.
public enum TicketState: String, Codable, Sendable, CaseIterable {
    case new, inProgress, ready, pickedUp, cancelled, noShow

    /// Still to be made at its station.
    public var isOpen: Bool { self == .new || self == .inProgress }
}

/// Whether an open ticket should be cooking yet: `hold` before its fire time (the screen counts
/// down), `fire` from then on. A chef may start a held ticket early.
public enum FiringState: String, Codable, Sendable, CaseIterable {
    case hold, fire
}

/// How long a ticket has waited, as the screen colours it.
public enum AgeColour: String, Codable, Sendable, CaseIterable {
    case green, yellow, red
}

/// `kds.tickets`: what the screen shows, optionally for one café or station.
public struct TicketsQuery: Codable, Sendable, Equatable {
    public var cafeId: String?
    public var station: String?
    /// Include ready, picked-up and cancelled tickets.
    public var includeDone: Bool?
    public init(cafeId: String? = nil, station: String? = nil, includeDone: Bool? = nil) {
        self.cafeId = cafeId
        self.station = station
        self.includeDone = includeDone
    }
}

/// `kds.start` / `kds.bump` / `kds.recall`: a chef acts on one ticket.
public struct TicketCommand: Codable, Sendable, Equatable {
    public var ticketId: String
    public init(ticketId: String) { self.ticketId = ticketId }
}

/// `kds.rush`: the expediter puts an order (all its tickets) ahead of the queue, or back.
public struct RushCommand: Codable, Sendable, Equatable {
    public var orderId: String
    /// False takes the rush off again.
    public var rush: Bool
    public init(orderId: String, rush: Bool = true) {
        self.orderId = orderId
        self.rush = rush
    }
}

/// `kds.orders`: the expediter's view, whole orders with each station's ticket.
public struct OrdersQuery: Codable, Sendable, Equatable {
    public var cafeId: String?
    /// Include picked-up, no-show and long-cancelled orders.
    public var includeDone: Bool?
    public init(cafeId: String? = nil, includeDone: Bool? = nil) {
        self.cafeId = cafeId
        self.includeDone = includeDone
    }
}

/// `kds.counts`: all-day counts, optionally for one café or station.
public struct CountsQuery: Codable, Sendable, Equatable {
    public var cafeId: String?
    public var station: String?
    public init(cafeId: String? = nil, station: String? = nil) {
        self.cafeId = cafeId
        self.station = station
    }
}

public struct TicketLine: Codable, Sendable, Equatable {
    public var name: String
    public var quantity: Int
    public var modifiers: [String]
    /// Seconds to make this line, from the order (nil on orders placed before prep times).
    public var prepSeconds: Int?
    /// The menu item (the screen's 86 key names it to order-service).
    public var itemId: String?
    public init(name: String, quantity: Int, modifiers: [String], prepSeconds: Int? = nil, itemId: String? = nil) {
        self.name = name
        self.quantity = quantity
        self.modifiers = modifiers
        self.prepSeconds = prepSeconds
        self.itemId = itemId
    }
}

public struct TicketView: Codable, Sendable, Equatable {
    public var ticketId: String
    public var orderId: String
    public var cafeId: String
    public var station: String
    public var state: TicketState
    public var lines: [TicketLine]
    public var pickupStart: Timestamp
    public var customerHere: Bool
    /// When the order reached the kitchen (the order event's time, so a replay gives the same).
    public var createdAt: Timestamp
    /// Put ahead of the queue by the expediter.
    public var rush: Bool
    /// When it was last bumped; the recall window runs from here.
    public var bumpedAt: Timestamp?
    /// When it was cancelled, picked up or marked no-show.
    public var closedAt: Timestamp?
    /// Seconds waited: until now while open, until the bump once bumped. Filled in replies.
    public var ageSeconds: Int?
    public var colour: AgeColour?
    /// The ticket's longest line prep time: it fires this long before the target.
    public var prepSeconds: Int?
    /// When the whole order should be ready (the kitchen's pacing).
    public var targetReadyAt: Timestamp?
    /// When this station should start: the target less `prepSeconds`.
    public var fireAt: Timestamp?
    /// `hold` before `fireAt`, `fire` from then (open tickets, in replies).
    public var firing: FiringState?
    /// Seconds until `fireAt` while held (the screen's countdown), in replies.
    public var holdSeconds: Int?
    /// The customer is in the café's approach area, on the way.
    public var arriving: Bool?
    /// order-service escalated the order: past its window and grace, not ready.
    public var overdue: Bool?

    public init(ticketId: String, orderId: String, cafeId: String, station: String, state: TicketState, lines: [TicketLine], pickupStart: Timestamp,
                customerHere: Bool, createdAt: Timestamp, rush: Bool = false, bumpedAt: Timestamp? = nil, closedAt: Timestamp? = nil,
                ageSeconds: Int? = nil, colour: AgeColour? = nil, prepSeconds: Int? = nil, targetReadyAt: Timestamp? = nil, fireAt: Timestamp? = nil,
                firing: FiringState? = nil, holdSeconds: Int? = nil, arriving: Bool? = nil, overdue: Bool? = nil) {
        self.ticketId = ticketId
        self.orderId = orderId
        self.cafeId = cafeId
        self.station = station
        self.state = state
        self.lines = lines
        self.pickupStart = pickupStart
        self.customerHere = customerHere
        self.createdAt = createdAt
        self.rush = rush
        self.bumpedAt = bumpedAt
        self.closedAt = closedAt
        self.ageSeconds = ageSeconds
        self.colour = colour
        self.prepSeconds = prepSeconds
        self.targetReadyAt = targetReadyAt
        self.fireAt = fireAt
        self.firing = firing
        self.holdSeconds = holdSeconds
        self.arriving = arriving
        self.overdue = overdue
    }
}

/// Whether one link of the kitchen is working, as the screen must show it.
public enum LinkState: String, Codable, Sendable, CaseIterable {
    /// Nothing heard yet since start.
    case connecting
    case up
    /// Heard, but behind the publisher's last seq: the queue is still being rebuilt.
    case catchingUp
    case down
}

/// The kitchen's links: the bus (messages come through it, its own heartbeat every second) and
/// order-service (its heartbeats and order events, and our cursor against its last seq).
public struct KitchenLink: Codable, Sendable, Equatable {
    public var bus: LinkState
    public var orderService: LinkState
    /// One line for the screen: empty when both are up.
    public var message: String
    public init(bus: LinkState, orderService: LinkState, message: String) {
        self.bus = bus
        self.orderService = orderService
        self.message = message
    }
}

public struct TicketsReply: Codable, Sendable, Equatable {
    public var tickets: [TicketView]
    public var link: KitchenLink
    public init(tickets: [TicketView], link: KitchenLink) {
        self.tickets = tickets
        self.link = link
    }
}

/// One whole order for the expediter: its station tickets and where it stands.
public struct ExpediterOrder: Codable, Sendable, Equatable {
    public var orderId: String
    public var cafeId: String
    /// `ready` when every station bumped; `inProgress` once any started or bumped; else `new`;
    /// or the closed state (`cancelled`, `pickedUp`, `noShow`).
    public var state: TicketState
    public var rush: Bool
    public var customerHere: Bool
    public var pickupStart: Timestamp
    public var createdAt: Timestamp
    public var ageSeconds: Int
    public var colour: AgeColour
    public var tickets: [TicketView]
    /// When every station should finish (the kitchen's pacing).
    public var targetReadyAt: Timestamp?
    /// The customer is in the café's approach area.
    public var arriving: Bool?
    /// Escalated by order-service: past its window and grace, not ready.
    public var overdue: Bool?
    public init(orderId: String, cafeId: String, state: TicketState, rush: Bool, customerHere: Bool, pickupStart: Timestamp, createdAt: Timestamp,
                ageSeconds: Int, colour: AgeColour, tickets: [TicketView], targetReadyAt: Timestamp? = nil, arriving: Bool? = nil, overdue: Bool? = nil) {
        self.orderId = orderId
        self.cafeId = cafeId
        self.state = state
        self.rush = rush
        self.customerHere = customerHere
        self.pickupStart = pickupStart
        self.createdAt = createdAt
        self.ageSeconds = ageSeconds
        self.colour = colour
        self.tickets = tickets
        self.targetReadyAt = targetReadyAt
        self.arriving = arriving
        self.overdue = overdue
    }
}

public struct OrdersReply: Codable, Sendable, Equatable {
    public var orders: [ExpediterOrder]
    public var link: KitchenLink
    public init(orders: [ExpediterOrder], link: KitchenLink) {
        self.orders = orders
        self.link = link
    }
}

/// How many of one item the open tickets still need ("all day").
public struct ItemCount: Codable, Sendable, Equatable {
    public var name: String
    public var station: String
    public var quantity: Int
    public init(name: String, station: String, quantity: Int) {
        self.name = name
        self.station = station
        self.quantity = quantity
    }
}

public struct CountsReply: Codable, Sendable, Equatable {
    public var counts: [ItemCount]
    public var link: KitchenLink
    public init(counts: [ItemCount], link: KitchenLink) {
        self.counts = counts
        self.link = link
    }
}
