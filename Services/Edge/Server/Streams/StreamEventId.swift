import EdgeCore
import Messages

/// An SSE event id: the event's `seq` on its bus stream (order-service's `order` stream for an
/// order's events, notification-service's `notify` stream for a device's), written in decimal.
/// One publisher numbers each stream contiguously and durably, so the ids of one channel increase
/// with every event, survive restarts of the edge and are the same from every edge instance
/// (Pushpin drops an item whose id it published on the channel in the last minute).
/// A client resumes with `Last-Event-ID`: the stream starts after that id.
public enum StreamEventId {
    /// Ids are SQLite integers: at most 2^63 − 1, 19 digits.
    public static let maxDigits = 19

    /// The id a client sent, or nil when it sent none; a problem (422) when it is not one of ours:
    /// 1–19 decimal digits, no sign, no leading zero, at most 2^63 − 1.
    public static func parse(_ text: String?) throws(Problem) -> UInt64? {
        guard let text else { return nil }
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= maxDigits, bytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              bytes.count == 1 || bytes[0] != UInt8(ascii: "0"),
              let value = UInt64(text), value <= UInt64(Int64.max)
        else {
            throw Problem(.invalidField, "header Last-Event-ID must be an event id this stream sent (1–19 digits), not \(Quoting.quoted(String(text.prefix(32))))")
        }
        return value
    }
}
