import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// Requests to one service's REP socket without waiting for each reply (open loop).
///
/// A DEALER talks to a REP socket when every message is `[envelope…][empty][request]`; the REP
/// socket hands back every frame before the empty delimiter with its reply. So each request goes
/// out as `[tag][empty][request]`, and the reply's tag says which request it answers, whatever
/// the order. Requests the socket will not take yet (high-water mark) wait in a local queue and
/// are retried; requests without a reply after `timeout` seconds are given up. A client made
/// `retrying` keeps each request's frame and sends it again, unchanged (same request, same
/// idempotency key), while it has no reply: as a real client does when a service died with the
/// request in flight. Whichever answer comes first counts; the others are late replies.
final class PipelinedClient<Context> {
    struct Outstanding {
        /// The first send: the timeout runs from it.
        var sentAt: Double
        var context: Context
        /// The last send, and how many there were.
        var lastSentAt: Double
        var attempts = 1
        /// Kept only by a retrying client.
        var frame: Data?
    }

    let name: String
    let endpoint: String
    let socket: Socket
    private var nextTag: UInt64 = 1
    private var queued: [(tag: UInt64, frame: Data, context: Context)] = []
    private var queueHead = 0
    private(set) var outstanding: [UInt64: Outstanding] = [:]
    /// Times a send found the socket full and queued instead.
    private(set) var stalls = 0
    /// Replies whose request had already been given up or answered.
    private(set) var lateReplies = 0
    /// Whether unanswered requests are sent again (`retry`).
    let retrying: Bool

    /// `endpoint` may name its server (`name@tcp://…`, see `PeerEndpoint`); `curve` makes the
    /// socket a CURVE client (deployed mode).
    init(name: String, context zmq: ZeroMQ.Context, endpoint: String, retrying: Bool = false, curve: RequestClient.CurveClientKeys? = nil) throws {
        self.name = name
        self.endpoint = endpoint
        self.retrying = retrying
        socket = try Socket(zmq, .dealer)
        try socket.setLinger(milliseconds: 0)
        try socket.setSendHighWaterMark(100_000)
        try socket.setReceiveHighWaterMark(100_000)
        if let curve { try socket.setCurveClient(serverKey: curve.serverKey, publicKey: curve.keyPair.publicKey, secretKey: curve.keyPair.secretKey) }
        try socket.connect(PeerEndpoint.endpoint(endpoint))
    }

    /// Requests sent or queued that have no reply yet.
    var pendingCount: Int { outstanding.count + queued.count - queueHead }

    /// Sends `frame` now if the socket takes it (true), else queues it (false); `context` comes
    /// back with the reply.
    @discardableResult
    func send(_ frame: Data, context: Context, now: Double) throws -> Bool {
        let tag = nextTag
        nextTag += 1
        // Keep order: while anything waits in the queue, new requests wait behind it.
        let sentNow = queueHead >= queued.count ? try trySend(tag: tag, frame: frame) : false
        if !sentNow {
            queued.append((tag, frame, context))
            stalls += 1
            return false
        }
        outstanding[tag] = Outstanding(sentAt: now, context: context, lastSentAt: now, frame: retrying ? frame : nil)
        return true
    }

    /// Sends what waited in the queue, as far as the socket takes it. Returns the contexts sent.
    @discardableResult
    func flushQueue(now: Double) throws -> [Context] {
        var sent: [Context] = []
        while queueHead < queued.count {
            let item = queued[queueHead]
            guard try trySend(tag: item.tag, frame: item.frame) else { break }
            outstanding[item.tag] = Outstanding(sentAt: now, context: item.context, lastSentAt: now, frame: retrying ? item.frame : nil)
            sent.append(item.context)
            queueHead += 1
        }
        if queueHead > 1024 && queueHead * 2 > queued.count {
            queued.removeFirst(queueHead)
            queueHead = 0
        }
        return sent
    }

    var hasQueued: Bool { queueHead < queued.count }

    private func trySend(tag: UInt64, frame: Data) throws -> Bool {
        var littleEndian = tag.littleEndian
        let tagBytes = withUnsafeBytes(of: &littleEndian) { Array($0) }
        let failure: ZeroMQError?
        do {
            try socket.send(tagBytes, more: true, dontWait: true)
            failure = nil
        } catch {
            failure = error
        }
        if let failure {
            // EAGAIN: the high-water mark is reached; the caller queues the request.
            if failure.isAgain { return false }
            throw failure
        }
        // Once the first frame is in, the rest of the message is always accepted.
        try socket.send([UInt8](), more: true)
        try socket.send(frame)
        return true
    }

    /// Takes every reply queued now (at most `limit`): its request's context, the reply frame
    /// and the round-trip time.
    func receive(limit: Int = 10_000, now: Double, _ handle: (Context, Data, Double) throws -> Void) throws {
        for _ in 0..<limit {
            guard let frames = try socket.tryReceiveMultipart() else { return }
            guard frames.count == 3, frames[0].count == 8, frames[1].isEmpty else { continue }
            let tag = frames[0].withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
            guard let request = outstanding.removeValue(forKey: tag) else {
                lateReplies += 1
                continue
            }
            try handle(request.context, frames[2], now - request.sentAt)
        }
    }

    /// Sends again, under the same tag, each request unanswered for `after` seconds since its
    /// last send, doubling the wait with each attempt (1, 2, 4… × `after`), until it is given up.
    /// Returns the contexts sent again. Only for a `retrying` client; a full socket skips the
    /// retry until the next call.
    func retry(now: Double, after: Double) throws -> [Context] {
        guard retrying, after > 0 else { return [] }
        var retried: [Context] = []
        for (tag, request) in outstanding where now - request.lastSentAt >= after * Double(1 << min(request.attempts - 1, 16)) {
            guard let frame = request.frame, try trySend(tag: tag, frame: frame) else { continue }
            outstanding[tag]?.lastSentAt = now
            outstanding[tag]?.attempts += 1
            retried.append(request.context)
        }
        return retried
    }

    /// The earliest time `retry` has something to send, if any.
    func nextRetry(after: Double) -> Double? {
        guard retrying, after > 0 else { return nil }
        return outstanding.values.map { $0.lastSentAt + after * Double(1 << min($0.attempts - 1, 16)) }.min()
    }

    /// Gives up requests sent more than `timeout` seconds ago; returns their contexts.
    func expire(now: Double, timeout: Double) -> [Context] {
        let stale = outstanding.filter { now - $0.value.sentAt > timeout }
        for tag in stale.keys { outstanding[tag] = nil }
        return stale.values.map(\.context)
    }

    func close() { socket.close() }
}
