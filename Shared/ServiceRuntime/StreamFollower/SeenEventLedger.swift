/// How long a consumer remembers the ids of the events it applied (so an event that comes again
/// under another seq, or again after its publisher started over, is not applied twice): until one
/// publisher's replay window has surely passed. A consumer whose handling of a stream is
/// idempotent (it keeps the latest value, or marks something at most once) may keep no ids of it:
/// order-service's region stream, with thousands of events a second from walking phones, would
/// otherwise hold most of its disk in ids. Its events are then deduped by cursor alone.
public struct SeenEventLedger: Sendable, Equatable {
    /// Seconds an id is remembered.
    public var retentionSeconds: Double
    /// Streams whose ids are not recorded.
    public var unrecordedStreams: Set<String>

    public init(retentionSeconds: Double = StreamFollower.seenEventRetentionSeconds, unrecordedStreams: Set<String> = []) {
        self.retentionSeconds = retentionSeconds
        self.unrecordedStreams = unrecordedStreams
    }

    /// How long ids of `stream` are kept; nil when they are not recorded.
    public func retention(of stream: String) -> Double? {
        unrecordedStreams.contains(stream) ? nil : retentionSeconds
    }
}
