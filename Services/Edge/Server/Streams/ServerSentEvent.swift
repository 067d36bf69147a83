/// One server-sent event as the stream writes it (the WHATWG HTML `text/event-stream` format):
/// `id: <seq>`, `event: <type>`, one `data:` line per line of the data, and a blank line.
public struct ServerSentEvent: Sendable, Equatable {
    /// The event's seq on its bus stream (`StreamEventId`).
    public let id: UInt64
    /// The event type, `order.ready` or `notify.delivery`: a client listens for it by name.
    public let event: String
    /// The event's body as JSON (one line: the platform writes compact JSON).
    public let data: [UInt8]

    public init(id: UInt64, event: String, data: [UInt8]) {
        self.id = id
        self.event = event
        self.data = data
    }

    /// The event's bytes. A line break in the data (none in compact JSON) starts another `data:`
    /// line, and CR or LF in the type is dropped, so nothing can end the event early or forge a field.
    public var encoded: [UInt8] {
        var out = Array("id: \(id)\nevent: ".utf8)
        out += event.utf8.filter { $0 != 0x0A && $0 != 0x0D }
        out += Array("\ndata: ".utf8)
        var index = 0
        while index < data.count {
            let byte = data[index]
            if byte == 0x0D || byte == 0x0A {
                // CRLF is one break.
                if byte == 0x0D, index + 1 < data.count, data[index + 1] == 0x0A { index += 1 }
                out += Array("\ndata: ".utf8)
            } else {
                out.append(byte)
            }
            index += 1
        }
        out += Array("\n\n".utf8)
        return out
    }

    /// What Pushpin writes to an idle stream (`Grip-Keep-Alive`): an SSE comment, which an
    /// EventSource ignores, so proxies and NATs between keep the connection.
    public static let keepAlive = ":\n\n"
}
