import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// A test's own bus subscriber, acting as one principal (deployed mode) or as nobody (plain
/// socket): keeps what arrives, so a test can wait for one message and show others never came.
final class BusSubscriber {
    let socket: Socket
    private(set) var received: [(topic: String, envelope: Envelope?)] = []

    /// Subscribes to `prefixes` on the platform's XPUB side as `principal` (nil: no CURVE).
    init(_ platform: Platform, _ context: Context, as principal: String?, prefixes: [String]) throws {
        socket = try Socket(context, .sub)
        try socket.setLinger(milliseconds: 0)
        try socket.setReconnectInterval(milliseconds: 100, maxMilliseconds: 500)
        for prefix in prefixes { try socket.subscribe(prefix) }
        if let principal { try platform.security(as: principal).secureClient(socket, server: "bus") }
        try socket.connect(platform.busSub)
    }

    /// Reads what has arrived, waiting at most `milliseconds` for the first message.
    func pump(milliseconds: Int32 = 50) throws {
        var wait = milliseconds
        while let frames = try socket.receiveMultipart(timeoutMilliseconds: wait) {
            wait = 0
            let topic = String(decoding: frames[0], as: UTF8.self)
            received.append((topic, frames.count == 2 ? try? Wire.decodeEnvelope(frames[1]) : nil))
        }
    }

    /// The messages on topics starting with `prefix` so far.
    func on(_ prefix: String) -> [Envelope] { received.filter { $0.topic.hasPrefix(prefix) }.compactMap(\.envelope) }

    func close() { socket.close() }
}

extension Platform {
    /// `[topic][envelope]` for `envelope` on `topic`.
    static func frames(_ topic: String, _ envelope: Envelope) -> [Data] { [Data(topic.utf8), Wire.encode(envelope)] }

    /// Publishes each message from its socket every 100 ms, pumping `subscribers`, until `done`
    /// holds (the slow joiner: subscriptions reach a new publisher a moment after it connects).
    func publish(_ messages: [(Socket, [Data])], pumping subscribers: [BusSubscriber], timeout: Double = 10,
                 until done: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            for (publisher, message) in messages { try publisher.send(multipart: message, dontWait: true) }
            for subscriber in subscribers { try subscriber.pump(milliseconds: 100) }
            if try done() { return }
        }
        throw PlatformError("what was published did not arrive within \(timeout) s")
    }

    /// The health details of `service`, asked as the operator (deployed) or the developer (plain).
    func healthDetails(_ service: String, _ context: Context) throws -> [String: String] {
        let client = try self.client(service, as: KeyFolder.defaultOperator, context: context)
        defer { client.close() }
        return try client.call(Op.health, Empty(), as: HealthStatus.self).details
    }

    /// Waits until the health details of `service` satisfy `condition` (`what` names it in the
    /// failure); returns them. A call that fails (the service restarting) is asked again.
    @discardableResult
    func waitForHealth(_ service: String, _ what: String, _ context: Context, timeout: Double = 10,
                       until condition: ([String: String]) -> Bool) throws -> [String: String] {
        try eventually("\(service): \(what)", timeout: timeout) { () -> [String: String]? in
            let details = try healthDetails(service, context)
            return condition(details) ? details : nil
        }
    }

    /// The last seq of `stream` a service has published, from its health.
    func lastSeq(_ service: String, _ stream: String, _ context: Context) throws -> UInt64 {
        let client = try self.client(service, as: KeyFolder.defaultOperator, context: context)
        defer { client.close() }
        return try client.call(Op.health, Empty(), as: HealthStatus.self).streams[stream] ?? 0
    }

    /// Sends SIGHUP to `service`: it reloads the key registry now.
    func hangUp(_ service: String) {
        if let pid = process(service)?.processIdentifier { kill(pid, SIGHUP) }
    }
}
