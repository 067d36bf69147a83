import Foundation

/// Reading parts of an envelope frame this process encoded, without decoding it.
public enum EnvelopeFrame {
    /// The bytes of the `body` value in a frame `Wire.encode` wrote (keys sorted, so `body`
    /// comes first): what a store keeps when it records the event it announced, so the event
    /// is encoded once. Nil when the frame does not start that way.
    public static func body(of frame: Data) -> Data? {
        // Compared and copied as memory: `Data.prefix(_:).elementsEqual` and `Data(slice)` went
        // byte by byte through generic iterators (6,300 instructions of a first-seen device's
        // 150,000 in region-monitor, which keeps each nearest answer's body).
        frame.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Data? in
            let prefix = bodyPrefix.count
            guard raw.count > prefix, let base = raw.baseAddress,
                  bodyPrefix.withUnsafeBytes({ memcmp(base, $0.baseAddress!, prefix) }) == 0,
                  let end = endOfValue(raw.bindMemory(to: UInt8.self), from: prefix) else { return nil }
            return Data(bytes: base + prefix, count: end - prefix)
        }
    }

    private static let bodyPrefix: [UInt8] = Array("{\"body\":".utf8)

    /// The bytes of the member `key` of a JSON object this process encoded (an event body): the
    /// order snapshot inside an order event, to store as the event carried it. Nil when absent.
    public static func member(_ key: String, of object: Data) -> Data? {
        let wanted = Array("\"\(key)\":".utf8)
        return object.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Data? in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard bytes.first == UInt8(ascii: "{") else { return nil }
            var index = 1
            while index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                // A key, then its value; keys of our own types are plain words without escapes.
                guard let keyEnd = (index + 1..<bytes.count).first(where: { bytes[$0] == UInt8(ascii: "\"") }),
                      keyEnd + 1 < bytes.count, bytes[keyEnd + 1] == UInt8(ascii: ":"),
                      let valueEnd = endOfValue(bytes, from: keyEnd + 2) else { return nil }
                if keyEnd + 2 - index == wanted.count, bytes[index..<keyEnd + 2].elementsEqual(wanted) {
                    return Data(bytes: bytes.baseAddress! + keyEnd + 2, count: valueEnd - keyEnd - 2)
                }
                guard valueEnd < bytes.count, bytes[valueEnd] == UInt8(ascii: ",") else { return nil }
                index = valueEnd + 1
            }
            return nil
        }
    }

    /// The index just past the JSON value starting at `start`: an object, array or string, or a
    /// number or literal (which ends at the next `,`, `}` or `]`).
    private static func endOfValue(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        let first = bytes[start]
        if first != UInt8(ascii: "{"), first != UInt8(ascii: "["), first != UInt8(ascii: "\"") {
            var index = start
            while index < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]")].contains(bytes[index]) { index += 1 }
            return index > start ? index : nil
        }
        var depth = 0, index = start, inString = false
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if inString {
                if byte == UInt8(ascii: "\\") { index += 1 } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 0 { return index }
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return index }
                if depth < 0 { return nil }
            default: continue
            }
        }
        return nil
    }
}
