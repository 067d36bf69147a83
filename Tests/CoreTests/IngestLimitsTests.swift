import BeaconIngestCore
import Foundation
import Messages
import Testing

/// The limits on what a phone or gateway may send: batch sizes, string lengths and how far a
/// timestamp may stray from beacon-ingest's clock. Each exactly at its limit is taken, one past
/// it refused with a clear code; nothing crashes on an enormous value.
@Suite("Beacon ingest: sizes, string lengths and clock limits")
struct IngestLimitsTests: IngestFixtures {
    // MARK: Timestamps

    /// (label, seconds from the engine's clock, the refusal's message after "timestamp <t> " or nil when taken)
    static let timestamps: [(String, Double, String?)] = [
        ("now", 0, nil),
        ("1 ms ago", -0.001, nil),
        ("60 s ahead: the limit", 60, nil),
        ("60.001 s ahead: just beyond", 60.001, "is 60.001 s in the future; the limit is 60 s"),
        ("61 s ahead", 61, "is 61 s in the future; the limit is 60 s"),
        ("a day ahead", 86_400, "is 86400 s in the future; the limit is 60 s"),
        ("600 s old: the limit", -600, nil),
        ("600.001 s old: just beyond", -600.001, "is 600.001 s old; the limit is 600 s"),
        ("601 s old", -601, "is 601 s old; the limit is 600 s"),
        ("a year old", -31_536_000, "is 31536000 s old; the limit is 600 s"),
    ]

    @Test("a timestamp may be at most 60 s ahead of the clock and at most 600 s behind it", arguments: timestamps, ["sighting", "fix"])
    func timestamp(row: (String, Double, String?), kind: String) throws {
        let (label, offset, refusal) = row
        // The limits follow the injected clock, wherever it stands.
        for now in [t0, t0.adding(seconds: 12_345.678), Timestamp(milliseconds: 86_400_000)] {
            let time = now.adding(seconds: offset)
            let report = IngestReport(deviceId: Self.device, sightings: kind == "sighting" ? [Self.ranging(at: time)] : nil,
                                      fixes: kind == "fix" ? [Self.fix(at: time)] : nil)
            let outcome = try IngestEngine().process(report, known: Self.known(.always), now: now)
            #expect(outcome.result.rejections.map(\.message) == (refusal.map { ["timestamp \(time) \($0)"] } ?? []), "\(label) at \(now)")
            #expect(outcome.result.rejections.allSatisfy { $0.code == "request.invalidField" && $0.kind == kind })
            #expect(outcome.sightings.count + outcome.fixes.count == (refusal == nil ? 1 : 0), "\(label) at \(now)")
        }
    }

    // MARK: Batch sizes

    @Test("a report carries at most 500 sightings and 100 fixes; beyond, it is refused whole with request.tooLarge", arguments: [
        (0, 0, nil), (1, 1, nil), (500, 0, nil), (0, 100, nil), (500, 100, nil),
        (501, 0, "a batch carries at most 500 sightings, got 501"), (0, 101, "a batch carries at most 100 fixes, got 101"),
        (501, 101, "a batch carries at most 500 sightings, got 501"),
    ] as [(Int, Int, String?)])
    func reportLimits(sightings: Int, fixes: Int, refusal: String?) throws {
        let report = IngestReport(deviceId: Self.device, sightings: (0..<sightings).map { Self.ranging(minor: $0) },
                                  fixes: Array(repeating: Self.fix(), count: fixes))
        let engine = IngestEngine()
        do {
            let outcome = try engine.process(report, known: Self.known(.always), now: t0)
            #expect(refusal == nil)
            #expect(outcome.result.accepted == sightings + fixes)
            #expect(outcome.sightings.count == sightings && outcome.fixes.count == fixes)
        } catch {
            #expect(error.code == "request.tooLarge")
            #expect(error.message == refusal)
            // Refused before any of it was looked at.
            #expect(engine.trackedDevices == 0)
        }
    }

    @Test("a gateway batch carries at most 1000 reports and 10000 sightings in all", arguments: [
        (1, 0, nil), (1_000, 0, nil), (1_001, 0, "a batch carries at most 1000 reports, got 1001"),
        (20, 500, nil), (21, 500, "a batch carries at most 10000 sightings, got 10500"),
        (1_000, 10, nil), (1_000, 11, "a batch carries at most 10000 sightings, got 11000"),
    ] as [(Int, Int, String?)])
    func gatewayLimits(reports: Int, sightingsEach: Int, refusal: String?) {
        let sightings = Array(repeating: Self.ranging(), count: sightingsEach)
        let batch = IngestBatch(reports: (0..<reports).map { IngestReport(deviceId: "phone-\($0)", sightings: sightings) })
        let error: ServiceError? = {
            do throws(ServiceError) {
                try ReportValidator().validateBatch(batch)
                return nil
            } catch {
                return error
            }
        }()
        #expect(error?.code == (refusal == nil ? nil : "request.tooLarge"))
        #expect(error?.message == refusal)
    }

    @Test("the gateway limit on sightings counts exactly: 10000 taken, 10001 refused")
    func gatewaySightingsEdge() {
        func batch(extra: Int) -> IngestBatch {
            var reports = (0..<20).map { IngestReport(deviceId: "phone-\($0)", sightings: Array(repeating: Self.ranging(), count: 500)) }
            reports.append(IngestReport(deviceId: "phone-x", sightings: Array(repeating: Self.ranging(), count: extra), fixes: [Self.fix()]))
            return IngestBatch(reports: reports)
        }
        #expect(errorCode { () throws(ServiceError) in try ReportValidator().validateBatch(batch(extra: 0)) } == nil)
        #expect(errorCode { () throws(ServiceError) in try ReportValidator().validateBatch(batch(extra: 1)) } == "request.tooLarge")
    }

    // MARK: Strings

    /// An `ingest.report` body with every string field a placeholder.
    static let template = #"""
        {"deviceId":"DEVICE","status":{"authorization":"AUTH","foreground":true,"precise":true,"monitoringAvailable":true,"rangingAvailable":true},\#
        "sightings":[{"uuid":"UUID","major":1,"minor":2,"rssi":-60,"measuredPower":-59,"proximity":"PROX","accuracy":1.5,"timestamp":"STIME"}],\#
        "fixes":[{"latitude":37.3349,"longitude":-122.009,"horizontalAccuracy":10,"precise":true,"timestamp":"FTIME"}],"note":"NOTE"}
        """#

    static func body(replacing field: String, with value: String) -> String {
        let fields = ["DEVICE": Self.device, "AUTH": "always", "UUID": campusUUID, "PROX": "near", "STIME": "\(t0)", "FTIME": "\(t0)", "NOTE": "hello"]
        return fields.reduce(template) { text, pair in text.replacingOccurrences(of: pair.key, with: pair.key == field ? value : pair.value) }
    }

    /// A whole request frame carrying `body` as the report (in a batch of one for `ingest.batch`).
    static func frame(_ op: String, _ body: String) -> Data {
        Data((op == Op.ingestReport ? #"{"op":"\#(op)","id":"big","body":\#(body)}"# : #"{"op":"\#(op)","id":"big","body":{"reports":[\#(body)]}}"#).utf8)
    }

    /// What becomes of a 200,000-character string in each field: the whole request refused by the
    /// decoder (naming the field), the report refused, one item refused, or nothing at all.
    @Test("an enormous string in any field gets a clear code, never a crash", arguments: [
        ("DEVICE", "report request.invalidField"),
        ("AUTH", "request request.invalidField status.authorization"),
        ("UUID", "item sighting[0] request.invalidField"),
        ("PROX", "item sighting[0] request.invalidField"),
        ("STIME", "request request.invalidField sightings[0].timestamp"),
        ("FTIME", "request request.invalidField fixes[0].timestamp"),
        ("NOTE", "accepted"),
    ], [Op.ingestReport, Op.ingestBatch])
    func enormousString(row: (field: String, expected: String), op: String) throws {
        let (field, expected) = row
        let frame = Self.frame(op, Self.body(replacing: field, with: String(repeating: "x", count: 200_000)))
        let report: IngestReport
        do {
            report = op == Op.ingestReport
                ? try Wire.decodeRequest(frame, body: IngestReport.self).body
                : try #require(try Wire.decodeRequest(frame, body: IngestBatch.self).body.reports.first)
        } catch let error as WireError {
            let path = expected.split(separator: " ").last.map(String.init) ?? ""
            #expect(expected.hasPrefix("request \(error.code.rawValue)"), "\(field): \(error.code)")
            #expect(error.message.hasPrefix("field body.\(op == Op.ingestBatch ? "reports[0]." : "")\(path)"), "\(field): \(error.message.prefix(120))")
            return
        }
        do {
            let outcome = try IngestEngine().process(report, known: nil, now: t0)
            let items = outcome.result.rejections.map { "item \($0.kind)[\($0.index)] \($0.code)" }
            #expect((items.first ?? "accepted") == expected, "\(field)")
            #expect(outcome.result.rejections.allSatisfy { $0.message.count < 200 }, "a refusal does not echo the enormous value")
        } catch {
            #expect("report \(error.code)" == expected, "\(field)")
            #expect(error.message.count < 200)
        }
    }

    @Test("a frame above the size limit is refused before it is parsed", arguments: [Op.ingestReport, Op.ingestBatch])
    func frameTooLarge(op: String) {
        let frame = Self.frame(op, Self.body(replacing: "NOTE", with: String(repeating: "x", count: Wire.defaultMaxFrameBytes)))
        #expect(throws: WireError(.tooLarge, "frame of \(frame.count) bytes exceeds the limit of \(Wire.defaultMaxFrameBytes)")) {
            if op == Op.ingestReport { _ = try Wire.decodeRequest(frame, body: IngestReport.self) } else { _ = try Wire.decodeRequest(frame, body: IngestBatch.self) }
        }
    }
}
