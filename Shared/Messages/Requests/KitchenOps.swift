/// A station ticket's state on the kitchen screen.
public enum TicketState: String, Codable, Sendable, CaseIterable {
    case new, inProgress, ready, pickedUp, cancelled
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

/// `kds.start` / `kds.bump`: a chef acts on one ticket.
public struct TicketCommand: Codable, Sendable, Equatable {
    public var ticketId: String
    public init(ticketId: String) { self.ticketId = ticketId }
}

public struct TicketLine: Codable, Sendable, Equatable {
    public var name: String
    public var quantity: Int
    public var modifiers: [String]
    public init(name: String, quantity: Int, modifiers: [String]) {
        self.name = name
        self.quantity = quantity
        self.modifiers = modifiers
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
    public var createdAt: Timestamp
    public init(ticketId: String, orderId: String, cafeId: String, station: String, state: TicketState, lines: [TicketLine], pickupStart: Timestamp, customerHere: Bool, createdAt: Timestamp) {
        self.ticketId = ticketId
        self.orderId = orderId
        self.cafeId = cafeId
        self.station = station
        self.state = state
        self.lines = lines
        self.pickupStart = pickupStart
        self.customerHere = customerHere
        self.createdAt = createdAt
    }
}

public struct TicketsReply: Codable, Sendable, Equatable {
    public var tickets: [TicketView]
    public init(tickets: [TicketView]) { self.tickets = tickets }
}
