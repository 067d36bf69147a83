import BeaconIngestCore
import Foundation
import Messages
import Testing

/// Field and size rules for what phones send: nothing malformed reaches the bus, and every
/// refusal says which item and why.
@Suite("Beacon ingest: validation")
struct ReportValidatorTests: IngestFixtures {
    static let validSighting: (String, RangingReport, String?) = ("valid", ranging(), nil)

    @Test("each field of a ranging report is checked", arguments: [
        validSighting,
        ("lower-case uuid", ranging(uuid: campusUUID.lowercased()), nil),
        ("not a uuid", ranging(uuid: "not-a-uuid"), "request.invalidField"),
        ("uuid without dashes", ranging(uuid: campusUUID.replacingOccurrences(of: "-", with: "")), "request.invalidField"),
        ("uuid in braces", ranging(uuid: "{\(campusUUID)}"), "request.invalidField"),
        ("uuid with a non-hex digit", ranging(uuid: "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C3G"), "request.invalidField"),
        ("empty uuid", ranging(uuid: ""), "request.invalidField"),
        ("major 0", ranging(major: 0), nil),
        ("major 65535", ranging(major: 65535), nil),
        ("major -1", ranging(major: -1), "request.invalidField"),
        ("major 65536", ranging(major: 65536), "request.invalidField"),
        ("minor 0", ranging(minor: 0), nil),
        ("minor 65535", ranging(minor: 65535), nil),
        ("minor -1", ranging(minor: -1), "request.invalidField"),
        ("minor 65536", ranging(minor: 65536), "request.invalidField"),
        ("rssi -127", ranging(rssi: -127), nil),
        ("rssi 0 (unreadable)", ranging(rssi: 0), nil),
        ("rssi -128", ranging(rssi: -128), "request.invalidField"),
        ("rssi 1", ranging(rssi: 1), "request.invalidField"),
        ("measuredPower -127", ranging(measuredPower: -127), nil),
        ("measuredPower -1", ranging(measuredPower: -1), nil),
        ("measuredPower 0", ranging(measuredPower: 0), "request.invalidField"),
        ("measuredPower -128", ranging(measuredPower: -128), "request.invalidField"),
        // The phone's own proximity and accuracy (CLBeacon's), both optional.
        ("proximity immediate", ranging(proximity: .immediate), nil),
        ("proximity near", ranging(proximity: .near), nil),
        ("proximity far", ranging(proximity: .far), nil),
        ("proximity unknown", ranging(proximity: .unknown), nil),
        ("accuracy 0 m", ranging(accuracy: 0), nil),
        ("accuracy 1.37 m", ranging(proximity: .near, accuracy: 1.37), nil),
        ("accuracy 10000 m", ranging(proximity: .far, accuracy: 10_000), nil),
        ("accuracy 10000.01 m", ranging(proximity: .far, accuracy: 10_000.01), "request.invalidField"),
        ("accuracy with proximity unknown", ranging(proximity: .unknown, accuracy: 3), nil),
        ("accuracy -1 alone", ranging(accuracy: -1), nil),
        ("accuracy -1 with unknown", ranging(proximity: .unknown, accuracy: -1), nil),
        ("accuracy -1 with immediate", ranging(proximity: .immediate, accuracy: -1), "request.invalidField"),
        ("accuracy -1 with near", ranging(proximity: .near, accuracy: -1), "request.invalidField"),
        ("accuracy -1 with far", ranging(proximity: .far, accuracy: -1), "request.invalidField"),
        ("accuracy -0.5", ranging(accuracy: -0.5), "request.invalidField"),
        ("accuracy -2", ranging(proximity: .unknown, accuracy: -2), "request.invalidField"),
        ("accuracy NaN", ranging(accuracy: .nan), "request.invalidField"),
        ("accuracy infinite", ranging(accuracy: .infinity), "request.invalidField"),
    ] as [(String, RangingReport, String?)])
    func sightingFields(label: String, report: RangingReport, code: String?) throws {
        let outcome = try IngestEngine().process(IngestReport(deviceId: Self.device, sightings: [report]), known: Self.known(.always), now: t0)
        #expect(outcome.result.rejections.map(\.code) == (code.map { [$0] } ?? []), "\(label)")
        #expect(outcome.sightings.count == (code == nil ? 1 : 0), "\(label)")
        if let rejection = outcome.result.rejections.first { #expect(!rejection.message.isEmpty) }
    }

    @Test("each field of a location fix is checked", arguments: [
        ("valid", fix(), nil),
        ("latitude 90", fix(latitude: 90), nil),
        ("latitude -90", fix(latitude: -90), nil),
        ("latitude 90.0001", fix(latitude: 90.0001), "request.invalidField"),
        ("latitude -91", fix(latitude: -91), "request.invalidField"),
        ("latitude NaN", fix(latitude: .nan), "request.invalidField"),
        ("latitude infinite", fix(latitude: .infinity), "request.invalidField"),
        ("longitude 180", fix(longitude: 180), nil),
        ("longitude -180", fix(longitude: -180), nil),
        ("longitude 180.5", fix(longitude: 180.5), "request.invalidField"),
        ("longitude -181", fix(longitude: -181), "request.invalidField"),
        ("longitude NaN", fix(longitude: .nan), "request.invalidField"),
        ("accuracy 0", fix(accuracy: 0), nil),
        ("accuracy -1 (invalid fix)", fix(accuracy: -1), "request.invalidField"),
        ("accuracy NaN", fix(accuracy: .nan), "request.invalidField"),
        ("accuracy infinite", fix(accuracy: .infinity), "request.invalidField"),
        ("accuracy 100001 m", fix(accuracy: 100_001), "request.invalidField"),
    ] as [(String, FixReport, String?)])
    func fixFields(label: String, report: FixReport, code: String?) throws {
        let outcome = try IngestEngine().process(IngestReport(deviceId: Self.device, fixes: [report]), known: Self.known(.always), now: t0)
        #expect(outcome.result.rejections.map(\.code) == (code.map { [$0] } ?? []), "\(label)")
        #expect(outcome.fixes.count == (code == nil ? 1 : 0), "\(label)")
    }

    @Test("a bad device id makes the whole batch unusable", arguments: [
        ("", "request.invalidField"),
        ("has space", "request.invalidField"),
        ("slash/id", "request.invalidField"),
        ("grüße", "request.invalidField"),
        (String(repeating: "a", count: 65), "request.invalidField"),
        (String(repeating: "a", count: 64), nil),
        ("Phone_1-A", nil),
    ] as [(String, String?)])
    func deviceID(id: String, code: String?) {
        let report = IngestReport(deviceId: id, status: Self.status(.always))
        #expect(errorCode { () throws(ServiceError) in try IngestEngine().process(report, known: nil, now: t0) } == code)
    }

    @Test("a per-item rejection names its kind and index; the rest of the batch is taken")
    func rejectionsNameIndexAndKind() throws {
        let report = IngestReport(deviceId: Self.device, status: Self.status(.always),
                                  sightings: [Self.ranging(), Self.ranging(major: 70_000), Self.ranging(minor: 3)],
                                  fixes: [Self.fix(), Self.fix(latitude: 91), Self.fix(accuracy: -5)])
        let outcome = try IngestEngine().process(report, known: nil, now: t0)
        #expect(outcome.result.accepted == 4) // status, two sightings, one fix
        #expect(outcome.result.rejected == 3)
        #expect(outcome.result.rejections.map { "\($0.kind)[\($0.index)] \($0.code)" } == [
            "sighting[1] request.invalidField", "fix[1] request.invalidField", "fix[2] request.invalidField",
        ])
        #expect(outcome.result.rejections[0].message.contains("70000"))
        #expect(outcome.sightings.map(\.beacon.minor) == [2, 3])
        #expect(outcome.fixes.count == 1)
    }

    @Test("a proximity this build does not know refuses that sighting only, by either route", arguments: [Op.ingestReport, Op.ingestBatch])
    func unknownProximity(op: String) throws {
        func sighting(_ proximity: String) -> String {
            #"{"uuid":"\#(campusUUID)","major":1,"minor":2,"rssi":-60,"measuredPower":-59,"proximity":"\#(proximity)","accuracy":1.2,"timestamp":"\#(t0)"}"#
        }
        let report = #"{"deviceId":"\#(Self.device)","sightings":[\#(sighting("near")),\#(sighting("close")),\#(sighting(String(repeating: "x", count: 100_000)))]}"#
        let frame = op == Op.ingestReport ? #"{"op":"\#(op)","id":"r","body":\#(report)}"# : #"{"op":"\#(op)","id":"r","body":{"reports":[\#(report)]}}"#
        let decoded = op == Op.ingestReport
            ? try Wire.decodeRequest(Data(frame.utf8), body: IngestReport.self).body
            : try #require(try Wire.decodeRequest(Data(frame.utf8), body: IngestBatch.self).body.reports.first)
        let outcome = try IngestEngine().process(decoded, known: Self.known(.always), now: t0)
        #expect(outcome.result.rejections.map { "\($0.kind)[\($0.index)] \($0.code)" } == [
            "sighting[1] request.invalidField", "sighting[2] request.invalidField",
        ])
        #expect(outcome.result.rejections[0].message == #"proximity "close" is not one of immediate, near, far, unknown"#)
        #expect(outcome.result.rejections[1].message.count < 120, "an enormous value is not echoed back")
        #expect(outcome.sightings.map(\.beacon.minor) == [2])
    }
}
