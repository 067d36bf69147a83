import Foundation
import Messages
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

    init(context: Context, endpoint: String, prefixes: [String] = [""]) throws {
        socket = try Socket(context, .sub)
        try socket.setLinger(milliseconds: 0)
        for prefix in prefixes { try socket.subscribe(prefix) }
        try socket.connect(endpoint)
    }

    /// Reads what has arrived, waiting at most `milliseconds` for the first message.
    func pump(milliseconds: Int32 = 50) throws {
        var wait = milliseconds
        while let frames = try socket.receiveMultipart(timeoutMilliseconds: wait) {
            wait = 0
            let topic = String(decoding: frames[0], as: UTF8.self)
            if frames.count == 2, let envelope = try? Wire.decodeEnvelope(frames[1]) {
                messages.append(Message(topic: topic, envelope: envelope, raw: frames[1]))
            } else {
                undecodable.append((topic, frames.last ?? Data()))
            }
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

/// The error code a call is refused with (a non-service error as its description), or nil when it succeeds.
func refusalCode<T>(_ body: () throws -> T) -> String? {
    do {
        _ = try body()
        return nil
    } catch let error as ServiceError {
        return error.code
    } catch {
        return "\(error)"
    }
}
