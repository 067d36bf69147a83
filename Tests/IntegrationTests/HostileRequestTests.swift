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

    static func nested(_ depth: Int) -> Data { Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8) }

    @Test("replay from seq 2^63 and a request nested 100 000 deep are refused request.invalidField by every socket, which still answers health")
    func hostileNumbersAndNesting() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        let replay = Data(#"{"op":"replay","id":"c","body":{"stream":"order","fromSeq":9223372036854775808,"limit":3}}"#.utf8)
        let deep = Data(#"{"op":"health","id":"d","body":"#.utf8) + Self.nested(100_000) + Data("}".utf8)
        #expect(deep.count < Wire.defaultMaxFrameBytes, "under the size limit: only the depth refuses it")
        for service in Self.requestSockets {
            let client = RequestClient(context: context, endpoint: platform.endpoint(service), timeoutMilliseconds: 5_000)
            defer { client.close() }
            let replayed = try Wire.decodeReply(try client.send(raw: replay), body: Empty.self).error
            if service == "bus" {
                #expect(replayed?.code == "request.unknownOp", "bus: \(String(describing: replayed))")
            } else {
                #expect(replayed == ServiceError(.invalidField, "field body.fromSeq: must be 0…9223372036854775807, not 9223372036854775808"),
                        "\(service): \(String(describing: replayed))")
            }
            let nesting = try Wire.decodeReply(try client.send(raw: deep), body: Empty.self).error
            #expect(nesting == ServiceError(.invalidField, "the document nests arrays and objects more than 64 levels deep"), "\(service): \(String(describing: nesting))")
            #expect(try client.call(Op.health, Empty(), as: HealthStatus.self).status == "ok", "\(service) still answers")
        }
        for service in Self.requestSockets { #expect(platform.process(service)?.isRunning == true, "\(service) is running") }
    }

    @Test("health with \"body\": null is answered by every request socket in plain mode: null is read as absent (PROTOCOL §1)")
    func nullHealthBody() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        let frame = Data(#"{"op":"health","id":"n","body":null}"#.utf8)
        for service in Self.requestSockets {
            let client = RequestClient(context: context, endpoint: platform.endpoint(service), timeoutMilliseconds: 5_000)
            defer { client.close() }
            let reply = try Wire.decodeReply(try client.send(raw: frame), body: HealthStatus.self)
            #expect(reply.ok && reply.body?.status == "ok", "\(service): \(String(describing: reply.error))")
        }
    }

    @Test("envelopes nested 100 000 deep or with a seq beyond 2^63 - 1, on the bus and the fix channel, are dead-lettered, as is a compact sighting batch with an RSSI out of range (quoted in hex); every process keeps running")
    func hostileEnvelopes() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        let watcher = try BusWatcher(context: context, endpoint: platform.busSub, prefixes: ["deadletter."], probe: platform.busPub)
        defer { watcher.close() }
        let publisher = try platform.busPublisher(context)
        defer { publisher.close() }
        let fixes = try Socket(context, .push)
        defer { fixes.close() }
        try fixes.setLinger(milliseconds: 0)
        try fixes.connect(platform.endpoint("region-fixes"))
        // A new PUB socket drops what it sends until the bus has passed it the consumers'
        // subscriptions: wait until its probe comes back. (The PUSH queues until it connects.)
        try watcher.waitUntilHeard(from: publisher)
        let deep = Data(#"{"v":1,"type":"heartbeat","id":"deep","source":"intruder","stream":"heartbeat","seq":1,"time":"2026-01-01T00:00:00.000Z","body":"#.utf8)
            + Self.nested(100_000) + Data("}".utf8)
        let bigSeq = Data(#"{"v":1,"type":"kitchen.ready","id":"big","source":"intruder","stream":"kitchen","seq":9223372036854775808,"time":"2026-01-01T00:00:00.000Z","body":{"orderId":"o","cafeId":"caffe-macs","at":"2026-01-01T00:00:00.000Z"}}"#.utf8)
        // Topics each consumer subscribes to: heartbeats reach them all.
        for topic in ["heartbeat.intruder.", "sighting.s0.", "device.s0.", "order.placed.caffe-macs.", "region.event.campus.", "kitchen.ready.caffe-macs."] {
            try publisher.send(multipart: [Data(topic.utf8), deep])
            try publisher.send(multipart: [Data(topic.utf8), bigSeq])
        }
        try fixes.send(multipart: [Data("location.s0.".utf8), deep])
        // A compact sighting batch whose one sighting's RSSI is +5: refused by region-monitor, quoted in hex.
        let sighting = Sighting(deviceId: "intruder-phone", beacon: BeaconIdentity(uuid: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", major: 1, minor: 1), rssi: -61,
                                measuredPower: -59, accuracy: 1.5, proximity: .near, observedAt: Timestamp(milliseconds: 1_782_000_000_000))
        var compact = try #require(CompactSightingBatch.encode(Envelope(type: .sightingBatch, id: "compact-bad", source: "intruder", stream: "sighting", seq: 1,
                                                                        time: Timestamp(milliseconds: 1_782_000_000_000), body: .sightings(SightingBatch(sightings: [sighting])))))
        let rssiAt = compact.count - 1 - 8 - 1 - 8 - 2
        #expect(compact[rssiAt] == UInt8(bitPattern: -61))
        compact[rssiAt] = 5
        try publisher.send(multipart: [Data("sighting.s0.".utf8), compact])
        let nesting = "the document nests arrays and objects more than 64 levels deep"
        for consumer in ["region-monitor", "order-service", "kitchen-display", "notification-service"] {
            let letter = try watcher.waitFor("deadletter.\(consumer).") {
                if case .deadLetter(let d) = $0.envelope.body { d.message == nesting } else { false }
            }
            guard case .deadLetter(let d) = letter.envelope.body else { continue }
            #expect(d.code == "message.malformed" && d.excerpt.count <= 512, "\(consumer): \(d)")
            _ = try watcher.waitFor("deadletter.\(consumer).") {
                if case .deadLetter(let d) = $0.envelope.body { d.message == "field seq: must be 0…9223372036854775807, not 9223372036854775808" } else { false }
            }
        }
        let compactLetter = try watcher.waitFor("deadletter.region-monitor.") {
            if case .deadLetter(let d) = $0.envelope.body { d.message == "compact sighting batch: sightings[0].rssi 5 is not -127...0" } else { false }
        }
        if case .deadLetter(let d) = compactLetter.envelope.body {
            #expect(d.code == "message.malformed" && d.topic == "sighting.s0." && d.excerpt.hasPrefix("compact frame of \(compact.count) bytes, hex: 00534201"), "\(d)")
        }
        // The fix channel's dead letter carries no excerpt (it may hold coordinates).
        _ = try watcher.waitFor("deadletter.region-monitor.") {
            if case .deadLetter(let d) = $0.envelope.body { d.message == nesting && d.topic == "location.s0." && d.excerpt.isEmpty } else { false }
        }
        for service in Self.requestSockets {
            let client = RequestClient(context: context, endpoint: platform.endpoint(service), timeoutMilliseconds: 5_000)
            defer { client.close() }
            #expect(try client.call(Op.health, Empty(), as: HealthStatus.self).status == "ok", "\(service) still answers")
            #expect(platform.process(service)?.isRunning == true, "\(service) is running")
        }
    }
}
