import Foundation

/// A reply body with a hand-written writer: what a success reply of it carries as `body`.
protocol FastJSONReplyBody {
    /// Appends this body's JSON as JSONEncoder writes it with sorted keys; false (leaving `out`
    /// to be thrown away) when JSONEncoder should write the reply instead.
    func appendReplyBody(to out: inout [UInt8]) -> Bool
}

/// A success reply whose body has a hand-written writer (`FastJSONReplyBody`): beacon-ingest's
/// answer to a gateway's batch, an order as order-service answers reserve-and-place with. Any
/// other reply, and every failure, goes to JSONEncoder. Same bytes either way.
extension Reply: FastJSONEncodable {
    func fastEncoded() -> Data? {
        guard ok, error == nil, let body = body as? any FastJSONReplyBody else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(2_048)
        out.append(contentsOf: Array(#"{"body":"#.utf8))
        guard body.appendReplyBody(to: &out) else { return nil }
        out.append(contentsOf: Array(#","ok":true}"#.utf8))
        return Data(out)
    }
}

/// beacon-ingest's answer to a gateway's batch, written by hand when nothing was refused (the
/// normal case); one with refusals goes to JSONEncoder.
extension IngestBatchResult: FastJSONReplyBody {
    func appendReplyBody(to out: inout [UInt8]) -> Bool {
        guard results.allSatisfy({ $0.error == nil && $0.rejections.isEmpty }) else { return false }
        out.reserveCapacity(out.count + 64 + results.count * 72)
        func raw(_ text: StaticString) { out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)) }
        raw(#"{"accepted":"#)
        JSONText.appendInteger(Int64(accepted), to: &out)
        raw(#","rejected":"#)
        JSONText.appendInteger(Int64(rejected), to: &out)
        raw(#","results":["#)
        for (index, item) in results.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            raw(#"{"accepted":"#)
            JSONText.appendInteger(Int64(item.accepted), to: &out)
            raw(#","deviceId":"#)
            JSONText.appendQuoted(item.deviceId, to: &out)
            raw(#","rejected":"#)
            JSONText.appendInteger(Int64(item.rejected), to: &out)
            raw(#","rejections":[]}"#)
        }
        raw("]}")
        return true
    }
}
