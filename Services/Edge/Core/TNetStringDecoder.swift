import Foundation

/// Reads one tnetstring, holding it to `TNetStringLimits` as it goes: the total size before
/// anything else, each length prefix against what is left (so a lying length never reads past
/// the input), each string, number, nesting level and element count where it is met. Only the
/// canonical form is read (no leading zeros in a length or an integer, no `-0`, a null of length
/// 0), so that encoding what was read gives the same bytes back.
public struct TNetStringDecoder: Sendable {
    public let limits: TNetStringLimits

    /// A decoder holding every input to `limits`.
    public init(limits: TNetStringLimits) {
        self.limits = limits
    }

    /// The one value `input` holds; bytes after it are refused.
    public func decode(_ input: Data) throws(TNetStringError) -> TNetString {
        try decode([UInt8](input))
    }

    /// The one value `input` holds; bytes after it are refused.
    public func decode(_ input: [UInt8]) throws(TNetStringError) -> TNetString {
        guard input.count <= limits.maxBytes else {
            throw TNetStringError(.tooLarge, "\(input.count) bytes; the limit is \(limits.maxBytes)", at: 0)
        }
        var reader = Reader(bytes: input, limits: limits)
        let (value, end) = try reader.value(at: 0, depth: 0)
        guard end == input.count else {
            throw TNetStringError(.malformed, "\(input.count - end) bytes after the value", at: end)
        }
        return value
    }

    private struct Reader {
        let bytes: [UInt8]
        let limits: TNetStringLimits
        var elements = 0

        init(bytes: [UInt8], limits: TNetStringLimits) {
            self.bytes = bytes
            self.limits = limits
        }

        /// The value starting at `start` and the index just past its tag.
        mutating func value(at start: Int, depth: Int) throws(TNetStringError) -> (TNetString, Int) {
            elements += 1
            guard elements <= limits.maxElements else {
                throw TNetStringError(.tooManyElements, "more than \(limits.maxElements) values", at: start)
            }
            let (length, dataStart) = try lengthPrefix(at: start)
            let tagIndex = dataStart + length
            guard tagIndex < bytes.count else {
                throw TNetStringError(.truncated, "a value of \(length) bytes runs past the end of the input", at: start)
            }
            let data = dataStart..<tagIndex
            let end = tagIndex + 1
            switch bytes[tagIndex] {
            case UInt8(ascii: ","):
                guard length <= limits.maxStringBytes else {
                    throw TNetStringError(.stringTooLong, "a string of \(length) bytes; the limit is \(limits.maxStringBytes)", at: start)
                }
                return (.bytes(Array(bytes[data])), end)
            case UInt8(ascii: "#"):
                return (.integer(try integer(data)), end)
            case UInt8(ascii: "^"):
                return (.float(try float(data)), end)
            case UInt8(ascii: "!"):
                if bytes[data].elementsEqual("true".utf8) { return (.bool(true), end) }
                if bytes[data].elementsEqual("false".utf8) { return (.bool(false), end) }
                throw TNetStringError(.invalidScalar, "a boolean is true or false", at: dataStart)
            case UInt8(ascii: "~"):
                guard length == 0 else { throw TNetStringError(.malformed, "a null has length 0, not \(length)", at: start) }
                return (.null, end)
            case UInt8(ascii: "]"):
                try enter(depth, at: start)
                var items: [TNetString] = []
                var at = data.lowerBound
                while at < data.upperBound {
                    let (item, next) = try inside(data, at: at, depth: depth + 1)
                    items.append(item)
                    at = next
                }
                return (.list(items), end)
            case UInt8(ascii: "}"):
                try enter(depth, at: start)
                var members: [(key: String, value: TNetString)] = []
                var keys = Set<String>()
                var at = data.lowerBound
                while at < data.upperBound {
                    let keyStart = at
                    let (key, valueStart) = try inside(data, at: at, depth: depth + 1)
                    guard case .bytes(let raw) = key, let text = String(validating: raw, as: UTF8.self) else {
                        throw TNetStringError(.invalidKey, "a dictionary key is a UTF-8 string, not a \(key.kind)", at: keyStart)
                    }
                    guard keys.insert(text).inserted else {
                        throw TNetStringError(.invalidKey, "key \(Self.quote(text)) is given twice", at: keyStart)
                    }
                    guard valueStart < data.upperBound else {
                        throw TNetStringError(.malformed, "key \(Self.quote(text)) has no value", at: keyStart)
                    }
                    let (member, next) = try inside(data, at: valueStart, depth: depth + 1)
                    members.append((text, member))
                    at = next
                }
                return (.dictionary(members), end)
            default:
                throw TNetStringError(.malformed, "unknown type tag 0x\(String(bytes[tagIndex], radix: 16))", at: tagIndex)
            }
        }

        /// A value inside a container's data, which it must not run past.
        mutating func inside(_ data: Range<Int>, at start: Int, depth: Int) throws(TNetStringError) -> (TNetString, Int) {
            let (length, dataStart) = try lengthPrefix(at: start)
            guard dataStart + length < data.upperBound else {
                throw TNetStringError(.malformed, "a value of \(length) bytes runs past the end of its container", at: start)
            }
            return try value(at: start, depth: depth)
        }

        func enter(_ depth: Int, at start: Int) throws(TNetStringError) {
            guard depth + 1 <= limits.maxDepth else {
                throw TNetStringError(.tooDeep, "lists and dictionaries nest more than \(limits.maxDepth) deep", at: start)
            }
        }

        /// `<digits>:`: the length and where the data starts. No sign, no leading zero, at most
        /// `maxNumberBytes` digits, and never more than the bytes left after the colon.
        func lengthPrefix(at start: Int) throws(TNetStringError) -> (Int, Int) {
            var length = 0
            var index = start
            while index < bytes.count, bytes[index] != UInt8(ascii: ":") {
                let byte = bytes[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                    throw TNetStringError(.malformed, "a length is decimal digits followed by ':'", at: index)
                }
                guard index - start < limits.maxNumberBytes else {
                    throw TNetStringError(.numberTooLong, "a length of more than \(limits.maxNumberBytes) digits", at: start)
                }
                let (times, overflow) = length.multipliedReportingOverflow(by: 10)
                guard !overflow, times <= bytes.count else {
                    throw TNetStringError(.truncated, "a length beyond the end of the input", at: start)
                }
                length = times + Int(byte - UInt8(ascii: "0"))
                index += 1
            }
            guard index < bytes.count else { throw TNetStringError(.truncated, "the input ends before a length's ':'", at: start) }
            guard index > start else { throw TNetStringError(.malformed, "a value starts with its length", at: start) }
            guard bytes[start] != UInt8(ascii: "0") || index == start + 1 else {
                throw TNetStringError(.malformed, "a length has no leading zero", at: start)
            }
            guard length < bytes.count - index else {
                throw TNetStringError(.truncated, "a value of \(length) bytes runs past the end of the input", at: start)
            }
            return (length, index + 1)
        }

        func integer(_ data: Range<Int>) throws(TNetStringError) -> Int64 {
            guard data.count <= limits.maxNumberBytes else {
                throw TNetStringError(.numberTooLong, "an integer of \(data.count) characters; the limit is \(limits.maxNumberBytes)", at: data.lowerBound)
            }
            let text = String(decoding: bytes[data], as: UTF8.self)
            let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
            guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                  digits == "0" ? text == "0" : !digits.hasPrefix("0"), let value = Int64(text) else {
                throw TNetStringError(.invalidScalar, "\(Self.quote(text)) is not an integer in 64 bits (no leading zero, no -0)", at: data.lowerBound)
            }
            return value
        }

        func float(_ data: Range<Int>) throws(TNetStringError) -> Double {
            guard data.count <= limits.maxNumberBytes * 2 else {
                throw TNetStringError(.numberTooLong, "a float of \(data.count) characters; the limit is \(limits.maxNumberBytes * 2)", at: data.lowerBound)
            }
            let text = String(decoding: bytes[data], as: UTF8.self)
            // Decimal notation only: Double("nan"), "inf" and hexadecimal floats are refused.
            guard text.utf8.allSatisfy({ ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || "+-.eE".utf8.contains($0) }),
                  text.utf8.contains(where: { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                  let value = Double(text), value.isFinite else {
                throw TNetStringError(.invalidScalar, "\(Self.quote(text)) is not a finite decimal number", at: data.lowerBound)
            }
            return value
        }

        static func quote(_ text: String) -> String {
            let cut = text.count > 64 ? String(text.prefix(64)) + "…" : text
            return "\"\(cut)\""
        }
    }
}
