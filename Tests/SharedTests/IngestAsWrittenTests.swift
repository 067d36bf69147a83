import Foundation
@testable import Messages
import Testing

/// Reports laid out as JSONEncoder writes them with sorted keys are read by matching that layout;
/// what they decode to is what Foundation decodes, and every other layout goes the general way.
struct IngestAsWrittenTests {
    static let uuid = IngestBatchCodecTests.uuid

    static func sortedEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    static func reports() -> [IngestReport] {
        let stamp = Timestamp(milliseconds: 1_782_000_000_123)
        let ranging = [
            RangingReport(uuid: uuid, major: 1, minor: 2, rssi: -61, measuredPower: -59, timestamp: stamp),
            RangingReport(uuid: uuid, major: 65535, minor: 0, rssi: 0, measuredPower: -59, timestamp: stamp, proximity: .near, accuracy: 1.37),
            RangingReport(uuid: uuid, major: 3, minor: 4, rssi: -90, measuredPower: -70, timestamp: stamp, proximity: nil, accuracy: -1),
            RangingReport(uuid: uuid, major: 3, minor: 4, rssi: -90, measuredPower: -70, timestamp: stamp, proximity: .immediate),
        ]
        let fix = FixReport(latitude: 37.3349, longitude: -122.009, horizontalAccuracy: 12.5, precise: true, timestamp: stamp)
        let status = DeviceStatusReport(authorization: .whenInUse, foreground: true, precise: true, monitoringAvailable: true, rangingAvailable: true)
        return [
            IngestReport(deviceId: "d1", sightings: ranging),
            IngestReport(deviceId: "gr\u{00FC}\u{00DF}e \"q\"", status: status, sightings: [ranging[1]], fixes: [fix]),
            IngestReport(deviceId: "d3", status: status),
            IngestReport(deviceId: "d4", fixes: [fix]),
            IngestReport(deviceId: "d5", sightings: []),
        ]
    }

    private func asWritten(_ data: Data) -> (IngestReport?, RangingReport?) {
        Array(data).withUnsafeBytes { bytes in
            var scanner = JSONScanner(bytes)
            // The layout's own reader, so a layout it stopped matching would fail here, not pass
            // through the general one.
            let report = IngestReport.readAsWritten(from: &scanner)
            var again = JSONScanner(bytes)
            return (report, RangingReport.readAsWritten(from: &again))
        }
    }

    @Test("every report and ranging report JSONEncoder writes with sorted keys: read by its layout, the value Foundation reads")
    func sortedLayout() throws {
        for report in Self.reports() {
            let data = try Self.sortedEncoder().encode(report)
            #expect(asWritten(data).0 == report)
            #expect(try JSONDecoder().decode(IngestReport.self, from: data) == report)
            for ranging in report.sightings ?? [] {
                let one = try Self.sortedEncoder().encode(ranging)
                #expect(asWritten(one).1 == ranging, "\(String(decoding: one, as: UTF8.self))")
            }
        }
        // A whole request: the fast route and Foundation agree.
        let request = try Self.sortedEncoder().encode(Request(op: Op.ingestBatch, id: "x", body: IngestBatch(reports: Self.reports())))
        #expect(Request<IngestBatch>.fastDecode(request)?.body == (try JSONDecoder().decode(Request<IngestBatch>.self, from: request).body))
    }

    @Test("in the sorted layout a repeated member, a null or a space is not read by it, and the service's route still refuses or reads it as before", arguments: [
        ("rssi twice", #"{"major":1,"measuredPower":-59,"minor":2,"rssi":-61,"rssi":-90,"timestamp":"2026-01-01T00:00:00.000Z","uuid":"U"}"#, false),
        ("uuid twice", #"{"major":1,"measuredPower":-59,"minor":2,"rssi":-61,"timestamp":"2026-01-01T00:00:00.000Z","uuid":"U","uuid":"V"}"#, false),
        ("accuracy null", #"{"accuracy":null,"major":1,"measuredPower":-59,"minor":2,"rssi":-61,"timestamp":"2026-01-01T00:00:00.000Z","uuid":"U"}"#, true),
        ("a space", #"{"major":1, "measuredPower":-59,"minor":2,"rssi":-61,"timestamp":"2026-01-01T00:00:00.000Z","uuid":"U"}"#, true),
        ("an unknown member", #"{"major":1,"measuredPower":-59,"minor":2,"rssi":-61,"timestamp":"2026-01-01T00:00:00.000Z","tx":3,"uuid":"U"}"#, true),
    ] as [(String, String, Bool)])
    func otherLayouts(label: String, ranging: String, accepted: Bool) throws {
        let text = ranging.replacingOccurrences(of: #""U""#, with: "\"\(Self.uuid)\"").replacingOccurrences(of: #""V""#, with: "\"\(Self.uuid)\"")
        let one = Array(text.utf8)
        let read = one.withUnsafeBytes { bytes in
            var scanner = JSONScanner(bytes)
            let report = RangingReport.readAsWritten(from: &scanner)
            return (report, scanner.position)
        }
        #expect(read.0 == nil, "\(label)")
        #expect(read.1 == 0, "\(label)")
        let frame = Data(#"{"body":{"reports":[{"deviceId":"d1","sightings":["#.utf8 + one + #"]}]},"id":"x","op":"ingest.batch"}"#.utf8)
        let decoded = Result { try Wire.decodeRequest(frame, body: IngestBatch.self) }
        #expect(((try? decoded.get()) != nil) == accepted, "\(label)")
        if accepted { #expect(try decoded.get().body == (try JSONDecoder().decode(Request<IngestBatch>.self, from: frame).body), "\(label)") }
    }
}
