import Foundation
@testable import Messages
import Testing

/// Numbers without an exponent are read by one exact division, not strtod: the two must never
/// give different Doubles, and what the short way does not take goes the long way.
@Suite("Short decimals: read without strtod, written without description's general algorithm, the same either way")
struct ShortDecimalTests {
    private func short(_ text: String) -> Double? {
        Array(text.utf8).withUnsafeBytes { JSONScanner.shortDecimal($0) }
    }

    private func scanned(_ text: String) -> Double? {
        Array(text.utf8).withUnsafeBytes { bytes in
            var scanner = JSONScanner(bytes)
            return scanner.number()
        }
    }

    @Test("fixed cases: signs, zeros, leading zeros in the fraction, the 2^53 and 10^22 edges")
    func fixedCases() {
        for text in ["0", "-0", "0.0", "-0.0", "1", "-1", "1.41", "-63.4", "0.05", "0.000001", "12345.6789", "37.33467", "-122.00898",
                     "9007199254740992", "900719925474099.2", "0.9007199254740992", "0.0000000000000000000001"] {
            let expected = Double(text)!
            let value = short(text)
            #expect(value != nil, "\(text) should take the short way")
            #expect(value?.bitPattern == expected.bitPattern, "\(text): \(String(describing: value)) against strtod's \(expected)")
            #expect(scanned(text)?.bitPattern == expected.bitPattern, "\(text) through the scanner")
        }
    }

    @Test("what the short way refuses: over 2^53, over 16 digits, over 22 after the point; the scanner still reads each as strtod does")
    func refused() {
        for text in ["9007199254740993", "1.0000000000000000000001", "1.4125375446227544", "12345678901234567", "0.00000000000000000000001", "123456789012345678901234"] {
            #expect(short(text) == nil, "\(text) must go strtod's way")
            #expect(scanned(text)?.bitPattern == Double(text)!.bitPattern, "\(text) through the scanner")
        }
        for text in ["1e5", "-2.5E-3"] {
            #expect(scanned(text)?.bitPattern == Double(text)!.bitPattern, "\(text) (an exponent) through the scanner")
        }
    }

    @Test("100,000 random decimals of 1 to 17 digits with 0 to 22 after the point: every one the same Double as strtod")
    func randomDecimals() {
        var random = XorShift(state: 0x2545_F491_4F6C_DD1D)
        func next() -> UInt64 { random.next() }
        var shortCount = 0
        for _ in 0..<100_000 {
            let digits = 1 + Int(next() % 17)
            var text = String(next() % 9 + 1)
            for _ in 1..<digits { text += String(next() % 10) }
            let point = Int(next() % 23)
            if point > 0 {
                if point >= text.count { text = "0." + String(repeating: "0", count: point - text.count) + text } else {
                    text.insert(".", at: text.index(text.endIndex, offsetBy: -point))
                }
            }
            if next() % 2 == 0 { text = "-" + text }
            let expected = Double(text)!
            if let value = short(text) {
                shortCount += 1
                #expect(value.bitPattern == expected.bitPattern, "\(text): \(value) against strtod's \(expected)")
            }
            #expect(scanned(text)?.bitPattern == expected.bitPattern, "\(text) through the scanner")
        }
        // Most of them are short enough: the test is not vacuous.
        #expect(shortCount > 50_000)
    }

    private func written(_ value: Double) -> String {
        var out: [UInt8] = []
        Envelope.appendNumber(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    @Test("writing: a value read from a decimal of one to three places is written as description writes it; any other value too")
    func writing() {
        var random = XorShift(state: 0x9E37_79B9_7F4A_7C15)
        func next() -> UInt64 { random.next() }
        var short = 0
        for _ in 0..<100_000 {
            let places = Int(next() % 4)
            let digits = Int64(next() % 2_000_000_000) - 1_000_000_000
            let value = Double(digits) / pow(10, Double(places))
            var out: [UInt8] = []
            if Envelope.appendShortDecimal(value, to: &out) {
                short += 1
                #expect(String(decoding: out, as: UTF8.self) == value.description, "\(value)")
            }
            let expected = value == value.rounded(.towardZero) && abs(value) < 1e15 ? String(Int64(value)) : value.description
            #expect(written(value) == expected, "\(value)")
            // And a value of no such decimal: the general way, the same text.
            let other = Double(bitPattern: next() >> 2)
            if other.isFinite {
                let expectedOther = other == other.rounded(.towardZero) && abs(other) < 1e15 ? String(Int64(other)) : other.description
                #expect(written(other) == expectedOther, "\(other)")
            }
        }
        #expect(short > 50_000)
        for (value, text) in [(1.41, "1.41"), (-63.4, "-63.4"), (0.001, "0.001"), (0.05, "0.05"), (3.999, "3.999"), (123.45, "123.45"),
                              (0.1 + 0.2, "0.30000000000000004"), (1e-7, "1e-07"), (98765.4321, "98765.4321"), (999_999_999.5, "999999999.5")] {
            #expect(written(value) == text)
        }
    }

    /// Deterministic variety (xorshift64).
    private struct XorShift {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
    }
}
