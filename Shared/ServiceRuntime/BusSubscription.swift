import Messages

/// A service's one subscription to the bus, made when its Server subscribes: the prefixes it
/// listens to, the streams it applies exactly once, and who else watches what arrives. The host
/// reads its health and closes it; the Server subscribes through it.
public final class BusSubscription {
    /// Builds the consumer for prefixes and durable streams, with the handler (the host's parts).
    typealias Make = (_ prefixes: [String], _ durableStreams: Set<String>, _ handler: @escaping (String, Envelope) throws -> Void) throws -> BusConsumer

    private let make: Make
    /// The bus consumer, once `subscribe` has been called.
    public private(set) var consumer: BusConsumer?
    /// Observers registered before `subscribe` created the consumer.
    private var earlyObservers: [(Envelope) -> Void] = []

    init(make: @escaping Make) { self.make = make }

    /// Subscribes to topic prefixes on the bus. Events of `durableStreams` are applied exactly
    /// once, in order, inside a transaction with the consumer's cursor; `handler` may `emit`.
    public func subscribe(_ prefixes: [String], durableStreams: Set<String>, handler: @escaping (String, Envelope) throws -> Void) throws {
        precondition(consumer == nil, "subscribe once with every prefix")
        let consumer = try make(prefixes, durableStreams, handler)
        earlyObservers.forEach(consumer.onMessage)
        earlyObservers.removeAll()
        self.consumer = consumer
    }

    /// Calls `observer` with every message the subscription receives (see `BusConsumer.onMessage`).
    public func onMessage(_ observer: @escaping (Envelope) -> Void) {
        if let consumer { consumer.onMessage(observer) } else { earlyObservers.append(observer) }
    }

    /// The last seq of `stream` from `source` this service has applied (0 before any).
    public func cursor(source: String, stream: String) -> UInt64 {
        consumer?.follower.cursor(source: source, stream: stream) ?? 0
    }
}
