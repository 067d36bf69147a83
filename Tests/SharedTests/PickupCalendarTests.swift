import Campus
import Foundation
import Messages
import Testing

@Suite("Pickup calendar")
struct PickupCalendarTests {
    /// A café of the fixture catalog, optionally changed first ("pickup.windowMinutes" → 120).
    static func cafe(_ id: String = "macs", _ changes: [String: any Sendable] = [:]) throws -> Cafe {
        var object = try jsonObject(Data(contentsOf: try fixtureURL("campus.json")))
        let index = id == "macs" ? 0 : 1
        for (path, value) in changes { object = setting("cafes.\(index).\(path)", to: value, in: object) }
        return try #require(try CampusCatalog.decode(try jsonData(object)).cafe(id))
    }

    static func time(_ text: String) throws -> Timestamp { try #require(Timestamp(rfc3339: text)) }

    /// Local wall-clock parts of `time` in the café's zone: ISO weekday, minute of day, second.
    static func local(_ time: Timestamp, _ cafe: Cafe) -> (weekday: Int, minute: Int, second: Int) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: cafe.timeZone)!
        let parts = calendar.dateComponents([.weekday, .hour, .minute, .second], from: time.date)
        return (parts.weekday! == 1 ? 7 : parts.weekday! - 1, parts.hour! * 60 + parts.minute!, parts.second!)
    }

    @Test("windows start on the local grid, inside opening hours, after now", arguments: [
        // Monday 05:00 in Cupertino: the day's first windows.
        ("2020-06-22T12:00:00Z", ["2020-06-22T14:00:00.000Z", "2020-06-22T14:15:00.000Z", "2020-06-22T14:30:00.000Z", "2020-06-22T14:45:00.000Z"]),
        // Monday 09:41: the next quarter hour.
        ("2020-06-22T16:41:00Z", ["2020-06-22T16:45:00.000Z", "2020-06-22T17:00:00.000Z", "2020-06-22T17:15:00.000Z", "2020-06-22T17:30:00.000Z"]),
        // Exactly on a window start: that window has begun, the next one is offered.
        ("2020-06-22T16:45:00Z", ["2020-06-22T17:00:00.000Z", "2020-06-22T17:15:00.000Z", "2020-06-22T17:30:00.000Z", "2020-06-22T17:45:00.000Z"]),
        // Friday 14:40: the last window (14:45–15:00), then Monday morning.
        ("2020-06-26T21:40:00Z", ["2020-06-26T21:45:00.000Z", "2020-06-29T14:00:00.000Z", "2020-06-29T14:15:00.000Z", "2020-06-29T14:30:00.000Z"]),
    ])
    func windows(now: String, expected: [String]) throws {
        let cafe = try Self.cafe()
        let calendar = PickupCalendar(cafe: cafe)
        let windows = calendar.windows(after: try Self.time(now), count: 4)
        #expect(windows.map(\.rfc3339) == expected)
        for start in windows {
            #expect(calendar.isWindowStart(start))
            let local = Self.local(start, cafe)
            #expect(local.minute % cafe.pickup.windowMinutes == 0 && local.second == 0, "aligned")
            #expect((1...5).contains(local.weekday), "on an opening day")
            #expect(local.minute >= 7 * 60 && local.minute + cafe.pickup.windowMinutes <= 15 * 60, "inside 07:00–15:00")
        }
    }

    @Test("isWindowStart accepts only aligned starts whose whole window is open", arguments: [
        ("2020-06-22T14:00:00Z", true),       // Mon 07:00
        ("2020-06-22T21:45:00Z", true),       // Mon 14:45, ends 15:00
        ("2020-06-22T22:00:00Z", false),      // Mon 15:00: closed
        ("2020-06-22T13:45:00Z", false),      // Mon 06:45: not yet open
        ("2020-06-22T14:05:00Z", false),      // off the grid
        ("2020-06-22T14:00:30Z", false),      // seconds
        ("2020-06-22T14:00:00.001Z", false),  // milliseconds
        ("2020-06-27T17:00:00Z", false),      // Saturday 10:00: closed all day
    ])
    func windowStart(time: String, expected: Bool) throws {
        #expect(PickupCalendar(cafe: try Self.cafe()).isWindowStart(try Self.time(time)) == expected)
    }

    @Test("a café open on Saturday morning only offers Saturday windows inside those hours")
    func partialDay() throws {
        let coffee = try Self.cafe("macs-coffee")
        // Saturday 11:50 in Cupertino: 11:50 and 11:55 remain, then Monday 06:30.
        let windows = PickupCalendar(cafe: coffee).windows(after: try Self.time("2020-06-27T18:49:00Z"), count: 3)
        #expect(windows.map(\.rfc3339) == ["2020-06-27T18:50:00.000Z", "2020-06-27T18:55:00.000Z", "2020-06-29T13:30:00.000Z"])
    }

    @Test("windows stay on the local grid across a daylight-saving change", arguments: [
        // Saturday before spring forward (PST → PDT): Monday 08:00 PDT is 15:00Z.
        ("2024-03-09T20:00:00Z", ["2024-03-11T15:00:00.000Z", "2024-03-11T17:00:00.000Z", "2024-03-11T19:00:00.000Z"]),
        // Saturday before fall back (PDT → PST): Monday 08:00 PST is 16:00Z.
        ("2024-11-02T19:00:00Z", ["2024-11-04T16:00:00.000Z", "2024-11-04T18:00:00.000Z", "2024-11-04T20:00:00.000Z"]),
    ])
    func daylightSaving(now: String, expected: [String]) throws {
        let cafe = try Self.cafe("macs", ["pickup.windowMinutes": 120, "hours.0.open": "08:00", "hours.0.close": "18:00"])
        let windows = PickupCalendar(cafe: cafe).windows(after: try Self.time(now), count: 3)
        #expect(windows.map(\.rfc3339) == expected)
    }

    @Test("a zone with a half-hour offset aligns to its own midnight")
    func halfHourZone() throws {
        let cafe = try Self.cafe("macs", ["timeZone": "Asia/Kolkata", "pickup.windowMinutes": 60, "hours.0.days": [1, 2, 3, 4, 5, 6, 7]])
        // 10:20 in Kolkata (UTC+05:30): the next window is 11:00 local, 05:30Z.
        let windows = PickupCalendar(cafe: cafe).windows(after: try Self.time("2020-06-25T04:50:00Z"), count: 2)
        #expect(windows.map(\.rfc3339) == ["2020-06-25T05:30:00.000Z", "2020-06-25T06:30:00.000Z"])
    }

    @Test("asking for none, or for a café never open, gives no windows")
    func empty() throws {
        let now = try Self.time("2020-06-22T12:00:00Z")
        #expect(PickupCalendar(cafe: try Self.cafe()).windows(after: now, count: 0).isEmpty)
        let closed = try Self.cafe("macs", ["hours": [[String: String]]()])
        #expect(PickupCalendar(cafe: closed).windows(after: now, count: 4).isEmpty)
    }
}
