import Foundation

/// Reading parts of an envelope frame this process encoded, without decoding it.
public enum EnvelopeFrame {
    /// The bytes of the `body` value in a frame `Wire.encode` wrote (keys sorted, so `body`
    /// comes first): what a store keeps when it records the event it announced, so the event
    /// is encoded once. Nil when the frame does not start that way.
    public static func body(of frame: Data) -> Data? {
        let prefix = Array("{\"body\":".utf8)
        guard frame.count > prefix.count, frame.prefix(prefix.count).elementsEqual(prefix) else { return nil }
        return frame.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Data? in
            let bytes = raw.bindMemory(to: UInt8.self)
            var index = prefix.count
            guard let end = endOfValue(bytes, from: index) else { return nil }
            index = end
            return Data(bytes[prefix.count..<index])
        }
    }

    /// The index just past the JSON object, array or string starting at `start`.
    private static func endOfValue(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
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
