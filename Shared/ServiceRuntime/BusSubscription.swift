import Messages

/// A service's subscriptions to the bus, made when its Server subscribes: the prefixes it
/// listens to, the streams it applies exactly once, and who else watches what arrives. The host
/// reads their health and closes them; the Server subscribes through it.
///
/// A Server may subscribe more than once: each call is its own consumer (its own SUB socket,
/// stream follower and group commit) on the same reactor and database, so a stream that must
/// not wait (the kitchen's `ready`) is not queued behind thousands of region events a second on
/// one socket. The consumers' durable streams are disjoint: each stream's cursor has one owner.
public final class BusSubscription {
    /// Builds the consumer for prefixes and durable streams, with the handler (the host's parts);
    /// `first` is the service's first consumer, nil when this is it: a later one shares its
    /// cursors, and leaves the ledger of applied event ids (one table) to it to prune.
    typealias Make = (_ prefixes: [String], _ durableStreams: Set<String>, _ first: BusConsumer?,
                      _ handler: @escaping (String, Envelope) throws -> Void) throws -> BusConsumer

    private let make: Make
    /// Every consumer made, in the order `subscribe` was called.
    public private(set) var consumers: [BusConsumer] = []
    /// The first consumer, once `subscribe` has been called (the only one of most services).
    public var consumer: BusConsumer? { consumers.first }
    /// Observers registered before `subscribe` created the first consumer.
    private var earlyObservers: [(Envelope) -> Void] = []

    init(make: @escaping Make) { self.make = make }

    /// Subscribes to topic prefixes on the bus. Events of `durableStreams` are applied exactly
    /// once, in order, inside a transaction with the consumer's cursor; `handler` may `emit`.
    /// A second call makes a second consumer: its prefixes and durable streams must be new.
    @discardableResult
    public func subscribe(_ prefixes: [String], durableStreams: Set<String>, handler: @escaping (String, Envelope) throws -> Void) throws -> BusConsumer {
        for earlier in consumers {
            precondition(earlier.follower.durableStreams.isDisjoint(with: durableStreams), "a durable stream is followed by one consumer")
            precondition(Set(earlier.follower.prefixes).isDisjoint(with: prefixes), "a prefix is subscribed by one consumer")
        }
        let consumer = try make(prefixes, durableStreams, consumers.first, handler)
        if consumers.isEmpty {
            earlyObservers.forEach(consumer.onMessage)
            earlyObservers.removeAll()
        }
        consumers.append(consumer)
        return consumer
    }

    /// Calls `observer` with every message the first consumer receives (see `BusConsumer.onMessage`;
    /// every consumer hears every heartbeat, so watching one sees each once).
    public func onMessage(_ observer: @escaping (Envelope) -> Void) {
        if let consumer { consumer.onMessage(observer) } else { earlyObservers.append(observer) }
    }

    /// The last seq of `stream` from `source` this service has applied (0 before any).
    public func cursor(source: String, stream: String) -> UInt64 {
        let owner = consumers.first { $0.follower.durableStreams.contains(stream) } ?? consumer
        return owner?.follower.cursor(source: source, stream: stream) ?? 0
    }

    /// Every consumer's health keys in one set: counts summed, cursors and lags side by side (each
    /// stream has one consumer), a publisher's heartbeat age the youngest any consumer heard.
    public var healthDetails: [String: String] {
        guard consumers.count > 1 else { return consumer?.healthDetails ?? [:] }
        var details: [String: String] = [:]
        for consumer in consumers {
            details.merge(consumer.healthDetails) { old, new in
                if let a = UInt64(old), let b = UInt64(new) { return "\(a &+ b)" }
                if let a = Double(old), let b = Double(new) { return a <= b ? old : new }
                return new
            }
        }
        return details
    }

    /// Why a consumer is not keeping up (see `BusConsumer.degradedReasons`), each reason once.
    public var degradedReasons: [String] {
        var reasons: [String] = []
        for reason in consumers.flatMap(\.degradedReasons) where !reasons.contains(reason) { reasons.append(reason) }
        return reasons
    }

    /// Closes every consumer, on the owning thread.
    func close() {
        consumers.forEach { $0.close() }
    }
}
