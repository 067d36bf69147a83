/// `windows.list`: the next pickup windows of a café with what remains of each.
public struct WindowsRequest: Codable, Sendable, Equatable {
    public var cafeId: String
    public var locale: String
    /// How many windows (default 8, at most 96).
    public var count: Int?
    public init(cafeId: String, locale: String, count: Int? = nil) {
        self.cafeId = cafeId
        self.locale = locale
        self.count = count
    }
}

/// One pickup window: when it runs, its label for the user, and how many places remain.
public struct WindowView: Codable, Sendable, Equatable {
    public var start: Timestamp
    public var end: Timestamp
    /// Medium date, short time, in the café's zone and the user's locale.
    public var label: String
    public var capacity: Int
    public var remaining: Int
    public init(start: Timestamp, end: Timestamp, label: String, capacity: Int, remaining: Int) {
        self.start = start
        self.end = end
        self.label = label
        self.capacity = capacity
        self.remaining = remaining
    }
}

/// What `windows.list` answers.
public struct WindowsReply: Codable, Sendable, Equatable {
    public var cafeId: String
    public var windows: [WindowView]
    public init(cafeId: String, windows: [WindowView]) {
        self.cafeId = cafeId
        self.windows = windows
    }
}

/// `window.reserve`: hold one place in a window until an order uses it (or the hold expires).
public struct ReserveRequest: Codable, Sendable, Equatable {
    public var cafeId: String
    /// The window's start; left out: the next window with room.
    public var start: Timestamp?
    public var userId: String?
    public var locale: String
    public init(cafeId: String, start: Timestamp?, userId: String?, locale: String) {
        self.cafeId = cafeId
        self.start = start
        self.userId = userId
        self.locale = locale
    }
}

/// What `window.reserve` answers: the place held, in which window, until when.
public struct ReservationView: Codable, Sendable, Equatable {
    public var reservationId: String
    public var cafeId: String
    public var window: WindowView
    public var expiresAt: Timestamp
    public init(reservationId: String, cafeId: String, window: WindowView, expiresAt: Timestamp) {
        self.reservationId = reservationId
        self.cafeId = cafeId
        self.window = window
        self.expiresAt = expiresAt
    }
}
