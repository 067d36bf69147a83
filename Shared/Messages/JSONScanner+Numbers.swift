/// Numbers, as JSON writes them and as Foundation reads them.
extension JSONScanner {
    /// An integer written without fraction or exponent (and, as JSON says, without leading zeros).
    /// Foundation also reads `1e2` or `100.0` into an integer field; those give up and it decides.
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

    /// An integer that fits an `Int`.
    mutating func int() -> Int? {
        integer().flatMap { Int(exactly: $0) }
    }

    /// A JSON number, as a Double. Gives up on what JSON does not allow ("01", "1.", ".5", "+1"),
    /// on digits that do not fit a Double (overflow to infinity, underflow to 0), which Foundation
    /// refuses too, and on a zero written with an exponent, where Foundation is erratic ("0e5" and
    /// "-0.0e5" refused, "-0e5" and "0.0e5" read).
    mutating func number() -> Double? {
        skipSpace()
        let start = position
        guard let scanned = scanNumber() else { return nil }
        let text = UnsafeRawBufferPointer(rebasing: bytes[start..<position])
        if !scanned.exponent, let value = Self.shortDecimal(text) { return value }
        guard let value = Double(String(decoding: text, as: UTF8.self)),
              value.isFinite, value != 0 || !(scanned.significant || scanned.exponent)
        else { return nil }
        return value
    }

    /// A decimal without an exponent whose digits fit 2^53, with at most 22 after the point
    /// ("1.41", "-63.4", "12"), as an exact integer divided by an exact power of ten: one correctly
    /// rounded division, so the same Double strtod gives (Clinger's fast path) without making a
    /// String and parsing it again. Nil for any other number, which takes strtod's way.
    static func shortDecimal(_ text: UnsafeRawBufferPointer) -> Double? {
        var index = 0, negative = false
        if index < text.count, text[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        var mantissa: UInt64 = 0, digits = 0, fraction = 0, afterPoint = false
        while index < text.count {
            let byte = text[index]
            index += 1
            if byte == UInt8(ascii: ".") {
                afterPoint = true
                continue
            }
            if afterPoint { fraction += 1 }
            // Leading zeros are not digits of the mantissa.
            if mantissa == 0 && byte == UInt8(ascii: "0") { continue }
            digits += 1
            guard digits <= 16 else { return nil }
            mantissa = mantissa * 10 + UInt64(byte &- UInt8(ascii: "0"))
        }
        guard mantissa <= 1 << 53, fraction < exactPowersOfTen.count else { return nil }
        let value = Double(mantissa) / exactPowersOfTen[fraction]
        return negative ? -value : value
    }

    /// 10^0 … 10^22: every one exact in a Double.
    static let exactPowersOfTen: [Double] = (0...22).map { exponent in (0..<exponent).reduce(1.0) { value, _ in value * 10 } }

    /// Consumes a number as JSON writes it: "-"?, an integer part without leading zeros, an
    /// optional fraction and an optional exponent. Nil when the text is not one.
    mutating func scanNumber() -> (exponent: Bool, significant: Bool)? {
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
}
