import EdgeCore
import Foundation
import Messages
import ServiceRuntime

/// The café's screen stream (`GET /v1/screens/events`): held on the café's channel and the
/// screens' heartbeat channel, starting after the client's `Last-Event-ID`, or with a `reset`
/// event when the journal cannot fill the gap (the page reloads its snapshot).
public enum ScreenStreams {
    /// How often the edge writes the heartbeat a page watches: a page that hears none for 3 s
    /// says it is disconnected.
    public static let heartbeatInterval = 1.0

    /// The café `principal` (a kitchen tablet) sees: its own. Naming another is 403; a principal
    /// without a café (none reaches here through the route table) is 403 too.
    public static func cafe(of principal: OnBehalfOf, asked: String?) throws(Problem) -> String {
        guard let own = principal.cafeId, !own.isEmpty else {
            throw Problem(.forbidden, "\(principal.name) belongs to no café; the screens are a café's")
        }
        if let asked, asked != own {
            throw Problem(.forbidden, "\(principal.name) is a kitchen of \(Quoting.quoted(own)); it may not see \(Quoting.quoted(asked))")
        }
        return own
    }

    /// A string member of the object the router built from the query, or nil.
    public static func member(_ name: String, in body: [UInt8]) -> String? {
        guard !body.isEmpty, let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        return object[name] as? String
    }

    /// A boolean member of the object the router built from the query, or nil.
    public static func flag(_ name: String, in body: [UInt8]) -> Bool? {
        guard !body.isEmpty, let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        return object[name] as? Bool
    }

    /// The held response: what the client missed after `after`, or a `reset` when that cannot be
    /// told; with no `after`, nothing (a page starts from a snapshot). 503 when the journal cannot be read.
    public static func held(journal: StreamJournal, cafeId: String, after: UInt64?, keepAliveSeconds: Int, logger: Logger) -> EdgeResponse {
        let channel = StreamChannel.cafe(cafeId)
        do {
            var missed: [ServerSentEvent] = []
            if let after {
                if let events = try journal.resume(channel: channel, after: after) {
                    missed = events
                } else {
                    missed = [reset(last: try journal.last(channel: channel))]
                }
            }
            return HeldStream.response(channel: channel + ", " + StreamChannel.screens, missed: missed, keepAliveSeconds: keepAliveSeconds)
        } catch {
            logger.error("stream journal unreadable", ["channel": channel, "error": "\(error)"])
            return Problem(.httpServiceUnavailable, "the edge cannot read its stream journal now; try again").response
        }
    }

    /// The event that tells a page to reload its snapshot; id 0 so it never moves the page's position.
    static func reset(last: UInt64) -> ServerSentEvent {
        ServerSentEvent(id: 0, event: "reset", data: JSONValue.object([("last", .integer(Int64(last)))]).encoded())
    }

    /// The heartbeat item at `now`.
    static func heartbeat(at now: Timestamp) -> PushpinPublishItem {
        PushpinPublishItem(channel: StreamChannel.screens, event: ServerSentEvent(
            id: UInt64(max(0, now.milliseconds)), event: "heartbeat",
            data: JSONValue.object([("at", .integer(now.milliseconds))]).encoded()))
    }
}
