import Foundation
import Messages
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// Requests an outsider can send to any request socket: each is answered with a typed error, and
/// the process still answers health afterwards.
@Suite("Hostile requests through real processes", .serialized)
struct HostileRequestTests {
    static let requestSockets = ["bus", "beacon-ingest", "region-monitor", "order-service", "kitchen-display", "notification-service"]

    @Test("a frame above the request limit but below the transport limit is answered request.tooLarge by every socket; one above the transport limit is refused by the client before it is sent")
    func oversizeFrames() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        let big = Data("{\"op\":\"health\",\"id\":\"x\",\"body\":{\"pad\":\"".utf8) + Data(repeating: UInt8(ascii: "a"), count: 600 * 1024) + Data("\"}}".utf8)
        for service in Self.requestSockets {
            let client = RequestClient(context: context, endpoint: platform.endpoint(service), timeoutMilliseconds: 3_000)
            defer { client.close() }
            let reply = try Wire.decodeReply(try client.send(raw: big), body: Empty.self)
            #expect(!reply.ok && reply.error?.code == "request.tooLarge", "\(service): \(String(describing: reply.error))")
            #expect(try client.call(Op.health, Empty(), as: HealthStatus.self).status == "ok", "\(service) still answers")
        }
        // Refused before sending: the same answer with nobody listening (no timeout involved).
        let nobody = RequestClient(context: context, endpoint: "inproc://nobody-listens", timeoutMilliseconds: 3_000)
        defer { nobody.close() }
        let huge = Data(repeating: UInt8(ascii: " "), count: RequestServer.transportLimitBytes + 1)
        #expect(errorCode { try nobody.send(raw: huge) } == "request.tooLarge")
    }
}
