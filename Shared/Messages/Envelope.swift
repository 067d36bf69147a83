import Foundation

/// Every pub/sub message: `[topic][envelope]`, the envelope a JSON object with a typed body.
public struct Envelope: Codable, Sendable, Equatable {
    /// The schema version this build writes and reads.
    public static let currentVersion = 1

    public var v: Int
    public var type: EventType
    /// UUID; consumers dedupe on it.
    public var id: String
    /// The publishing instance ("order-service", "region-monitor-s1").
    public var source: String
    /// The publisher's stream; with `seq`, contiguous per (source, stream) for durable streams.
    public var stream: String
    public var seq: UInt64
    /// Every sequence number on the wire: stores keep them as SQLite INTEGER (Int64), so a larger
    /// one is refused where it is decoded (in envelopes, heartbeats, replay requests and replies).
    public static let seqRange: ClosedRange<UInt64> = 0...UInt64(Int64.max)
    public var time: Timestamp
    public var body: EventBody

    public init(type: EventType, id: String = UUID().uuidString.lowercased(), source: String, stream: String, seq: UInt64, time: Timestamp, body: EventBody) {
        precondition(type.accepts(body), "body does not match event type \(type.rawValue)")
        self.v = Self.currentVersion
        self.type = type
        self.id = id
        self.source = source
        self.stream = stream
        self.seq = seq
        self.time = time
        self.body = body
    }

    enum CodingKeys: String, CodingKey {
        case v, type, id, source, stream, seq, time, body
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        v = try c.decode(Int.self, forKey: .v)
        guard v == Self.currentVersion else {
            throw WireError(.unsupportedVersion, "envelope version \(v) is not supported (this build reads \(Self.currentVersion))")
        }
        let typeName = try c.decode(String.self, forKey: .type)
        guard let type = EventType(rawValue: typeName) else {
            throw WireError(.unknownType, "unknown event type \(Quoting.quoted(typeName))")
        }
        self.type = type
        id = try c.decode(String.self, forKey: .id)
        source = try c.decode(String.self, forKey: .source)
        stream = try c.decode(String.self, forKey: .stream)
        seq = try c.decode(UInt64.self, forKey: .seq, in: Self.seqRange)
        time = try c.decode(Timestamp.self, forKey: .time)
        body = try type.decodeBody(from: c, key: .body)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(v, forKey: .v)
        try c.encode(type.rawValue, forKey: .type)
        try c.encode(id, forKey: .id)
        try c.encode(source, forKey: .source)
        try c.encode(stream, forKey: .stream)
        try c.encode(seq, forKey: .seq)
        try c.encode(time, forKey: .time)
        try body.encode(into: &c, key: .body)
    }
}
