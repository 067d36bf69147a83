import Foundation

/// A moment in time with millisecond precision, written on the wire as RFC 3339 UTC
/// ("2026-11-21T12:34:56.789Z").
///
/// Hand-written formatting and parsing: exact, allocation-light, and identical on every platform
/// (Foundation's ISO 8601 styles differ in fractional handling between releases).
public struct Timestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }
    /// Truncates `date` to the millisecond.
    public init(_ date: Date) {
        // A whole millisecond is not exact in binary seconds, so the Date of one can sit a hair
        // below it; flooring that would give the millisecond before (Timestamp(t.date) != t).
        // Values within a few ulps of a whole millisecond are taken as that millisecond.
        let scaled = date.timeIntervalSince1970 * 1000
        let nearest = scaled.rounded()
        self.milliseconds = Int64(abs(scaled - nearest) <= max(1e-3, 8 * nearest.ulp) ? nearest : scaled.rounded(.down))
    }

    public var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.milliseconds < b.milliseconds }

    /// This moment moved by `seconds` (may be fractional or negative).
    public func adding(seconds: Double) -> Timestamp { Timestamp(milliseconds: milliseconds + Int64((seconds * 1000).rounded())) }

    /// Seconds from `other` to this moment.
    public func seconds(since other: Timestamp) -> Double { Double(milliseconds - other.milliseconds) / 1000 }

    public var rfc3339: String {
        let (days, msOfDay) = milliseconds.floorDivided(by: 86_400_000)
        let (y, m, d) = Self.civil(fromDays: days)
        let h = msOfDay / 3_600_000, mi = msOfDay / 60_000 % 60, s = msOfDay / 1000 % 60, ms = msOfDay % 1000
        func pad(_ v: Int64, _ width: Int) -> String {
            let text = String(v)
            return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(h, 2)):\(pad(mi, 2)):\(pad(s, 2)).\(pad(ms, 3))Z"
    }

    public var description: String { rfc3339 }

    /// Appends the RFC 3339 text as UTF-8 bytes without building a String (the sighting hot path).
    public func appendRFC3339(to out: inout [UInt8]) {
        let (days, msOfDay) = milliseconds.floorDivided(by: 86_400_000)
        let (y, m, d) = Self.civil(fromDays: days)
        // A year past 9999 (or before 0) does not fit four digits: written as a String does it.
        guard (0...9999).contains(y) else {
            out.append(contentsOf: Array(rfc3339.utf8))
            return
        }
        // Written into 24 bytes on the stack and appended once: a byte at a time, each append
        // checked the array's capacity and uniqueness (callgrind: 37% of encoding a sighting).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { text in
            func put(_ value: Int64, _ width: Int, at end: Int) {
                var v = value
                for index in stride(from: end - 1, through: end - width, by: -1) {
                    text[index] = UInt8(48 + v % 10)
                    v /= 10
                }
            }
            put(y, 4, at: 4); text[4] = 45; put(m, 2, at: 7); text[7] = 45; put(d, 2, at: 10); text[10] = 84
            put(msOfDay / 3_600_000, 2, at: 13); text[13] = 58; put(msOfDay / 60_000 % 60, 2, at: 16); text[16] = 58
            put(msOfDay / 1000 % 60, 2, at: 19); text[19] = 46; put(msOfDay % 1000, 3, at: 23); text[23] = 90
            out.append(contentsOf: UnsafeBufferPointer(text))
        }
    }

    /// Parses RFC 3339: date, "T", time, optional fraction (extra digits truncated to ms), "Z" or ±hh:mm.
    public init?(rfc3339 text: String) {
        var text = text
        guard let parsed = text.withUTF8({ Timestamp(rfc3339UTF8: UnsafeRawBufferPointer($0)) }) else { return nil }
        self = parsed
    }

    /// The same from UTF-8 bytes: a JSON string's content read in place (`JSONScanner.timestamp`),
    /// without a String and an array made for every time on the hot paths.
    init?(rfc3339UTF8 b: UnsafeRawBufferPointer) {
        func digits(_ at: Int, _ count: Int) -> Int64? {
            guard at + count <= b.count else { return nil }
            var v: Int64 = 0
            for i in at..<(at + count) {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                v = v * 10 + Int64(b[i] - 48)
            }
            return v
        }
        guard b.count >= 20,
              let y = digits(0, 4), b[4] == 45, let mo = digits(5, 2), b[7] == 45, let d = digits(8, 2),
              b[10] == 84 || b[10] == 116, let h = digits(11, 2), b[13] == 58, let mi = digits(14, 2), b[16] == 58,
              let s = digits(17, 2),
              (1...12).contains(mo), d >= 1, d <= Self.daysInMonth(year: y, month: mo), h < 24, mi < 60, s < 61
        else { return nil }
        var i = 19
        var ms: Int64 = 0
        if i < b.count, b[i] == 46 {
            i += 1
            var count = 0
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                if count < 3 { ms = ms * 10 + Int64(b[i] - 48) }
                count += 1
                i += 1
            }
            guard count > 0 else { return nil }
            for _ in count..<max(count, 3) { ms *= 10 }
        }
        var offsetMinutes: Int64 = 0
        guard i < b.count else { return nil }
        if b[i] == 90 || b[i] == 122 {
            i += 1
        } else if b[i] == 43 || b[i] == 45, let oh = digits(i + 1, 2), i + 3 < b.count, b[i + 3] == 58, let om = digits(i + 4, 2),
                  oh < 24, om < 60 {
            offsetMinutes = (oh * 60 + om) * (b[i] == 45 ? -1 : 1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = Self.days(fromCivil: y, mo, d)
        milliseconds = ((days * 86_400 + h * 3600 + mi * 60 + min(s, 59)) - offsetMinutes * 60) * 1000 + ms
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let parsed = Timestamp(rfc3339: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an RFC 3339 time: \(Quoting.cut(text))")
        }
        self = parsed
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rfc3339)
    }

    // Howard Hinnant's days-from-civil algorithms (proleptic Gregorian).
    static func days(fromCivil y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> (Int64, Int64) {
        let q = self >= 0 ? self / divisor : (self - divisor + 1) / divisor
        return (q, self - q * divisor)
    }
}
