/// What the bus judges of each subscriber's TCP connection from what the kernel says of it, so that
/// no one subscriber can make the bus hold or work without bound (issue 28): the bus cuts a
/// connection (and only that one) when
///
/// - **it stopped reading** (`slow`): bytes wait to be sent to it and it has acknowledged none of
///   them for `stalledSeconds` (5). A subscriber whose application stops reading fills its own
///   queue, then its kernel's receive buffer, then closes its TCP window: from then on nothing it
///   is sent is acknowledged. A live service's I/O thread reads its socket whatever its reactor
///   does, so only a peer that stopped reading (a `cafectl tail` piped into a pager) or a frozen
///   process stays there for seconds. Until the cut, what the bus holds for it is bounded in bytes
///   by its send high-water mark (`--subscriber-max-bytes`).
/// - **it sends more than subscriptions need** (`subscriptionFlood`): a subscriber sends the bus
///   nothing but subscription changes, which the budget allows at 100 at once then 10 a second of
///   at most 257 bytes each; bytes received beyond a burst of `inboundBurstBytes` (64 KiB) then
///   `inboundBytesPerSecond` (4 KiB) are a flood. libzmq records every subscription message a
///   connection sends (allowed or not, in its manual-mode trie) until the connection ends, so
///   cutting the connection is the only way to bound that work and memory.
///
/// Time is the caller's clock (`now`, seconds); the counters are the kernel's (`TCP_INFO`).
public struct SubscriberLinks: Sendable {
    /// Why a connection was cut (health key `subscribers.cut.<reason>`).
    public enum Cut: String, Sendable, CaseIterable {
        case slow, subscriptionFlood
    }

    public struct Limits: Sendable, Equatable {
        public var stalledSeconds = 5.0
        public var inboundBurstBytes = 65_536.0
        public var inboundBytesPerSecond = 4_096.0

        public init() {}
    }

    /// What the kernel says of one connection at one moment.
    public struct Sample: Sendable, Equatable {
        /// Bytes in the send queue: not yet sent, or sent and not yet acknowledged (`SIOCOUTQ`).
        public var queuedBytes: Int
        /// Bytes the peer has acknowledged since the connection began (`tcpi_bytes_acked`).
        public var ackedBytes: UInt64
        /// Bytes received from the peer since the connection began (`tcpi_bytes_received`).
        public var receivedBytes: UInt64

        public init(queuedBytes: Int, ackedBytes: UInt64, receivedBytes: UInt64) {
            self.queuedBytes = queuedBytes
            self.ackedBytes = ackedBytes
            self.receivedBytes = receivedBytes
        }
    }

    private struct Link {
        var acked: UInt64 = 0
        var received: UInt64 = 0
        /// When the connection last had nothing waiting or got an acknowledgement.
        var progressAt: Double
        var tokens: Double
        var at: Double
    }

    public let limits: Limits
    private var links: [Int: Link] = [:]

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// How many connections are watched.
    public var count: Int { links.count }

    /// A connection began (`id`: any number unique among the open ones, such as its descriptor).
    public mutating func opened(_ id: Int, now: Double) {
        links[id] = Link(progressAt: now, tokens: limits.inboundBurstBytes, at: now)
    }

    /// A connection ended.
    public mutating func closed(_ id: Int) {
        links[id] = nil
    }

    /// Judges `id` from `sample`: the reason to cut it, or nil. A cut connection is forgotten.
    public mutating func observe(_ id: Int, _ sample: Sample, now: Double) -> Cut? {
        guard var link = links[id] else { return nil }
        if sample.queuedBytes <= 0 || sample.ackedBytes != link.acked { link.progressAt = now }
        link.acked = sample.ackedBytes
        let received = sample.receivedBytes >= link.received ? sample.receivedBytes - link.received : 0
        link.received = max(link.received, sample.receivedBytes)
        link.tokens = min(limits.inboundBurstBytes, link.tokens + max(0, now - link.at) * limits.inboundBytesPerSecond) - Double(received)
        link.at = now
        let cut: Cut? = link.tokens < 0 ? .subscriptionFlood : now - link.progressAt >= limits.stalledSeconds ? .slow : nil
        links[id] = cut == nil ? link : nil
        return cut
    }
}
