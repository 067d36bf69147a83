import EdgeCore

/// The answer that opens a stream: GRIP's instructions to Pushpin and the events the client
/// missed. Pushpin strips the `Grip-` fields, writes the status, the other fields and the body
/// to the client, then holds the connection on the channel: every item published to it is
/// written as it comes, and an idle stream gets `ServerSentEvent.keepAlive` every `keepAliveSeconds`.
public enum HeldStream {
    /// The held response for `channel`, its body the `missed` events in order.
    public static func response(channel: String, missed: [ServerSentEvent], keepAliveSeconds: Int) -> EdgeResponse {
        // A comment first: Pushpin writes the status and fields with the first body bytes, so a
        // stream that missed nothing would otherwise leave the client waiting for its headers
        // (an EventSource's `open`) until the first event.
        var body = Array(ServerSentEvent.keepAlive.utf8)
        for event in missed { body += event.encoded }
        return EdgeResponse(status: 200, headers: [
            ("Content-Type", "text/event-stream"),
            ("Cache-Control", "no-store"),
            ("Grip-Hold", "stream"),
            ("Grip-Channel", channel),
            // cstring: Pushpin reads the escapes, so the comment is ":" and a blank line.
            ("Grip-Keep-Alive", ":\\n\\n; format=cstring; timeout=\(keepAliveSeconds)"),
        ], body: body)
    }
}
