import Foundation
import Messages

/// `order.place` under an idempotency key: a retry of the same request is answered with the
/// first reply; the same key for a different order is refused. Keys are kept 48 hours (clients
/// are promised 24).
public enum OrderIdempotency {
    /// How long a key and its reply are kept.
    public static let retentionSeconds = 48.0 * 3600

    /// The request as canonical JSON (sorted keys), to tell a retry from a different order.
    public static func canonical(_ request: PlaceOrderRequest) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(request)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// The stored reply to answer again when the key was used before for this same request;
    /// nil when the key is new (place the order).
    public static func replay(_ stored: IdempotencyRecord?, canonical: String) throws(ServiceError) -> Data? {
        guard let stored else { return nil }
        guard stored.request == canonical else {
            throw ServiceError(.idempotencyConflict, "idempotencyKey \(stored.key) was used for a different order")
        }
        return stored.reply
    }

    /// Keys created before this are forgotten.
    public static func cutoff(now: Timestamp) -> Timestamp { now.adding(seconds: -retentionSeconds) }
}

/// A placed order's reply, kept under the idempotency key of the request that placed it.
public struct IdempotencyRecord: Sendable, Equatable {
    public var key: String
    /// The request as `OrderIdempotency.canonical` wrote it.
    public var request: String
    /// The encoded reply.
    public var reply: Data
    public var createdAt: Timestamp

    public init(key: String, request: String, reply: Data, createdAt: Timestamp) {
        self.key = key
        self.request = request
        self.reply = reply
        self.createdAt = createdAt
    }
}
