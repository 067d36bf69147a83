import Foundation
import Testing

/// `load-test bench` at toy sizes: it must keep working and keep reporting every figure the
/// performance targets are stated in. No assertion on any time or rate: speed is the benchmark's
/// business, not the test's.
@Suite(.serialized)
struct BenchmarkCommandTests {
    @Test("load-test bench prints (a)-(d) in plain and deployed mode side by side, the (b)/(a) ratio, CURVE's cost and a verdict per target")
    func benchReportsEveryFigure() throws {
        let bin = try Platform.binaryDirectory()
        let campus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("deploy/campus.json").path
        let process = Process()
        process.executableURL = bin.appendingPathComponent("load-test")
        process.arguments = ["bench", "--campus", campus, "--devices", "600", "--step-seconds", "1", "--rates", "1000,2000",
                             "--zmq-messages", "20000", "--settle-seconds", "0", "--latency-rate", "1000"]
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString.prefix(6)).out")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = process.standardOutput
        try process.run()
        process.waitUntilExit()
        let text = try String(contentsOf: out, encoding: .utf8)
        try? FileManager.default.removeItem(at: out)
        #expect(process.terminationStatus == 0, "\(text)")
        for needle in ["(a) raw libzmq", "PUB→SUB", "REQ→REP", "(b) beacon-ingest → bus → region-monitor", "% of raw direct", "% of raw two-hop",
                       "sighting → region event", "resident memory", "(c) region-monitor evaluation", "sightings/s per core",
                       "(d) envelope codecs", "sighting.batch compact frame", "encode", "decode",
                       // Both modes, side by side.
                       "plain (no CURVE):", "deployed (CURVE on every socket", "% of raw CURVE direct", "% of raw CURVE two-hop", "deployed / plain zero-loss rate",
                       "sighting → region event at steady state, plain", "sighting → region event at steady state, deployed", "platform CPU",
                       // Issue 31: the steady-state latency apart from the wave of devices going stale, and the wave on its own.
                       "stale wave, plain", "stale wave, deployed", "seen cleared", "clearing seen against its due time", "at steady state p99",
                       // ...and beside the steady state, the raw chain of a sighting's hand-offs over the same seconds.
                       "beside it, libzmq alone through the same hand-offs",
                       // Issue 15's figures: the margin, a first-seen device, a restart, memory per tracked device.
                       "at the margin, plain", "× raw two-hop", "CPU per first-seen device", "region-monitor restarted with", "devices tracked"] {
            #expect(text.contains(needle), "missing \"\(needle)\" in:\n\(text)")
        }
        // (a): one row per figure, with a plain column, a CURVE column and their ratio.
        let lines = text.split(separator: "\n").map(String.init)
        let header = try #require(lines.first { $0.contains("plain") && $0.contains("CURVE/plain") }, "no side-by-side header in:\n\(text)")
        #expect(header.contains("CURVE"))
        // Direct and through a proxy process (the bus's shape), each with CPU from the processes' rusage.
        for figure in ["PUB→SUB direct msg/s", "PUB→proxy→SUB two-hop msg/s", "CPU s per 10⁶ msg", "REQ→REP round trip p50 µs", "REQ→REP round trip p99 µs", "REQ→REP CPU µs/round trip"] {
            let row = try #require(lines.first { $0.contains(figure) }, "no \(figure) row")
            #expect(row.split(separator: " ").count >= figure.split(separator: " ").count + 3 && row.hasSuffix("%"), "\(row)")
        }
        // (b): the step table once per mode, each step with its platform CPU per sighting.
        #expect(lines.filter { $0.contains("CPU µs/sighting") }.count == 2)
        #expect(lines.contains { $0.contains("deployed / plain zero-loss rate") && ($0.contains(" met") || $0.contains("MISSED by")) })
        // The raw chain beside each mode's steady state: walks counted and a ratio given.
        let beside = lines.filter { $0.contains("beside it, libzmq alone") }
        #expect(beside.count == 2 && beside.allSatisfy { $0.contains(" walks)") && $0.contains("× it") }, "\(beside)")
        // Every target line says met or by how much it was missed.
        let verdicts = text.split(separator: "\n").filter { $0.contains("target ≥") || $0.contains("target ≤") }
        #expect(verdicts.count >= 8)
        #expect(verdicts.allSatisfy { $0.contains(" met") || $0.contains("MISSED by") })
    }
}
