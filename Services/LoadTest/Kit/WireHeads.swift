import Foundation
import Messages

// The few fields the run reads from replies and events on its hot path: decoding only these is
// cheaper than the whole typed message, and the load generator must not be what limits a run.

/// The parts of an `ingest.batch` reply the hot path reads (the per-report results are skipped).
struct BatchReplyHead: Decodable {
    struct Body: Decodable {
        var accepted: Int
        var rejected: Int
    }

    var ok: Bool
    var body: Body?
    var error: ServiceError?
}

extension BatchReplyHead {
    private static let acceptedPrefix = Array(#"{"body":{"accepted":"#.utf8)
    private static let rejectedKey = Array(#","rejected":"#.utf8)
    private static let okSuffix = Array(#""ok":true}"#.utf8)

    /// The head of a reply beacon-ingest wrote by hand (nothing refused: `{"body":{"accepted":N,
    /// "rejected":M,…},"ok":true}`), read from its bytes; nil for any other reply, which goes to
    /// JSONDecoder. JSONDecoder parsing every result of every reply was a sixth of the generator's time.
    static func fast(_ reply: Data) -> BatchReplyHead? {
        reply.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> BatchReplyHead? in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard bytes.count > acceptedPrefix.count + okSuffix.count, bytes.starts(with: acceptedPrefix), bytes.suffix(okSuffix.count).elementsEqual(okSuffix) else { return nil }
            var index = acceptedPrefix.count
            func number() -> Int? {
                var value = 0, digits = 0
                while index < bytes.count, (48...57).contains(bytes[index]), digits < 12 {
                    value = value * 10 + Int(bytes[index] - 48)
                    index += 1
                    digits += 1
                }
                return digits > 0 ? value : nil
            }
            guard let accepted = number(), bytes[index...].starts(with: rejectedKey) else { return nil }
            index += rejectedKey.count
            guard let rejected = number() else { return nil }
            return BatchReplyHead(ok: true, body: Body(accepted: accepted, rejected: rejected), error: nil)
        }
    }
}

/// The parts of a `notify.delivery` envelope the run needs.
struct NotificationHead: Decodable {
    struct Body: Decodable {
        var orderId: String?
        var kind: String
    }

    var body: Body
}

/// The part of a `kitchen.paced` envelope the run needs: the order whose tickets the kitchen now shows.
struct KitchenPacedHead: Decodable {
    struct Body: Decodable {
        var orderId: String
    }

    var body: Body
}
