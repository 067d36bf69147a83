import Messages
import NotifyCore
import Testing

@Suite("Notifications: the retention and its cutoff")
struct NotificationRetentionTests {
    @Test("a retention is 1…3650 days", arguments: [(1, true), (30, true), (3650, true), (0, false), (3651, false), (-5, false)])
    func days(days: Int, allowed: Bool) {
        #expect((NotificationRetention(days: days) != nil) == allowed)
    }

    @Test("the cutoff is exactly that many days before now", arguments: [1, 30, 3650])
    func cutoff(days: Int) throws {
        let now = Timestamp(milliseconds: 1_795_464_000_000)
        let retention = try #require(NotificationRetention(days: days))
        #expect(now.seconds(since: retention.cutoff(now: now)) == Double(days) * 86_400)
        #expect(retention.batchSize == 5_000)
    }
}
