import Foundation

/// Where a reply frame's parts lie, read without building it: the HTTP edge passes a reply's
/// body to its client byte for byte, so it needs only `ok` and the span of `body`. Building the
/// whole reply with JSONSerialization to find them was a quarter of the edge's CPU on a menu.
public struct ReplyLayout: Sendable, Equatable {
    public let ok: Bool
    /// The offsets (from the frame's first byte) of the `body` member's value; nil when absent.
    public let body: Range<Int>?
}

extension Wire {
    /// The layout of `frame` when it is one strictly valid JSON object, in UTF-8, with a boolean
    /// `ok` and no member name given twice anywhere (the strict scanner the request paths use); nil for
    /// anything else, which the caller then reads the slow way, where the error is worded.
    public static func replyLayout(_ frame: Data) -> ReplyLayout? {
        frame.withUnsafeBytes { raw -> ReplyLayout? in
            // The scanner passes bytes above 0x7F in strings as they are; a client must get UTF-8.
            guard !raw.contains(where: { $0 >= 0x80 }) || String(validating: raw, as: UTF8.self) != nil else { return nil }
            // Nor does it judge the escapes of the strings it skips, nor the size of the numbers: a
            // reply with any escape other than JSON's, a surrogate escape (`\uD800`–`\uDFFF`,
            // paired or not), an exponent or a number of more than 17 digits is Foundation's.
            guard Self.plainText(raw) else { return nil }
            var scanner = JSONScanner(raw)
            var ok: Bool?
            var body: Range<Int>?
            let read = scanner.object { sc, key in
                switch key {
                case "ok":
                    guard ok == nil, let value = sc.bool() else { return false }
                    ok = value
                    return true
                case "body":
                    guard body == nil else { return false }
                    sc.skipSpace()
                    let start = sc.position
                    guard sc.skipValue() else { return false }
                    body = start..<sc.position
                    return true
                default:
                    return nil
                }
            }
            guard read, scanner.atEnd, let ok else { return nil }
            return ReplyLayout(ok: ok, body: body)
        }
    }

    /// Whether every escape in `bytes`' strings is one of JSON's (`\u` with four hex digits that are
    /// no surrogate), and every number outside them is at most 17 digits with no exponent (what the
    /// services write; 1e400 is a number the scanner skips and Foundation refuses).
    static func plainText(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var i = 0, inString = false, digits = 0
        while i < bytes.count {
            let b = bytes[i]
            if !inString {
                if b == UInt8(ascii: "\"") {
                    inString = true
                    digits = 0
                } else if b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") {
                    digits += 1
                    if digits > 17 { return false }
                } else if b == UInt8(ascii: "e") || b == UInt8(ascii: "E") {
                    // Outside strings only `true`, `false` and exponents have an e.
                    if digits > 0 { return false }
                } else if b != UInt8(ascii: ".") && b != UInt8(ascii: "-") && b != UInt8(ascii: "+") {
                    digits = 0
                }
                i += 1
                continue
            }
            if b == UInt8(ascii: "\"") {
                inString = false
                i += 1
                continue
            }
            guard b == UInt8(ascii: "\\") else {
                i += 1
                continue
            }
            guard i + 1 < bytes.count else { return false }
            switch bytes[i + 1] {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                 UInt8(ascii: "r"), UInt8(ascii: "t"):
                i += 2
            case UInt8(ascii: "u"):
                guard i + 6 <= bytes.count else { return false }
                var value = 0
                for j in (i + 2)..<(i + 6) {
                    let c = bytes[j] | 0x20
                    if bytes[j] >= UInt8(ascii: "0") && bytes[j] <= UInt8(ascii: "9") {
                        value = value << 4 | Int(bytes[j] - UInt8(ascii: "0"))
                    } else if c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f") {
                        value = value << 4 | Int(c - UInt8(ascii: "a") + 10)
                    } else {
                        return false
                    }
                }
                if value >= 0xD800 && value <= 0xDFFF { return false }
                i += 6
            default:
                return false
            }
        }
        return true
    }
}
