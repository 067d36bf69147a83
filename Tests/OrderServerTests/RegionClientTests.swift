import Dispatch
import Foundation
import Messages
@testable import OrderServer
import ServiceRuntime
import Synchronization
import Testing
import TestSupport
import ZeroMQ

/// order-service's client of region-monitor against a real socket that stays silent, then
/// answers: a timeout stops the asking for `retrySeconds` of the injected clock, and an error
/// reply counts as an answer.
@Suite(.serialized)
struct RegionClientTests {
    /// The op of a request as the peer received it ([identity, empty, request] on a ROUTER).
    static func op(_ frames: [Data]) -> String? {
        guard let last = frames.last, let object = try? JSONSerialization.jsonObject(with: last) as? [String: Any] else { return nil }
        return object["op"] as? String
    }

    @Test("a silent region-monitor costs one timeout per retry period; after it the next call goes out; an error reply keeps it asked")
    func breaker() throws {
        let context = try Context()
        let peer = try Socket(context, .router)
        defer { peer.close() }
        try peer.setLinger(milliseconds: 0)
        try peer.bind("tcp://127.0.0.1:*")
        let endpoint = try peer.lastEndpoint
        let clock = ManualClock(OrderHarness.monday)
        let confirm = ConfirmLocation(deviceId: "clip-1", code: "https://clip.campus.example/caffe-macs/counter", acquiredAt: clock.now(), cafeId: "caffe-macs")

        // The client lives on its own thread (a socket stays on the thread that made it); this
        // thread plays region-monitor.
        let results = Mutex<[ServiceError?]>([])
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let plain = SocketSecurity.plain(logger: Logger(service: "test", instance: "region-client", minimum: .error))
            guard let client = try? RegionClient(context: context, endpoints: [endpoint], security: plain, timeoutMilliseconds: 300, retrySeconds: 5, clock: clock) else {
                finished.signal()
                return
            }
            func record(_ body: () throws -> Void) { let e = serviceError(body); results.withLock { $0.append(e) } }
            record { _ = try client.confirm(confirm) }          // silence: times out
            clock.advance(seconds: 4.9)
            record { _ = try client.nearest(deviceId: "clip-1") }  // within the retry period: refused at once
            clock.advance(seconds: 0.1)
            record { _ = try client.confirm(confirm) }          // goes out; the peer answers with an error
            record { _ = try client.nearest(deviceId: "clip-1") }  // an error reply was an answer: goes out
            withExtendedLifetime(client) {}
            finished.signal()
        }
        var ops: [String?] = []
        for answer in [false, true, false] {
            let frames = try #require(try peer.receiveMultipart(timeoutMilliseconds: 5_000), "request \(ops.count + 1) reached the peer")
            ops.append(Self.op(frames))
            if answer {
                try peer.send(multipart: Array(frames.dropLast()) + [Wire.encode(Reply<Empty>.failure(ServiceError(.unknownDevice, "no such device")))])
            }
        }
        finished.wait()
        // The refused call never left: the peer saw confirm, confirm, nearest.
        #expect(ops == ["location.confirm", "location.confirm", "nearest.get"])
        let seen = results.withLock { $0 }
        try #require(seen.count == 4)
        #expect(seen[0]?.code == "client.timeout" && seen[0]?.message.contains("no reply") == true, "\(String(describing: seen[0]))")
        #expect(seen[1]?.code == "client.timeout" && seen[1]?.message.contains("not asked again before") == true, "\(String(describing: seen[1]))")
        #expect(seen[2]?.code == ErrorCode.unknownDevice.rawValue, "region-monitor's own refusal comes through")
        #expect(seen[3]?.code == "client.timeout" && seen[3]?.message.contains("no reply") == true, "asked, not refused: \(String(describing: seen[3]))")
    }
}
