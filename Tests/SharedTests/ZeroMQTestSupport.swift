import Foundation
import Messages
import Testing
import ZeroMQ

// Every ZeroMQ test is synchronous: libzmq sockets are created, used and closed on one thread,
// and `Socket.close()` asserts that it runs on the thread that created the socket.

/// Where a pair of test sockets meet.
enum Transport: String, CaseIterable, CustomTestStringConvertible {
    case inproc, tcp

    var testDescription: String { rawValue }

    func bindEndpoint(_ label: String = #function) -> String {
        switch self {
        case .inproc: uniqueInproc(label)
        case .tcp: "tcp://127.0.0.1:*"
        }
    }
}

/// Binds `server` on a fresh endpoint of `transport` and returns the endpoint to dial.
func bindFresh(_ server: Socket, _ transport: Transport, _ label: String = #function) throws -> String {
    try server.bind(transport.bindEndpoint(label))
    return try server.lastEndpoint
}

/// 200 KiB with a byte pattern that does not repeat on any power-of-two boundary.
func patternedFrame(bytes: Int) -> Data {
    Data((0..<bytes).map { UInt8(truncatingIfNeeded: $0 % 251) })
}

/// PUB/SUB's slow joiner: a subscription reaches the publisher some time after `connect`.
/// Publishes `sync.` probes until every subscriber has seen one. Subscribers must subscribe to `sync.`.
func synchronize(publisher: Socket, subscribers: [Socket]) throws {
    var waiting = Set(subscribers.indices)
    for attempt in 0..<300 where !waiting.isEmpty {
        try publisher.send(multipart: [frame("sync."), frame("\(attempt)")])
        for index in waiting where try subscribers[index].receiveMultipart(timeoutMilliseconds: 10) != nil {
            waiting.remove(index)
        }
    }
    #expect(waiting.isEmpty, "subscribers never saw the publisher")
}

/// Receives on `subscriber` until the `sync.end.` marker, returning every non-probe message.
func collectUntilEnd(_ subscriber: Socket) throws -> [[Data]] {
    var messages: [[Data]] = []
    while let message = try subscriber.receiveMultipart(timeoutMilliseconds: 2_000) {
        let topic = message[0].utf8Text
        if topic == "sync.end." { return messages }
        if topic == "sync." { continue }
        messages.append(message)
    }
    Issue.record("no end marker within 2 s")
    return messages
}
