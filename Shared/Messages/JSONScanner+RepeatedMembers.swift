import Foundation

/// Member names given twice, found for the generic route: Foundation keeps the first of a repeated
/// name without a word, and the platform refuses them on every route instead. The walk is as
/// lenient as Foundation is about values it does not decode (number text, escapes, trailing
/// commas), so it finds every object's names in any frame Foundation would accept.
extension JSONScanner {
    /// One step of a path to a member.
    enum PathElement {
        case key(String)
        case index(Int)
    }

    /// The path of the first member whose object already had its name (`body.reports[0].deviceId`),
    /// or nil when no name repeats or the frame is too broken to tell (Foundation then refuses it).
    static func repeatedMember(in frame: Data) -> String? {
        frame.withUnsafeBytes { raw -> String? in
            var scanner = JSONScanner(raw)
            // Foundation reads past a UTF-8 byte order mark.
            if raw.starts(with: [0xEF, 0xBB, 0xBF]) { scanner.position = 3 }
            var path: [PathElement] = []
            guard scanner.findRepeat(&path) == true else { return nil }
            return path.enumerated().map { offset, element in
                switch element {
                case .key(let key): offset == 0 ? key : ".\(key)"
                case .index(let index): "[\(index)]"
                }
            }.joined()
        }
    }

    /// true: a name repeats in this value and `path` leads to it; false: none does; nil: unreadable.
    private mutating func findRepeat(_ path: inout [PathElement]) -> Bool? {
        guard let next = peek() else { return nil }
        switch next {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard depth < Self.walkDepth else { return nil }
            depth += 1
            defer { depth -= 1 }
            position += 1
            return next == UInt8(ascii: "{") ? findRepeatInObject(&path) : findRepeatInArray(&path)
        case UInt8(ascii: "\""):
            return skipLooseString() ? false : nil
        default:
            // A number or a literal, read as loosely as Foundation skips it: up to the next delimiter.
            let start = position
            while position < bytes.count, !Self.delimiters.contains(bytes[position]) { position += 1 }
            return position > start ? false : nil
        }
    }

    /// Deeper than Foundation reads, so every frame it accepts is walked whole.
    private static let walkDepth = 513

    private static let delimiters: Set<UInt8> = Set(" \t\r\n,:[]{}\"".utf8)

    private mutating func findRepeatInObject(_ path: inout [PathElement]) -> Bool? {
        let base = names.count
        defer { if names.count > base { names.removeSubrange(base...) } }
        var index: Set<String>?
        while true {
            if expect(UInt8(ascii: "}")) { return false }
            guard peek() == UInt8(ascii: "\""), let key = looseKey(), expect(UInt8(ascii: ":")) else { return nil }
            path.append(.key(key))
            guard note(key, from: base, &index) else { return true }
            switch findRepeat(&path) {
            case true?: return true
            case nil: return nil
            case false?: path.removeLast()
            }
            // A trailing comma before the brace is tolerated, as Foundation tolerates it.
            if expect(UInt8(ascii: ",")) { continue }
            return expect(UInt8(ascii: "}")) ? false : nil
        }
    }

    private mutating func findRepeatInArray(_ path: inout [PathElement]) -> Bool? {
        var count = 0
        while true {
            if expect(UInt8(ascii: "]")) { return false }
            path.append(.index(count))
            switch findRepeat(&path) {
            case true?: return true
            case nil: return nil
            case false?: path.removeLast()
            }
            count += 1
            if expect(UInt8(ascii: ",")) { continue }
            return expect(UInt8(ascii: "]")) ? false : nil
        }
    }

    /// A member name as Foundation would compare it: escapes replaced, or as written when they are
    /// not valid (Foundation reads such a name only in an object it does not decode). Bytes that are
    /// not UTF-8 are repaired, so two such names may compare equal: only garbage can be refused so.
    private mutating func looseKey() -> String? {
        let start = position + 1
        guard skipLooseString() else { return nil }
        let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<(position - 1)])
        if slice.contains(UInt8(ascii: "\\")), let text = Self.unescape(slice) { return text }
        return String(decoding: slice, as: UTF8.self)
    }

    /// Skips a string up to its closing quote, control characters included (Foundation lets them
    /// through in the values it does not decode), its escapes delimited as Foundation delimits them.
    private mutating func skipLooseString() -> Bool {
        guard expect(UInt8(ascii: "\"")) else { return false }
        while position < bytes.count {
            let b = bytes[position]
            if b == UInt8(ascii: "\"") {
                position += 1
                return true
            }
            if b == UInt8(ascii: "\\") {
                guard let length = Self.escapeLength(bytes, at: position) else { return false }
                position += length
            } else {
                position += 1
            }
        }
        return false
    }
}
