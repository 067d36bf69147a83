/// A small, strict JSON reader over UTF-8 bytes for the hot path (sightings): no Foundation, no
/// intermediate tree. It reads one object's fields in order; anything it does not expect makes
/// it give up (nil), and the caller falls back to Foundation's decoder, which then either decodes
/// or produces the precise, typed error. So it can only be faster, never more lenient.
struct JSONScanner {
    private let bytes: UnsafeRawBufferPointer
    private(set) var position = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    var atEnd: Bool {
        mutating get {
            skipSpace()
            return position == bytes.count
        }
    }

    private mutating func skipSpace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// Consumes `byte` (after whitespace) or fails.
    mutating func expect(_ byte: UInt8) -> Bool {
        skipSpace()
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// The next non-space byte, not consumed.
    mutating func peek() -> UInt8? {
        skipSpace()
        return position < bytes.count ? bytes[position] : nil
    }

    /// Iterates an object's members: calls `member` with each key; it must consume the value.
    mutating func object(_ member: (inout JSONScanner, String) -> Bool) -> Bool {
        guard expect(UInt8(ascii: "{")) else { return false }
        if peek() == UInt8(ascii: "}") {
            position += 1
            return true
        }
        while true {
            guard let key = string(), expect(UInt8(ascii: ":")), member(&self, key) else { return false }
            if expect(UInt8(ascii: ",")) { continue }
            return expect(UInt8(ascii: "}"))
        }
    }

    /// A string; escapes other than \" \\ \/ \n \t \r \b \f \uXXXX (BMP, no surrogates) give up,
    /// and so do bytes that are not UTF-8 (Foundation refuses them rather than repair them).
    mutating func string() -> String? {
        guard expect(UInt8(ascii: "\"")) else { return nil }
        let start = position
        var plain = true
        var ascii = true
        while position < bytes.count {
            let b = bytes[position]
            if b == UInt8(ascii: "\"") {
                defer { position += 1 }
                let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<position])
                if !plain { return Self.unescape(slice) }
                // ASCII is UTF-8 as it stands; only other text pays for validation.
                return ascii ? String(decoding: slice, as: UTF8.self) : String(validating: slice, as: UTF8.self)
            }
            if b == UInt8(ascii: "\\") {
                plain = false
                position += 2
                continue
            }
            if b < 0x20 { return nil }
            ascii = ascii && b < 0x80
            position += 1
        }
        return nil
    }

    private static func unescape(_ slice: UnsafeRawBufferPointer) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(slice.count)
        var i = 0
        while i < slice.count {
            let b = slice[i]
            guard b == UInt8(ascii: "\\") else {
                out.append(b)
                i += 1
                continue
            }
            guard i + 1 < slice.count else { return nil }
            switch slice[i + 1] {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "u"):
                guard i + 6 <= slice.count, let code = UInt32(String(decoding: UnsafeRawBufferPointer(rebasing: slice[(i + 2)..<(i + 6)]), as: UTF8.self), radix: 16),
                      let scalar = Unicode.Scalar(code)
                else { return nil }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
                i += 6
                continue
            default: return nil
            }
            i += 2
        }
        return String(validating: out, as: UTF8.self)
    }

    /// An integer written without fraction or exponent (and, as JSON says, without leading zeros).
    mutating func integer() -> Int64? {
        skipSpace()
        var negative = false
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") {
            negative = true
            position += 1
        }
        let start = position
        var value: Int64 = 0
        while position < bytes.count, bytes[position] >= 0x30, bytes[position] <= 0x39 {
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int64(bytes[position] - 0x30))
            if o1 || o2 { return nil }
            value = a
            position += 1
        }
        guard position > start, position - start == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        if position < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[position]) { return nil }
        return negative ? -value : value
    }

    /// A JSON number, as a Double. Gives up on what JSON does not allow ("01", "1.", ".5", "+1"),
    /// on digits that do not fit a Double (overflow to infinity, underflow to 0), which Foundation
    /// refuses too, and on a zero written with an exponent, where Foundation is erratic ("0e5" and
    /// "-0.0e5" refused, "-0e5" and "0.0e5" read).
    mutating func number() -> Double? {
        skipSpace()
        let start = position
        guard let scanned = scanNumber(),
              let value = Double(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)),
              value.isFinite, value != 0 || !(scanned.significant || scanned.exponent)
        else { return nil }
        return value
    }

    /// Consumes a number as JSON writes it: "-"?, an integer part without leading zeros, an
    /// optional fraction and an optional exponent. Nil when the text is not one.
    private mutating func scanNumber() -> (exponent: Bool, significant: Bool)? {
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        let integral = position
        var significant = skipDigits()
        guard position > integral, position - integral == 1 || bytes[integral] != UInt8(ascii: "0") else { return nil }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            let fraction = position
            significant = skipDigits() || significant
            guard position > fraction else { return nil }
        }
        guard position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") else {
            return (false, significant)
        }
        position += 1
        if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
        let exponent = position
        _ = skipDigits()
        return position > exponent ? (true, significant) : nil
    }

    /// Skips decimal digits; whether any of them was not 0.
    private mutating func skipDigits() -> Bool {
        var significant = false
        while position < bytes.count, bytes[position] >= 0x30, bytes[position] <= 0x39 {
            significant = significant || bytes[position] != 0x30
            position += 1
        }
        return significant
    }

    /// `true` or `false`.
    mutating func bool() -> Bool? {
        switch peek() {
        case UInt8(ascii: "t"): return literal("true") ? true : nil
        case UInt8(ascii: "f"): return literal("false") ? false : nil
        default: return nil
        }
    }

    /// Iterates an array's elements: `element` must consume each one.
    mutating func array(_ element: (inout JSONScanner) -> Bool) -> Bool {
        guard expect(UInt8(ascii: "[")) else { return false }
        if peek() == UInt8(ascii: "]") {
            position += 1
            return true
        }
        while true {
            guard element(&self) else { return false }
            if expect(UInt8(ascii: ",")) { continue }
            return expect(UInt8(ascii: "]"))
        }
    }

    /// Skips a string without building it.
    private mutating func skipString() -> Bool {
        guard expect(UInt8(ascii: "\"")) else { return false }
        while position < bytes.count {
            let b = bytes[position]
            if b == UInt8(ascii: "\"") {
                position += 1
                return true
            }
            if b < 0x20 { return false }
            position += b == UInt8(ascii: "\\") ? 2 : 1
        }
        return false
    }

    /// Skips any value (for members the reader does not use).
    mutating func skipValue() -> Bool {
        switch peek() {
        case UInt8(ascii: "\""): return skipString()
        case UInt8(ascii: "{"):
            // Keys are skipped without building strings too.
            position += 1
            if peek() == UInt8(ascii: "}") {
                position += 1
                return true
            }
            while true {
                guard skipString(), expect(UInt8(ascii: ":")), skipValue() else { return false }
                if expect(UInt8(ascii: ",")) { continue }
                return expect(UInt8(ascii: "}"))
            }
        case UInt8(ascii: "["):
            position += 1
            if peek() == UInt8(ascii: "]") {
                position += 1
                return true
            }
            while true {
                guard skipValue() else { return false }
                if expect(UInt8(ascii: ",")) { continue }
                return expect(UInt8(ascii: "]"))
            }
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        case .some: return scanNumber() != nil
        case .none: return false
        }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        for i in 0..<count where bytes[position + i] != word.utf8Start[i] { return false }
        position += count
        return true
    }
}
