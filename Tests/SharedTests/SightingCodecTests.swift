import Foundation
@testable import Messages
import Testing

/// The hand-written sighting route must be indistinguishable from the generic one: same JSON
/// out, same envelopes in, and anything unusual left to the generic decoder.
@Suite("Sighting codec: the fast route says exactly what the generic one says")
struct SightingCodecTests {
    /// Deterministic variety: accuracies with and without fractions, negative unknown (-1), names that need escaping.
    static func samples() -> [Envelope] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let accuracies: [Double] = [-1, 0, 0.5, 1.41, 3.999, 12, 123.45, 0.001, 1e-7, 98765.4321]
        let devices = ["phone-1", "device_\u{00E9}", "quote\"d", "back\\slash", "tab\tnew\nline", "emoji-\u{1F600}"]
        return (0..<400).map { i in
            let proximity = Proximity.allCases[Int(next() % 4)]
            return Envelope(type: .sightingReported, id: "id-\(next())", source: i % 2 == 0 ? "beacon-ingest" : "beacon-ingest-s1", stream: "sighting",
                            seq: next(), time: Timestamp(milliseconds: 1_700_000_000_000 + Int64(next() % 1_000_000_000)),
                            body: .sighting(Sighting(deviceId: devices[i % devices.count] + "\(i)",
                                                     beacon: BeaconIdentity(uuid: "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30", major: Int(next() % 65536), minor: Int(next() % 65536)),
                                                     rssi: -Int(next() % 128), measuredPower: -Int(1 + next() % 127), accuracy: accuracies[i % accuracies.count],
                                                     proximity: proximity, observedAt: Timestamp(milliseconds: 1_700_000_000_000 + Int64(next() % 1_000_000_000)),
                                                     // Two in three carry evidence, to the 0.1 dB beacon-ingest rounds it to.
                                                     meanRssi: i % 3 == 0 ? nil : -Double(next() % 1_271) / 10, readings: i % 3 == 0 ? nil : Int(1 + next() % 1_000))))
        }
    }

    /// The same sightings as `sighting.batch` envelopes of 1, 2, 3, … sightings, and one of the most a batch may carry.
    static func batchSamples() -> [Envelope] {
        let sightings = samples().compactMap { envelope -> Sighting? in
            if case .sighting(let s) = envelope.body { return s }
            return nil
        }
        var batches: [Envelope] = []
        var start = 0, size = 1
        while start < sightings.count {
            let end = min(start + size, sightings.count)
            batches.append(Envelope(type: .sightingBatch, id: "b-\(start)", source: "beacon-ingest-s1", stream: "sighting", seq: UInt64(start + 1),
                                    time: Timestamp(milliseconds: 1_700_000_000_000 + Int64(start)), body: .sightings(SightingBatch(sightings: Array(sightings[start..<end])))))
            start = end
            size += 1
        }
        let most = (0..<SightingBatch.maxCount).map { sightings[$0 % sightings.count] }
        batches.append(Envelope(type: .sightingBatch, id: "most", source: "beacon-ingest", stream: "sighting", seq: 9, time: Timestamp(milliseconds: 1_700_000_000_000),
                                body: .sightings(SightingBatch(sightings: most))))
        return batches
    }

    static func generic(_ envelope: Envelope) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(envelope)
    }

    @Test("fast encoding decodes, with Foundation, to the same envelope; and is the same JSON object")
    func encodeMatchesGeneric() throws {
        for envelope in Self.samples() + Self.batchSamples() {
            let fast = try #require(envelope.fastEncoded())
            #expect(try JSONDecoder().decode(Envelope.self, from: fast) == envelope)
            let a = try JSONSerialization.jsonObject(with: fast) as? NSDictionary
            let b = try JSONSerialization.jsonObject(with: try Self.generic(envelope)) as? NSDictionary
            #expect(a == b)
            #expect(Wire.encode(envelope) == fast)
        }
    }

    @Test("fast decoding of generic JSON gives the generic result")
    func decodeMatchesGeneric() throws {
        for envelope in Self.samples() + Self.batchSamples() {
            let frame = try Self.generic(envelope)
            #expect(Envelope.fastDecode(frame) == envelope)
            #expect(try Wire.decodeEnvelope(frame) == envelope)
        }
    }

    @Test("frames the fast route does not fully recognise fall back, and the errors stay typed", arguments: [
        // Not a sighting: the generic route decodes it.
        (#"{"v":1,"type":"heartbeat","id":"h","source":"s","stream":"heartbeat","seq":1,"time":"2026-01-01T00:00:00.000Z","body":{"service":"s","streams":{},"replayEndpoint":"tcp://x:1"}}"#, nil),
        // Extra members are ignored by both routes.
        (#"{"v":1,"extra":[1,{"a":null}],"type":"sighting.reported","id":"x","source":"s","stream":"sighting","seq":1,"time":"2026-01-01T00:00:00.000Z","body":{"deviceId":"d","beacon":{"uuid":"U","major":1,"minor":2},"rssi":-60,"measuredPower":-59,"accuracy":1.5,"proximity":"near","observedAt":"2026-01-01T00:00:00.000Z","more":true}}"#, nil),
        (#"{"v":1,"type":"sighting.reported","id":"x","source":"s","stream":"sighting","seq":1,"time":"2026-01-01T00:00:00.000Z","body":{"deviceId":"d","beacon":{"uuid":"U","major":1},"rssi":-60,"measuredPower":-59,"accuracy":1.5,"proximity":"near","observedAt":"2026-01-01T00:00:00.000Z"}}"#, "message.malformed"),
        (#"{"v":1,"type":"sighting.reported","id":"x","source":"s","stream":"sighting","seq":1,"time":"2026-01-01T00:00:00.000Z","body":{"deviceId":"d","beacon":{"uuid":"U","major":1,"minor":2},"rssi":"loud","measuredPower":-59,"accuracy":1.5,"proximity":"near","observedAt":"2026-01-01T00:00:00.000Z"}}"#, "message.malformed"),
        (#"{"v":1,"type":"sighting.reported","id":"x","source":"s","stream":"sighting","seq":1,"time":"2026-01-01T00:00:00.000Z","body":{"deviceId":"d","beacon":{"uuid":"U","major":1,"minor":2},"rssi":-60,"measuredPower":-59,"accuracy":1.5,"proximity":"close","observedAt":"2026-01-01T00:00:00.000Z"}}"#, "message.malformed"),
        (#"{"v":2,"type":"sighting.reported","id":"x","source":"s","stream":"sighting","seq":1,"time":"2026-01-01T00:00:00.000Z","body":{}}"#, "message.unsupportedVersion"),
        (#"{"v":1,"type":"sighting.reported","id":"x","source":"s","stream":"sighting","seq":-1,"time":"2026-01-01T00:00:00.000Z","body":{"deviceId":"d","beacon":{"uuid":"U","major":1,"minor":2},"rssi":-60,"measuredPower":-59,"accuracy":1.5,"proximity":"near","observedAt":"2026-01-01T00:00:00.000Z"}}"#, "message.malformed"),
        (#"{"v":1,"type":"sighting.reported"} trailing"#, "message.malformed"),
        // A batch needs at least one sighting, and its type must say batch (and a single sighting's, single).
        (#"{"v":1,"type":"sighting.batch","id":"x","source":"s","stream":"sighting","seq":1,"time":"2026-01-01T00:00:00.000Z","body":{"sightings":[]}}"#, "message.malformed"),
        (#"{"v":1,"type":"sighting.reported","id":"x","source":"s","stream":"sighting","seq":1,"time":"2026-01-01T00:00:00.000Z","body":{"sightings":[{"deviceId":"d","beacon":{"uuid":"U","major":1,"minor":2},"rssi":-60,"measuredPower":-59,"accuracy":1.5,"proximity":"near","observedAt":"2026-01-01T00:00:00.000Z"}]}}"#, "message.malformed"),
        (#"{"v":1,"type":"sighting.batch","id":"x","source":"s","stream":"sighting","seq":1,"time":"2026-01-01T00:00:00.000Z","body":{"deviceId":"d","beacon":{"uuid":"U","major":1,"minor":2},"rssi":-60,"measuredPower":-59,"accuracy":1.5,"proximity":"near","observedAt":"2026-01-01T00:00:00.000Z"}}"#, "message.malformed"),
        // A bad sighting anywhere in a batch refuses the batch.
        (#"{"v":1,"type":"sighting.batch","id":"x","source":"s","stream":"sighting","seq":1,"time":"2026-01-01T00:00:00.000Z","body":{"sightings":[{"deviceId":"d","beacon":{"uuid":"U","major":1,"minor":2},"rssi":-60,"measuredPower":-59,"accuracy":1.5,"proximity":"near","observedAt":"2026-01-01T00:00:00.000Z"},{"deviceId":"d","beacon":{"uuid":"U","major":1,"minor":2},"rssi":5,"measuredPower":-59,"accuracy":1.5,"proximity":"near","observedAt":"2026-01-01T00:00:00.000Z"}]}}"#, "message.malformed"),
    ] as [(String, String?)])
    func fallback(frame: String, error: String?) throws {
        let data = Data(frame.utf8)
        if let error {
            #expect(Envelope.fastDecode(data) == nil)
            do {
                _ = try Wire.decodeEnvelope(data)
                Issue.record("decoded a frame that must be refused")
            } catch let e {
                #expect(e.code.rawValue == error)
            }
        } else {
            let generic = try JSONDecoder().decode(Envelope.self, from: data)
            #expect(try Wire.decodeEnvelope(data) == generic)
        }
    }
}

extension SightingCodecTests {
    /// Region events and nearest answers in every shape their optional members allow.
    static func regionSamples() -> [Envelope] {
        let time = Timestamp(milliseconds: 1_700_000_000_123)
        let beacon = BeaconIdentity(uuid: "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30", major: 65535, minor: 0)
        var envelopes: [Envelope] = []
        for (i, device) in ["phone-1", "quote\"d", "back\\slash/and/slash", "emoji-\u{1F600}", "tab\tnew\nline"].enumerated() {
            for state in ConditionState.allCases {
                let flags = Array(EventFlag.allCases.prefix(i % (EventFlag.allCases.count + 1)))
                let event = RegionEvent(monitor: "cafés", identifier: "macs-\(i)", deviceId: device, state: state, refinement: i % 2 == 0 ? beacon : nil,
                                        flags: flags, date: time.adding(seconds: Double(i)))
                envelopes.append(Envelope(type: .regionEvent, id: "r-\(i)", source: "region-monitor-s1", stream: "region", seq: UInt64(i * 3 + 1), time: time, body: .region(event)))
            }
            for (beacon, proximity) in [(beacon, Proximity.immediate), (nil, nil), (beacon, nil), (nil, Proximity.far)] as [(BeaconIdentity?, Proximity?)] {
                envelopes.append(Envelope(type: .regionNearest, id: "n-\(i)", source: "region-monitor", stream: "region", seq: 7, time: time,
                                          body: .nearest(NearestBeacon(deviceId: device, beacon: beacon, proximity: proximity, date: time))))
            }
        }
        return envelopes
    }

    @Test("region events and nearest answers: the hand-written writer gives JSONEncoder's bytes")
    func regionEncodeMatchesGeneric() throws {
        for envelope in Self.regionSamples() {
            let fast = try #require(envelope.fastEncoded())
            #expect(fast == (try Self.generic(envelope)), "\(String(decoding: fast, as: UTF8.self))")
            #expect(try Wire.decodeEnvelope(fast) == envelope)
            // The bodies alone, as region-monitor reads them back at start: by the readers, as Foundation reads them.
            switch envelope.body {
            case .region(let event):
                let json = Wire.encode(event)
                #expect(RegionEvent.fastDecode(json) == event)
                #expect(try JSONDecoder().decode(RegionEvent.self, from: json) == event)
            case .nearest(let nearest):
                let json = Wire.encode(nearest)
                #expect(NearestBeacon.fastDecode(json) == nearest)
                #expect(try JSONDecoder().decode(NearestBeacon.self, from: json) == nearest)
            default:
                Issue.record("not a region body")
            }
        }
        // A null refinement or an unknown flag is left to Foundation, which decides.
        #expect(RegionEvent.fastDecode(Data(#"{"date":"2026-01-01T00:00:00.000Z","deviceId":"d","flags":[],"identifier":"i","monitor":"m","refinement":null,"state":"satisfied"}"#.utf8)) == nil)
        #expect(RegionEvent.fastDecode(Data(#"{"date":"2026-01-01T00:00:00.000Z","deviceId":"d","flags":["teleported"],"identifier":"i","monitor":"m","state":"satisfied"}"#.utf8)) == nil)
    }

    @Test("device statuses: the hand-written writer gives JSONEncoder's bytes, read back as written")
    func deviceStatusEncodeMatchesGeneric() throws {
        let time = Timestamp(milliseconds: 1_795_790_000_123)
        var count = 0
        for (i, device) in ["phone-1", "quote\"d", "back\\slash/and/slash", "emoji-\u{1F600}", "tab\tnew\nline\u{1}"].enumerated() {
            for (a, authorization) in Authorization.allCases.enumerated() {
                let bits = (i * 7 + a * 3) & 0xF
                let status = DeviceStatus(deviceId: device, authorization: authorization, foreground: bits & 1 != 0, precise: bits & 2 != 0,
                                          monitoringAvailable: bits & 4 != 0, rangingAvailable: bits & 8 != 0, changedAt: time.adding(seconds: Double(i) * 0.5))
                let envelope = Envelope(type: .deviceStatus, id: "d-\(i)", source: "beacon-ingest", stream: "device", seq: UInt64(i + 1), time: time,
                                        body: .deviceStatus(status))
                let fast = try #require(envelope.fastEncoded())
                #expect(fast == (try Self.generic(envelope)), "\(String(decoding: fast, as: UTF8.self))")
                #expect(try Wire.decodeEnvelope(fast) == envelope)
                #expect(DeviceStatus.fastDecode(Wire.encode(status)) == status)
                count += 1
            }
        }
        // Every flag both ways.
        for bits in 0..<16 {
            let status = DeviceStatus(deviceId: "p", authorization: .always, foreground: bits & 1 != 0, precise: bits & 2 != 0,
                                      monitoringAvailable: bits & 4 != 0, rangingAvailable: bits & 8 != 0, changedAt: time)
            let envelope = Envelope(type: .deviceStatus, id: "f", source: "beacon-ingest", stream: "device", seq: 1, time: time, body: .deviceStatus(status))
            #expect(try #require(envelope.fastEncoded()) == (try Self.generic(envelope)))
            count += 1
        }
        #expect(count == 5 * Authorization.allCases.count + 16)
    }

    @Test("the evidence comes whole and in range or the sighting is refused, by both routes; a nearest answer carries at most 8 candidates")
    func evidenceBounds() throws {
        func sighting(_ extra: String) -> Data {
            Data(#"{"accuracy":1.5,"beacon":{"major":1,"minor":2,"uuid":"U"},"deviceId":"d","measuredPower":-59,"observedAt":"2026-01-01T00:00:00.000Z","proximity":"near","rssi":-60"#.utf8)
                + Data(extra.utf8) + Data("}".utf8)
        }
        for good in ["", #","meanRssi":-61.5,"readings":12"#, #","meanRssi":0,"readings":1000"#] {
            #expect(Sighting.fastDecode(sighting(good)) != nil, "\(good)")
            #expect((try? JSONDecoder().decode(Sighting.self, from: sighting(good))) != nil, "\(good)")
        }
        for bad in [#","readings":12"#, #","meanRssi":-61.5"#, #","meanRssi":-128,"readings":12"#, #","meanRssi":0.5,"readings":12"#,
                    #","meanRssi":-60,"readings":0"#, #","meanRssi":-60,"readings":1001"#] {
            #expect(Sighting.fastDecode(sighting(bad)) == nil, "\(bad)")
            #expect((try? JSONDecoder().decode(Sighting.self, from: sighting(bad))) == nil, "\(bad)")
        }
        let beacon = #"{"major":1,"minor":2,"uuid":"U"}"#
        let nine = Data((#"{"candidates":["# + Array(repeating: beacon, count: 9).joined(separator: ",") + #"],"date":"2026-01-01T00:00:00.000Z","deviceId":"d"}"#).utf8)
        #expect((try? JSONDecoder().decode(NearestBeacon.self, from: nine)) == nil)
        #expect(NearestBeacon.fastDecode(nine) == nil)
    }

    @Test("a batch of more sightings than one message may carry is refused by both routes, naming the bound")
    func batchBound() throws {
        let sighting = Sighting(deviceId: "d", beacon: BeaconIdentity(uuid: "U", major: 1, minor: 2), rssi: -60, measuredPower: -59, accuracy: 1.5, proximity: .near,
                                observedAt: Timestamp(milliseconds: 1_700_000_000_000))
        let over = Envelope(type: .sightingBatch, id: "x", source: "s", stream: "sighting", seq: 1, time: Timestamp(milliseconds: 1_700_000_000_000),
                            body: .sightings(SightingBatch(sightings: Array(repeating: sighting, count: SightingBatch.maxCount + 1))))
        let frame = Wire.encode(over)
        #expect(Envelope.fastDecode(frame) == nil)
        do {
            _ = try Wire.decodeEnvelope(frame)
            Issue.record("decoded a batch over the bound")
        } catch let e {
            #expect(e.code.rawValue == "message.malformed")
            #expect(e.message.contains("\(SightingBatch.maxCount)"))
        }
    }
}

@Suite("Batch reply codec: the hand-written reply is the generic reply")
struct BatchReplyCodecTests {
    @Test("an all-accepted reply is byte-for-byte what JSONEncoder writes; one with refusals goes the generic way")
    func sameBytes() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let clean = Reply.success(IngestBatchResult(accepted: 5, rejected: 0, results: [
            IngestBatchItem(deviceId: "a", result: IngestResult(accepted: 4, rejected: 0, rejections: [])),
            IngestBatchItem(deviceId: "quote\"d", result: IngestResult(accepted: 1, rejected: 0, rejections: [])),
        ]))
        #expect(try #require(clean.fastEncoded()) == (try encoder.encode(clean)))
        #expect(Wire.encode(clean) == (try encoder.encode(clean)))
        let refused = Reply.success(IngestBatchResult(accepted: 0, rejected: 1, results: [
            IngestBatchItem(deviceId: "b", error: ServiceError(.invalidField, "bad")),
        ]))
        #expect(refused.fastEncoded() == nil)
        #expect(try Wire.decodeReply(Wire.encode(refused), body: IngestBatchResult.self).get() == refused.body)
    }

    @Test("a hand-decoded batch equals the generic decoding")
    func batchDecode() throws {
        let batch = Request(op: Op.ingestBatch, id: "x", body: IngestBatch(reports: [
            IngestReport(deviceId: "d1", status: DeviceStatusReport(authorization: .whenInUse, foreground: true),
                         sightings: [RangingReport(uuid: "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30", major: 1, minor: 2, rssi: -61, measuredPower: -59, timestamp: Timestamp(milliseconds: 1_700_000_000_123)),
                                     // The phone's own proximity and accuracy, optional.
                                     RangingReport(uuid: "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30", major: 1, minor: 3, rssi: 0, measuredPower: -59, timestamp: Timestamp(milliseconds: 1_700_000_000_123),
                                                   proximity: .near, accuracy: 1.37),
                                     RangingReport(uuid: "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30", major: 1, minor: 4, rssi: 0, measuredPower: -59, timestamp: Timestamp(milliseconds: 1_700_000_000_123),
                                                   proximity: .unknown, accuracy: -1),
                                     RangingReport(uuid: "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30", major: 1, minor: 5, rssi: -70, measuredPower: -59, timestamp: Timestamp(milliseconds: 1_700_000_000_123),
                                                   accuracy: 0)],
                         fixes: [FixReport(latitude: 37.3349, longitude: -122.009, horizontalAccuracy: 12.5, precise: false, timestamp: Timestamp(milliseconds: 1_700_000_000_000))]),
            IngestReport(deviceId: "d2"),
        ]))
        let frame = Wire.encode(batch)
        let fast = try #require(Request<IngestBatch>.fastDecode(frame))
        #expect(fast.body == batch.body && fast.op == batch.op && fast.id == batch.id)
        #expect(RequestHead.fastDecode(frame)?.op == Op.ingestBatch)
        // A null optional, or a wrong type, is left to the generic decoder.
        let odd = Data(#"{"op":"ingest.batch","id":"x","body":{"reports":[{"deviceId":"d","status":null}]}}"#.utf8)
        #expect(Request<IngestBatch>.fastDecode(odd) == nil)
        #expect(try Wire.decodeRequest(odd, body: IngestBatch.self).body.reports.first?.status == nil)
        let wrong = Data(#"{"op":"ingest.batch","id":"x","body":{"reports":[{"deviceId":7}]}}"#.utf8)
        #expect(throws: WireError.self) { try Wire.decodeRequest(wrong, body: IngestBatch.self) }
    }
}
