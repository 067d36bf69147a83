import Foundation

/// How deep arrays and objects may nest in a frame, checked before any parser that recurses sees
/// it: Foundation's decoder and the `JSONScanner` readers both descend one call per level, so a
/// frame of 100 000 nested arrays (200 KB, under the size limit) must never reach them. And the
/// repeated-name check, for documents that do not come through `Wire.decode`.
extension Wire {
    /// The deepest nesting any frame may have. The deepest real message, a replay reply carrying
    /// an order event, nests 10 levels (reply, body, events, event, envelope, body, order, lines,
    /// line, modifiers); 64 leaves room for any schema to come and costs nothing on the stack.
    public static let maxNestingDepth = 64

    /// Whether `frame` opens more than `limit` arrays and objects inside one another. One pass over
    /// the bytes that skips strings (escapes included) and never recurses. The brackets of a frame
    /// that is not JSON are counted all the same; a parser refuses that frame anyway.
    public static func nestsTooDeep(_ frame: Data, limit: Int = maxNestingDepth) -> Bool {
        frame.withUnsafeBytes { raw -> Bool in
            var depth = 0
            var index = 0
            let count = raw.count
            while index < count {
                switch raw[index] {
                case UInt8(ascii: "\""):
                    // Past the string, its escapes delimited as Foundation's parser delimits them
                    // (`\u` and four bytes, whatever they are; any other escape and one byte), so
                    // brackets it sees outside a string are counted here too.
                    index += 1
                    while index < count, raw[index] != UInt8(ascii: "\"") {
                        index += raw[index] != UInt8(ascii: "\\") ? 1 : index + 1 < count && raw[index + 1] == UInt8(ascii: "u") ? 6 : 2
                    }
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth += 1
                    if depth > limit { return true }
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    depth -= 1
                default:
                    break
                }
                index += 1
            }
            return false
        }
    }

    /// The path of the first member whose name its object already had (`cafes[1].id`), or nil: for
    /// documents read with Foundation's decoder directly (the campus catalog), which would keep
    /// the first of the two without a word.
    public static func repeatedMember(in document: Data) -> String? {
        JSONScanner.repeatedMember(in: document).map { Quoting.cut($0, limit: pathLimit) }
    }

    /// The refusal of a frame nested deeper than `maxNestingDepth`.
    static func nestingError(_ code: ErrorCode) -> WireError {
        WireError(code, "the document nests arrays and objects more than \(maxNestingDepth) levels deep")
    }
}
