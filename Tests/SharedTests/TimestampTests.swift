import Foundation
import Messages
import Testing

@Suite("Timestamp")
struct TimestampTests {
    @Test("RFC 3339 text parses to the right instant", arguments: [
        ("2020-06-25T16:41:00Z", Int64(1_593_103_260_000)),
        ("2020-06-25T16:41:00.123Z", 1_593_103_260_123),
        ("2020-06-25T16:41:00.1Z", 1_593_103_260_100),
        ("2020-06-25T16:41:00.12Z", 1_593_103_260_120),
        ("2020-06-25T16:41:00.123456789Z", 1_593_103_260_123),   // extra digits truncated, not rounded
        ("2020-06-25T16:41:00.999999Z", 1_593_103_260_999),
        ("2020-06-25t16:41:00z", 1_593_103_260_000),             // RFC 3339 allows lower case
        ("2020-06-25T09:41:00-07:00", 1_593_103_260_000),        // Cupertino, summer
        ("2020-06-25T22:11:00+05:30", 1_593_103_260_000),        // half-hour offset
        ("2020-06-26T01:41:00.500+09:00", 1_593_103_260_500),    // Tokyo, next local day
        ("2020-06-25T16:41:00+00:00", 1_593_103_260_000),
        ("2020-06-25T16:41:00-00:00", 1_593_103_260_000),
        ("1970-01-01T00:00:00Z", 0),
        ("1969-12-31T23:59:59.999Z", -1),
        ("1970-01-01T00:00:00+01:00", -3_600_000),
        ("2000-02-29T00:00:00Z", 951_782_400_000),              // divisible by 400: leap
        ("2024-02-29T12:00:00Z", 1_709_208_000_000),
        ("1900-03-01T00:00:00Z", -2_203_891_200_000),
        ("0001-01-01T00:00:00Z", -62_135_596_800_000),
        ("9999-12-31T23:59:59.999Z", 253_402_300_799_999),
        ("2016-12-31T23:59:60Z", 1_483_228_799_000),             // a leap second counts as :59
    ])
    func parses(text: String, milliseconds: Int64) {
        #expect(Timestamp(rfc3339: text)?.milliseconds == milliseconds)
    }

    @Test("malformed or impossible times are refused", arguments: [
        "2020-02-30T00:00:00Z",          // no Feb 30
        "2021-02-29T00:00:00Z",          // not a leap year
        "1900-02-29T00:00:00Z",          // divisible by 100, not by 400
        "2020-04-31T00:00:00Z",
        "2020-13-01T00:00:00Z",
        "2020-00-10T00:00:00Z",
        "2020-06-00T00:00:00Z",
        "2020-06-25T24:00:00Z",
        "2020-06-25T16:60:00Z",
        "2020-06-25T16:41:61Z",
        "2020-06-25T16:41:00",           // no offset: not an instant
        "2020-06-25T16:41Z",             // no seconds
        "2020-06-25 16:41:00Z",          // space instead of T
        "2020-06-25T16:41:00.Z",         // a dot needs digits
        "2020-06-25T16:41:00+0530",      // offset needs the colon
        "2020-06-25T16:41:00+05",
        "2020-06-25T16:41:00+24:00",     // offset hours are 00–23
        "2020-06-25T16:41:00+05:60",     // offset minutes are 00–59
        "2020-06-25T16:41:00Zjunk",
        "2020-6-25T16:41:00Z",
        "20200625T164100Z",
        "+2020-06-25T16:41:00Z",
        "2020-06-25T16:41:00.12a3Z",
        "",
        "tomorrow",
    ])
    func refuses(_ text: String) {
        #expect(Timestamp(rfc3339: text) == nil)
    }

    @Test("formatting is RFC 3339 UTC with exactly three fraction digits", arguments: [
        (Int64(1_593_103_260_000), "2020-06-25T16:41:00.000Z"),
        (1_593_103_260_123, "2020-06-25T16:41:00.123Z"),
        (1_593_103_260_007, "2020-06-25T16:41:00.007Z"),
        (0, "1970-01-01T00:00:00.000Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        (-62_135_596_800_000, "0001-01-01T00:00:00.000Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
    ])
    func formats(milliseconds: Int64, text: String) {
        #expect(Timestamp(milliseconds: milliseconds).rfc3339 == text)
        #expect(Timestamp(milliseconds: milliseconds).description == text)
    }

    @Test("format then parse gives the same instant, across four centuries")
    func roundTrip() {
        // A fixed linear congruential sequence: the same values every run, spread over 1700–2300.
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let milliseconds = Int64(state >> 20) % 19_000_000_000_000 - 8_500_000_000_000
            let time = Timestamp(milliseconds: milliseconds)
            guard Timestamp(rfc3339: time.rfc3339) == time else {
                Issue.record("\(milliseconds) → \(time.rfc3339) did not round-trip")
                return
            }
        }
    }

    @Test("a Timestamp survives the trip through Date", arguments: [
        Int64(0), -1, -500, 1, 28_353_142_966, 304_764_763_080, 946_684_799_999, 1_593_103_260_123, 4_102_444_799_999,
    ])
    func dateRoundTrip(_ milliseconds: Int64) {
        let time = Timestamp(milliseconds: milliseconds)
        #expect(Timestamp(time.date) == time)
    }

    @Test("Date() is truncated to the millisecond, never rounded into the future")
    func dateTruncates() {
        let date = Date(timeIntervalSince1970: 1_593_103_260.1239)
        #expect(Timestamp(date).milliseconds == 1_593_103_260_123)
        let before1970 = Date(timeIntervalSince1970: -0.0004)
        #expect(Timestamp(before1970).milliseconds == -1)
    }

    @Test("arithmetic and ordering")
    func arithmetic() {
        let start = Timestamp(milliseconds: 1_000)
        #expect(start.adding(seconds: 1.5).milliseconds == 2_500)
        #expect(start.adding(seconds: -2).milliseconds == -1_000)
        #expect(start.adding(seconds: 0.0004).milliseconds == 1_000)
        #expect(start.adding(seconds: 90).seconds(since: start) == 90)
        #expect(start < start.adding(seconds: 0.001))
        #expect([Timestamp(milliseconds: 3), Timestamp(milliseconds: -1), Timestamp(milliseconds: 2)].sorted().map(\.milliseconds) == [-1, 2, 3])
    }

    @Test("Codable as an RFC 3339 string; anything else is a decoding error")
    func codable() throws {
        struct Holder: Codable, Equatable { var at: Timestamp }
        let holder = Holder(at: Timestamp(milliseconds: 1_593_103_260_123))
        let json = try JSONEncoder().encode(holder)
        #expect(json.utf8Text == "{\"at\":\"2020-06-25T16:41:00.123Z\"}")
        #expect(try JSONDecoder().decode(Holder.self, from: json) == holder)
        #expect(try JSONDecoder().decode(Holder.self, from: frame("{\"at\":\"2020-06-25T09:41:00-07:00\"}")).at.milliseconds == 1_593_103_260_000)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Holder.self, from: frame("{\"at\":\"2020-02-30T00:00:00Z\"}")) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Holder.self, from: frame("{\"at\":1593103260123}")) }
    }
}
