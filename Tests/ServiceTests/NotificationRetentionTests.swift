import Messages
import NotifyCore
import Testing

@Suite("Notifications: the retention option and its cutoff")
struct NotificationRetentionTests {
    @Test("--retention-days takes a whole number of days, 1…3650", arguments: [
        ("30", 30), ("1", 1), ("3650", 3650), ("0", nil), ("3651", nil), ("-5", nil), ("1.5", nil), ("abc", nil), ("", nil), (" 30", nil),
    ] as [(String, Int?)])
    func option(text: String, days: Int?) {
        #expect(NotificationRetention(option: text)?.days == days)
    }

    @Test("the refusal names the range and the value")
    func refusal() {
        let line = NotificationRetention.refusal("0")
        #expect(line == "must be a whole number of days, 1…3650, not \"0\"")
    }

    @Test("the cutoff is exactly that many days before now", arguments: [1, 30, 3650])
    func cutoff(days: Int) throws {
        let now = Timestamp(milliseconds: 1_795_464_000_000)
        let retention = try #require(NotificationRetention(days: days))
        #expect(now.seconds(since: retention.cutoff(now: now)) == Double(days) * 86_400)
        #expect(retention.batchSize == 5_000)
    }
}
