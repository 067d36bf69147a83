import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// Subscribes to the bus like any operator would and keeps every decoded message, so a test can
/// wait for the event it expects.
final class BusWatcher {
    struct Message {
        let topic: String
        let envelope: Envelope
        /// The envelope frame as it travelled.
        let raw: Data
    }

    private let socket: Socket
    private(set) var messages: [Message] = []
    private(set) var undecodable: [(topic: String, frame: Data)] = []

    /// Subscribes to `prefixes` on the bus's XPUB side (`endpoint`). With `probe`, the bus's XSUB
    /// side, it returns only once its subscriptions have travelled through the bus to publishers:
    /// it subscribes to a topic of its own last, publishes on it from a socket of its own until that
    /// comes back, and by then the publishers have been sent the earlier subscriptions too. Without
    /// it, an event published right after the watcher starts can be dropped (the slow joiner).
    ///
    /// In deployed mode the watcher subscribes as `security`'s principal (an operator), and the
    /// probe is a well-formed envelope published with a service's key (`probeAs`), since the bus
    /// forwards nothing else; its topic is one no service subscribes to.
    init(context: Context, endpoint: String, prefixes: [String] = [""], probe: String? = nil,
         security: SocketSecurity? = nil, probeAs: SocketSecurity? = nil) throws {
        socket = try Socket(context, .sub)
        try socket.setLinger(milliseconds: 0)
        for prefix in prefixes { try socket.subscribe(prefix) }
        try security?.secureClient(socket, server: "bus")
        try socket.connect(endpoint)
        if let probe { try waitUntilSubscribed(context: context, busPub: probe, as: probeAs) }
    }

    private func waitUntilSubscribed(context: Context, busPub: String, as probeSecurity: SocketSecurity?) throws {
        let publisher = try Socket(context, .pub)
        defer { publisher.close() }
        try publisher.setLinger(milliseconds: 0)
        try probeSecurity?.secureClient(publisher, server: "bus")
        try publisher.connect(busPub)
        var probe = Data("{}".utf8)
        if let probeSecurity, probeSecurity.mode == .deployed {
            probe = Wire.encode(Envelope(type: .heartbeat, source: probeSecurity.name, stream: "probe", seq: 0, time: Timestamp(Date()),
                                         body: .heartbeat(Heartbeat(service: probeSecurity.name, streams: [:], replayEndpoint: "", epoch: "probe"))))
        }
        try waitUntilHeard(from: publisher, probe: probe)
    }

    /// Returns once what `publisher` (connected to the bus's XSUB side) sends is forwarded: this
    /// watcher subscribes to a probe topic of its own and `publisher` sends on it until it comes
    /// back. The bus hands a newly connected publisher every subscription it holds before any
    /// later one, so by then `publisher` also has the subscriptions of every consumer connected
    /// before. Until then a PUB socket drops what it sends (the slow joiner). In deployed mode the
    /// bus forwards only well-formed envelopes: pass one as `probe`.
    func waitUntilHeard(from publisher: Socket, probe: Data = Data("{}".utf8), timeout: Double = 10) throws {
        let topic = "probe.watcher.\(UUID().uuidString)."
        try socket.subscribe(topic)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            try publisher.send(multipart: [Data(topic.utf8), probe])
            while let frames = try socket.receiveMultipart(timeoutMilliseconds: 20) {
                if frames.first == Data(topic.utf8) {
                    // Back through the bus: the publisher was sent every earlier subscription.
                    try socket.unsubscribe(topic)
                    return
                }
                record(frames)
            }
        }
        throw PlatformError("a probe published through the bus did not come back to the watcher within \(timeout) s")
    }

    /// Reads what has arrived, waiting at most `milliseconds` for the first message.
    func pump(milliseconds: Int32 = 50) throws {
        var wait = milliseconds
        while let frames = try socket.receiveMultipart(timeoutMilliseconds: wait) {
            wait = 0
            record(frames)
        }
    }

    private func record(_ frames: [Data]) {
        let topic = String(decoding: frames[0], as: UTF8.self)
        // A watcher's probes (its own, still in flight, or another's under a catch-all prefix) are not traffic.
        guard !topic.hasPrefix("probe.watcher.") else { return }
        if frames.count == 2, let envelope = try? Wire.decodeEnvelope(frames[1]) {
            messages.append(Message(topic: topic, envelope: envelope, raw: frames[1]))
        } else {
            undecodable.append((topic, frames.last ?? Data()))
        }
    }

    /// Waits until a message on a topic starting with `prefix` satisfies `match`; returns it.
    @discardableResult
    func waitFor(_ prefix: String, timeout: Double = 10, where match: (Message) -> Bool = { _ in true }) throws -> Message {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if let found = messages.first(where: { $0.topic.hasPrefix(prefix) && match($0) }) { return found }
            try pump()
        } while Date() < deadline
        throw PlatformError("no message on \(prefix) within \(timeout) s; saw topics: \(Set(messages.map(\.topic)).sorted())")
    }

    /// Calls `send` until a message on a topic starting with `prefix` satisfies `match`, giving
    /// each send a second to show; returns the message. For a sender that cannot know when the
    /// bus has passed it the subscriptions (a `cafectl publish`, a PUB socket of another process),
    /// and whose message may be sent more than once.
    @discardableResult
    func waitFor(_ prefix: String, timeout: Double = 10, resending send: () throws -> Void, where match: (Message) -> Bool = { _ in true }) throws -> Message {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            try send()
            if let found = try? waitFor(prefix, timeout: min(1, max(0, deadline.timeIntervalSinceNow)), where: match) { return found }
        } while Date() < deadline
        throw PlatformError("no message on \(prefix) within \(timeout) s of sending again and again; saw topics: \(Set(messages.map(\.topic)).sorted())")
    }

    func all(_ prefix: String) -> [Message] { messages.filter { $0.topic.hasPrefix(prefix) } }

    func close() { socket.close() }
}

/// Polls `body` until it returns a value, or throws after `timeout` seconds with the last error.
func eventually<T>(_ what: String, timeout: Double = 10, _ body: () throws -> T?) throws -> T {
    let deadline = Date().addingTimeInterval(timeout)
    var lastError: Error?
    repeat {
        do {
            if let value = try body() { return value }
        } catch {
            lastError = error
        }
        usleep(100_000)
    } while Date() < deadline
    throw PlatformError("timed out waiting for \(what)" + (lastError.map { ": \($0)" } ?? ""))
}

