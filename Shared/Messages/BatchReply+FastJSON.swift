import Foundation

/// beacon-ingest's answer to a gateway's batch, written by hand when nothing was refused (the
/// normal case); one with refusals goes to JSONEncoder. Same bytes either way.
extension Reply: FastJSONEncodable where Body == IngestBatchResult {
    func fastEncoded() -> Data? {
        guard ok, error == nil, let body, body.results.allSatisfy({ $0.error == nil && $0.rejections.isEmpty }) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(64 + body.results.count * 72)
        func raw(_ text: StaticString) { out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)) }
        raw(#"{"body":{"accepted":"#)
        JSONText.appendInteger(Int64(body.accepted), to: &out)
        raw(#","rejected":"#)
        JSONText.appendInteger(Int64(body.rejected), to: &out)
        raw(#","results":["#)
        for (index, item) in body.results.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            raw(#"{"accepted":"#)
            JSONText.appendInteger(Int64(item.accepted), to: &out)
            raw(#","deviceId":"#)
            JSONText.appendQuoted(item.deviceId, to: &out)
            raw(#","rejected":"#)
            JSONText.appendInteger(Int64(item.rejected), to: &out)
            raw(#","rejections":[]}"#)
        }
        raw(#"]},"ok":true}"#)
        return Data(out)
    }
}
