/// `health`: every service (and the bus) answers it.
public struct HealthStatus: Codable, Sendable, Equatable {
    public var service: String
    public var instance: String
    /// "ok", or "degraded" with the reason in `details`.
    public var status: String
    public var uptimeSeconds: Double
    /// Last sequence number per durable stream this service publishes.
    public var streams: [String: UInt64]
    /// Events written but not yet published.
    public var outboxPending: Int
    public var details: [String: String]

    public init(service: String, instance: String, status: String, uptimeSeconds: Double, streams: [String: UInt64], outboxPending: Int, details: [String: String]) {
        self.service = service
        self.instance = instance
        self.status = status
        self.uptimeSeconds = uptimeSeconds
        self.streams = streams
        self.outboxPending = outboxPending
        self.details = details
    }
}

/// `replay`: "stream S from seq N" from a publisher's outbox (the Clone pattern's catch-up).
public struct ReplayRequest: Codable, Sendable, Equatable {
    public var stream: String
    public var fromSeq: UInt64
    /// At most this many events (the service caps it).
    public var limit: Int?

    public init(stream: String, fromSeq: UInt64, limit: Int? = nil) {
        self.stream = stream
        self.fromSeq = fromSeq
        self.limit = limit
    }

    enum CodingKeys: String, CodingKey { case stream, fromSeq, limit }

    /// `fromSeq` within `Envelope.seqRange`: the outbox compares it in SQL.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        stream = try c.decode(String.self, forKey: .stream)
        fromSeq = try c.decode(UInt64.self, forKey: .fromSeq, in: Envelope.seqRange)
        limit = try c.decodeIfPresent(Int.self, forKey: .limit)
    }
}

/// One event as it was published.
public struct ReplayedEvent: Codable, Sendable, Equatable {
    public var topic: String
    public var envelope: Envelope

    public init(topic: String, envelope: Envelope) {
        self.topic = topic
        self.envelope = envelope
    }
}

/// The events of `stream` from the requested seq, in order, and the stream's last seq.
public struct ReplayReply: Codable, Sendable, Equatable {
    public var stream: String
    public var lastSeq: UInt64
    public var events: [ReplayedEvent]

    public init(stream: String, lastSeq: UInt64, events: [ReplayedEvent]) {
        self.stream = stream
        self.lastSeq = lastSeq
        self.events = events
    }

    enum CodingKeys: String, CodingKey { case stream, lastSeq, events }

    /// `lastSeq` within `Envelope.seqRange`, as every seq a consumer stores.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        stream = try c.decode(String.self, forKey: .stream)
        lastSeq = try c.decode(UInt64.self, forKey: .lastSeq, in: Envelope.seqRange)
        events = try c.decode([ReplayedEvent].self, forKey: .events)
    }
}

/// Op names, one place for servers and clients.
public enum Op {
    public static let health = "health"
    public static let replay = "replay"
    public static let ingestReport = "ingest.report"
    public static let ingestBatch = "ingest.batch"
    public static let monitorList = "monitor.list"
    public static let monitorOpen = "monitor.open"
    public static let monitorClose = "monitor.close"
    public static let monitorAdd = "monitor.add"
    public static let monitorRemove = "monitor.remove"
    public static let monitorIdentifiers = "monitor.identifiers"
    public static let monitorRecord = "monitor.record"
    public static let nearestGet = "nearest.get"
    public static let locationConfirm = "location.confirm"
    public static let menuGet = "menu.get"
    public static let preferenceSet = "preference.set"
    public static let preferenceGet = "preference.get"
    public static let windowsList = "windows.list"
    public static let windowReserve = "window.reserve"
    public static let orderPlace = "order.place"
    public static let orderGet = "order.get"
    public static let orderCancel = "order.cancel"
    public static let orderPickup = "order.pickup"
    public static let orderHistory = "order.history"
    public static let orderClaim = "order.claim"
    public static let kdsTickets = "kds.tickets"
    public static let kdsStart = "kds.start"
    public static let kdsBump = "kds.bump"
    public static let deviceRegister = "device.register"
    public static let inboxList = "inbox.list"
    public static let reminderSet = "reminder.set"
    public static let reminderList = "reminder.list"
    public static let reminderCancel = "reminder.cancel"
    public static let kdsRecall = "kds.recall"
    public static let kdsRush = "kds.rush"
    public static let kdsOrders = "kds.orders"
    public static let kdsCounts = "kds.counts"
    public static let menuAvailabilitySet = "menu.availability.set"
    public static let catalogReload = "catalog.reload"
    public static let tokenIssue = "token.issue"
    public static let tokenList = "token.list"
    public static let tokenRevoke = "token.revoke"
    public static let backupStart = "backup.start"
    public static let backupRead = "backup.read"
}
