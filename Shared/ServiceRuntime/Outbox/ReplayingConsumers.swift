import Messages

/// The consumers the outbox knows are behind: each that asked `replay` lately, with where its
/// last request started. Nothing at or past that seq is pruned while it is remembered, so a
/// consumer catching up on a long backlog is not overtaken by the replay window. A consumer is
/// forgotten `memorySeconds` after its last replay (one that caught up never asks again); a
/// consumer that is away is not known at all, and answered `replay.pruned` when it comes back
/// after the window. Bounded: at most `limit` consumer-streams, the longest silent forgotten first.
public struct ReplayingConsumers: Sendable {
    public static let memorySeconds = 600.0
    public static let limit = 1_000

    private struct Position: Sendable {
        var fromSeq: UInt64
        var at: Timestamp
    }

    private var positions: [String: Position] = [:]

    public init() {}

    /// `consumer` asked for `stream` from `fromSeq` at `now`.
    public mutating func note(stream: String, fromSeq: UInt64, consumer: String, now: Timestamp) {
        let key = consumer + "\u{0}" + stream
        if positions[key] == nil, positions.count >= Self.limit,
           let stalest = positions.min(by: { $0.value.at < $1.value.at })?.key {
            positions[stalest] = nil
        }
        positions[key] = Position(fromSeq: max(fromSeq, 1), at: now)
    }

    /// The lowest seq of `stream` a remembered consumer still needs (nil: none), after forgetting
    /// those silent for longer than `memorySeconds` before `now`.
    public mutating func floor(of stream: String, now: Timestamp) -> UInt64? {
        let forgetBefore = now.adding(seconds: -Self.memorySeconds)
        positions = positions.filter { $0.value.at >= forgetBefore }
        let suffix = "\u{0}" + stream
        return positions.filter { $0.key.hasSuffix(suffix) }.map(\.value.fromSeq).min()
    }

    /// How many consumer-streams are remembered (health).
    public var count: Int { positions.count }
}
