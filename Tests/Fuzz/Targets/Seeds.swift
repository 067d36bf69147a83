import Foundation
import Messages

/// Seed inputs from the repository: PROTOCOL.md's examples (the ```json blocks its own test keeps
/// decoding, `ProtocolDocumentTests`) and the campus catalogs.
public enum Seeds {
    /// The repository this file was compiled from (the fuzzers and tests run from a checkout).
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()   // Targets
        .deletingLastPathComponent()   // Fuzz
        .deletingLastPathComponent()   // Tests
        .deletingLastPathComponent()

    /// One ```json block: its kind (envelope, request, reply), its op for requests and replies, its text.
    struct Example {
        let kind: String
        let name: String?
        let json: Data
    }

    /// Every ```json block of PROTOCOL.md.
    static let protocolExamples: [Example] = {
        let url = repositoryRoot.appendingPathComponent("Shared/Messages/PROTOCOL.md")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        var examples: [Example] = []
        var open: (kind: String, name: String?)?
        var body: [String] = []
        for line in text.components(separatedBy: "\n") {
            if let block = open {
                if line == "```" {
                    examples.append(Example(kind: block.kind, name: block.name, json: Data(body.joined(separator: "\n").utf8)))
                    open = nil
                    body = []
                } else {
                    body.append(line)
                }
            } else if line.hasPrefix("```json") {
                let words = line.dropFirst(3).split(separator: " ").map(String.init)
                open = (words.count > 1 ? words[1] : "", words.count > 2 ? words[2] : nil)
            }
        }
        return examples
    }()

    /// The examples of `kind` (and of op `name`, when given).
    static func examples(kind: String, name: String? = nil) -> [Data] {
        protocolExamples.filter { $0.kind == kind && (name == nil || $0.name == name) }.map(\.json)
    }

    /// The envelope examples of one event type.
    static func envelopes(of type: String) -> [Data] {
        examples(kind: "envelope").filter { String(decoding: $0, as: UTF8.self).contains("\"type\": \"\(type)\"") }
    }

    /// The demo campus and the test fixtures, valid and not.
    static func catalogs() -> [Data] {
        let fixtures = repositoryRoot.appendingPathComponent("Tests/SharedTests/Fixtures")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: fixtures.path)) ?? []
        let urls = [repositoryRoot.appendingPathComponent("deploy/campus.json")]
            + names.filter { $0.hasSuffix(".json") }.sorted().map { fixtures.appendingPathComponent($0) }
        return urls.compactMap { try? Data(contentsOf: $0) }
    }
}

/// Frames of the platform's own, written by its encoders: the shapes PROTOCOL.md shows once, varied.
extension Seeds {
    static let time = Timestamp(milliseconds: 1_782_000_000_123)
    static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"

    static func sightingEnvelopes() -> [Data] {
        [(-64, -59, 1.78, Proximity.near), (0, -1, -1, .unknown), (-127, -127, 10_000, .far), (-30, -90, 0.25, .immediate)].enumerated().map { index, values in
            Wire.encode(Envelope(type: .sightingReported, id: "e-\(index)", source: "beacon-ingest-s\(index)", stream: "sighting", seq: UInt64(index * 1_000_003),
                                 time: time, body: .sighting(Sighting(deviceId: "dev-\u{00E9}-\(index)", beacon: BeaconIdentity(uuid: uuid, major: index * 20_000, minor: 65_535 - index),
                                                                      rssi: values.0, measuredPower: values.1, accuracy: values.2, proximity: values.3, observedAt: time))))
        }
    }

    /// `sighting.batch` envelopes: one, a few, and the most one message may carry.
    static func sightingBatchEnvelopes() -> [Data] {
        let sightings = sightingEnvelopes().compactMap { try? Wire.decodeEnvelope($0) }.compactMap { envelope -> Sighting? in
            if case .sighting(let s) = envelope.body { return s }
            return nil
        }
        return [1, sightings.count, SightingBatch.maxCount].enumerated().map { index, count in
            Wire.encode(Envelope(type: .sightingBatch, id: "b-\(index)", source: "beacon-ingest", stream: "sighting", seq: UInt64(index + 1), time: time,
                                 body: .sightings(SightingBatch(sightings: (0..<count).map { sightings[$0 % sightings.count] }))))
        }
    }

    /// `sightingBatchEnvelopes` as compact frames, and PROTOCOL.md's compact example.
    static func compactFrames() -> [Data] {
        let frames = sightingBatchEnvelopes().compactMap { try? Wire.decodeEnvelope($0) }.compactMap(CompactSightingBatch.encode)
        let document = (try? String(contentsOf: repositoryRoot.appendingPathComponent("Shared/Messages/PROTOCOL.md"), encoding: .utf8)) ?? ""
        let lines = document.components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: "```hex compact"), let end = lines[start...].firstIndex(of: "```") else { return frames }
        let bytes = lines[(start + 1)..<end].flatMap { line in
            (line.split(separator: "#", maxSplits: 1).first ?? "").split(separator: " ").compactMap { UInt8($0, radix: 16) }
        }
        return frames + [Data(bytes)]
    }

    static func reports() -> [IngestReport] {
        let status = DeviceStatusReport(authorization: .whenInUse, foreground: true, precise: false)
        let ranging = RangingReport(uuid: uuid.lowercased(), major: 1, minor: 2, rssi: -70, measuredPower: -59, timestamp: time, proximity: .far, accuracy: 7.5)
        let fix = FixReport(latitude: -33.8568, longitude: 151.2153, horizontalAccuracy: 65, precise: true, timestamp: time)
        return [IngestReport(deviceId: "phone-1", status: status, sightings: [ranging, ranging], fixes: [fix]),
                IngestReport(deviceId: "phone-2", sightings: [RangingReport(uuid: uuid, major: 0, minor: 0, rssi: 0, measuredPower: -1, timestamp: time)]),
                IngestReport(deviceId: "phone-3", fixes: [fix, FixReport(latitude: 90, longitude: -180, horizontalAccuracy: 0, precise: false, timestamp: time)])]
    }

    static func reportRequests() -> [Data] {
        reports().map { Wire.encode(Request(op: Op.ingestReport, id: "r-\($0.deviceId)", body: $0)) }
    }

    static func batchRequests() -> [Data] {
        [Wire.encode(Request(op: Op.ingestBatch, id: "b1", body: IngestBatch(reports: reports()))),
         Wire.encode(Request(op: Op.ingestBatch, id: "b2", body: IngestBatch(reports: [])))]
    }

    static func fixEnvelopes() -> [Data] {
        [Wire.encode(Envelope(type: .locationFix, source: "beacon-ingest", stream: "location", seq: 5, time: time,
                              body: .locationFix(LocationFix(deviceId: "dev-1", latitude: 37.33482, longitude: -122.00893, horizontalAccuracy: 12.5, precise: true, observedAt: time))))]
    }
}
