/// Skipping the values a reader does not use, as fast as the frame allows, while still refusing
/// a member name given twice in any object inside them.
extension JSONScanner {
    /// Skips any value, checking member names for repeats in the objects inside it.
    mutating func skipValue() -> Bool {
        switch peek() {
        case UInt8(ascii: "\""): return skipString()
        case UInt8(ascii: "{"): return skipObject()
        case UInt8(ascii: "["): return array { $0.skipValue() }
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        case .some: return scanNumber() != nil
        case .none: return false
        }
    }

    /// Skips an object. Plain names (printable ASCII, no escape) are compared by their bytes, their
    /// spans kept on the stack, without building strings; from the first name that is not plain,
    /// or past 16 members, every name so far goes into a set and is compared as text, as `object`
    /// compares them.
    private mutating func skipObject() -> Bool {
        guard expect(UInt8(ascii: "{")), depth < Self.maxDepth else { return false }
        if peek() == UInt8(ascii: "}") {
            position += 1
            return true
        }
        depth += 1
        defer { depth -= 1 }
        return withUnsafeTemporaryAllocation(of: (start: Int, count: Int).self, capacity: 16) { spans -> Bool in
            var count = 0
            var names: Set<String>?
            while true {
                guard expect(UInt8(ascii: "\"")) else { return false }
                let start = position
                if names == nil {
                    skipPlainText()
                    while position < bytes.count, bytes[position] >= 0x20, bytes[position] < 0x80,
                          bytes[position] != UInt8(ascii: "\""), bytes[position] != UInt8(ascii: "\\") {
                        position += 1
                    }
                }
                if names == nil, position < bytes.count, bytes[position] == UInt8(ascii: "\""), count < spans.count {
                    let length = position - start
                    position += 1
                    for i in 0..<count where spans[i].count == length {
                        var same = 0
                        while same < length, bytes[spans[i].start + same] == bytes[start + same] { same += 1 }
                        if same == length { return false }
                    }
                    spans[count] = (start, length)
                    count += 1
                } else {
                    if names == nil {
                        names = Set(spans[0..<count].map { String(decoding: UnsafeRawBufferPointer(rebasing: bytes[$0.start..<($0.start + $0.count)]), as: UTF8.self) })
                    }
                    position = start - 1
                    guard let key = key(), names!.insert(key.text).inserted else { return false }
                }
                guard expect(UInt8(ascii: ":")), skipValue() else { return false }
                if expect(UInt8(ascii: ",")) { continue }
                return expect(UInt8(ascii: "}"))
            }
        }
    }

    /// Moves past string content that needs no attention, eight bytes at a time while a whole word
    /// is printable ASCII without a quote or backslash; stops at the word holding anything else.
    @inline(__always)
    mutating func skipPlainText() {
        let ones: UInt64 = 0x0101_0101_0101_0101, high: UInt64 = 0x8080_8080_8080_8080
        while position + 8 <= bytes.count {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            // A byte equal to v makes word ^ (v × ones) hold a zero byte; (x - ones) & ~x & high
            // is non-zero exactly when x holds one, and (x - n × ones) & ~x & high when a byte is below n.
            let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
            let special = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word) | word
            if special & high != 0 { return }
            position += 8
        }
    }

    /// Skips a string without building it. Its escapes and bytes are not checked, as Foundation
    /// does not check the values it does not decode; but where it ends is found as Foundation
    /// finds it (`escapeLength`).
    mutating func skipString() -> Bool {
        guard expect(UInt8(ascii: "\"")) else { return false }
        while true {
            skipPlainText()
            guard position < bytes.count else { return false }
            let b = bytes[position]
            if b == UInt8(ascii: "\"") {
                position += 1
                return true
            }
            if b < 0x20 { return false }
            if b == UInt8(ascii: "\\") {
                guard let length = Self.escapeLength(bytes, at: position) else { return false }
                position += length
            } else {
                position += 1
            }
        }
    }

    /// The length of the escape starting with the backslash at `index`, as Foundation's parser
    /// delimits strings: `\u` takes the four bytes after it whatever they are (`"\uabc\"` is a
    /// string of six bytes, its quote not escaped), and is refused when one of them is a quote or
    /// the frame ends; any other escape takes one byte. Nil when Foundation refuses the escape.
    /// (Found by the `requests` fuzz target: `"\ud00"` in a skipped value was read here and refused there.)
    @inline(__always)
    static func escapeLength(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int? {
        guard index + 1 < bytes.count else { return nil }
        guard bytes[index + 1] == UInt8(ascii: "u") else { return 2 }
        guard index + 6 <= bytes.count else { return nil }
        for i in (index + 2)..<(index + 6) where bytes[i] == UInt8(ascii: "\"") { return nil }
        return 6
    }
}
