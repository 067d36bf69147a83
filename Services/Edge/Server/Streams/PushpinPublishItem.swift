import EdgeCore

/// One item published to Pushpin's PULL socket (`push_in_spec`): a `J` and a JSON object
/// `{"channel": …, "id": …, "formats": {"http-stream": {"content": …}}}`, as Pushpin 1.36's
/// handler reads it (`PublishItem::fromVariant`). Pushpin writes `content` to every client held
/// on the channel, and drops an item whose `id` it saw on the channel within `id_cache_ttl`
/// (60 s by default): an event published twice (a replay, a second edge) reaches a client once.
/// No `prev-id`: with it, Pushpin would hold items back waiting for their predecessor, and a
/// stream hold that names one needs a `Grip-Link` next link.
public struct PushpinPublishItem: Sendable, Equatable {
    public let channel: String
    public let event: ServerSentEvent

    public init(channel: String, event: ServerSentEvent) {
        self.channel = channel
        self.event = event
    }

    /// The message for the PUSH socket.
    public var message: [UInt8] {
        let content = String(decoding: event.encoded, as: UTF8.self)
        let item = JSONValue.object([
            ("channel", .string(channel)),
            ("id", .string(String(event.id))),
            ("formats", .object([("http-stream", .object([("content", .string(content))]))])),
        ])
        return [UInt8(ascii: "J")] + item.encoded()
    }
}
