import Foundation
import Messages

/// The edge's side of one request to a service: the request frame an `EdgeCall` sends, and the
/// HTTP answer a reply frame becomes. The op body and the reply body pass through as bytes, so the
/// client reads exactly what the service wrote (numbers, escapes, members this build does not know).
public enum ServiceExchange {
    /// `{"op": …, "id": …, "onBehalfOf": …, "body": …}`: an `EdgeCall`'s op and body, with the
    /// edge's correlation id and the principal its session authenticated (left out when nil).
    public static func requestFrame(op: String, id: String, onBehalfOf principal: OnBehalfOf? = nil, body: [UInt8]) -> Data {
        var out: [UInt8] = Array(#"{"op":"#.utf8)
        JSONText.appendQuoted(op, to: &out)
        out.append(contentsOf: Array(#","id":"#.utf8))
        JSONText.appendQuoted(id, to: &out)
        if let principal {
            out.append(contentsOf: Array(#","onBehalfOf":"#.utf8))
            out.append(contentsOf: [UInt8](Wire.encode(principal)))
        }
        out.append(contentsOf: Array(#","body":"#.utf8))
        out.append(contentsOf: body)
        out.append(UInt8(ascii: "}"))
        return Data(out)
    }

    /// The answer for a service's reply: 200 with the reply's body, the problem of its error, or
    /// 502 (`message.malformed`) when the reply cannot be read. `service` names it in that detail.
    public static func response(toReply frame: Data, from service: String) -> EdgeResponse {
        // The common case read by the strict scanner, without building the reply: an ok reply's
        // body passed on as its bytes. Anything else takes the full read below.
        if let layout = Wire.replyLayout(frame), layout.ok, let body = layout.body,
           frame[frame.startIndex + body.lowerBound] == UInt8(ascii: "{") {
            return .json(Array(frame[(frame.startIndex + body.lowerBound)..<(frame.startIndex + body.upperBound)]))
        }
        let unreadable = Problem(.messageMalformed, "\(service) sent a reply the edge cannot read").response
        guard !Wire.nestsTooDeep(frame), let object = try? JSONSerialization.jsonObject(with: frame) as? [String: Any],
              let ok = object["ok"] as? Bool else { return unreadable }
        guard ok else {
            guard let reply = try? Wire.decodeReply(frame, body: Empty.self), let error = reply.error else { return unreadable }
            return Problem(error).response
        }
        guard let body = topLevelMember("body", of: [UInt8](frame)), body.first == UInt8(ascii: "{") else { return unreadable }
        return .json(Array(body))
    }

    /// The bytes of a top-level member's value in a JSON object already known to be valid: the
    /// members are walked at depth one, strings skipped with their escapes, brackets counted. A
    /// name is compared as written (the services write plain names).
    static func topLevelMember(_ name: String, of bytes: [UInt8]) -> ArraySlice<UInt8>? {
        let target = Array(name.utf8)
        var depth = 0, index = 0
        var expectingName = false
        var current: ArraySlice<UInt8>?
        var valueStart: Int?
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                let start = index + 1
                index = start
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") { index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1 }
                if depth == 1, expectingName {
                    current = bytes[start..<min(index, bytes.count)]
                    expectingName = false
                }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if depth == 0 { expectingName = true }
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0, let start = valueStart { return trimmed(bytes[start..<index]) }
            case UInt8(ascii: ",") where depth == 1:
                if let start = valueStart { return trimmed(bytes[start..<index]) }
                expectingName = true
                current = nil
            case UInt8(ascii: ":") where depth == 1:
                if let current, current.elementsEqual(target) { valueStart = index + 1 }
            default:
                break
            }
            index += 1
        }
        return nil
    }

    static func trimmed(_ slice: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let space: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        guard let first = slice.firstIndex(where: { !space.contains($0) }), let last = slice.lastIndex(where: { !space.contains($0) }) else { return [] }
        return slice[first...last]
    }
}
