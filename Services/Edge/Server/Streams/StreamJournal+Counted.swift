import Foundation
import Messages
import SQLite

/// Channels whose ids the journal counts itself (a café's screen events, from the order, kitchen
/// and menu streams at once): 1, 2, 3… per channel, in the order the edge applied them.
extension StreamJournal {
    /// Journals `data` as the channel's next event (in the caller's transaction) and returns it.
    public func appendCounted(channel: String, event: String, data: [UInt8], at time: Timestamp) throws -> ServerSentEvent {
        let id = try last(channel: channel) + 1
        try db.run("INSERT INTO stream_counters (channel, last) VALUES (?, ?) ON CONFLICT (channel) DO UPDATE SET last = excluded.last",
                   channel, Int64(id))
        try db.run("INSERT OR IGNORE INTO stream_events (channel, seq, event, data, at_ms) VALUES (?, ?, ?, ?, ?)",
                   channel, Int64(id), event, Data(data), time.milliseconds)
        return ServerSentEvent(id: id, event: event, data: data)
    }

    /// The id of the channel's last counted event; 0 before its first.
    public func last(channel: String) throws -> UInt64 {
        UInt64(try db.query("SELECT last FROM stream_counters WHERE channel = ?", channel).first?.int64("last") ?? 0)
    }

    /// What a client resuming after `after` gets: the events it missed, or nil when the journal
    /// cannot fill the gap (more than `maxBacklog` missed, some already pruned, or an id this
    /// journal never gave), so the client must reload its snapshot.
    public func resume(channel: String, after: UInt64) throws -> [ServerSentEvent]? {
        let last = try last(channel: channel)
        guard after <= last else { return nil }
        guard after < last else { return [] }
        let missed = try events(channel: channel, after: after, limit: Self.maxBacklog)
        guard missed.count == Int(last - after), missed.first?.id == after + 1 else { return nil }
        return missed
    }

    /// The channel's events in the journal whose type starts with `typePrefix`, oldest first: at
    /// most `limit`, the newest.
    public func recent(channel: String, typePrefix: String = "", limit: Int) throws -> [ServerSentEvent] {
        let rows = try db.query("SELECT seq, event, data FROM stream_events WHERE channel = ? AND substr(event, 1, ?) = ? ORDER BY seq DESC LIMIT ?",
                                channel, typePrefix.utf8.count, typePrefix, max(0, limit))
        return rows.reversed().map { row in
            ServerSentEvent(id: UInt64(row.int64("seq")), event: row.string("event"), data: Array(row.data("data")))
        }
    }
}
