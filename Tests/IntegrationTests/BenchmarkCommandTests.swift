import Foundation
import Testing

/// `load-test bench` at toy sizes: it must keep working and keep reporting every figure the
/// performance targets are stated in. No assertion on any time or rate: speed is the benchmark's
/// business, not the test's.
@Suite(.serialized)
struct BenchmarkCommandTests {
    @Test("load-test bench prints (a)-(d), the (b)/(a) ratio and a verdict per target")
    func benchReportsEveryFigure() throws {
        let bin = try Platform.binaryDirectory()
        let campus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("deploy/campus.json").path
        let process = Process()
        process.executableURL = bin.appendingPathComponent("load-test")
        process.arguments = ["bench", "--campus", campus, "--devices", "600", "--step-seconds", "1", "--rates", "2000",
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
        for needle in ["(a) raw libzmq", "PUB→SUB", "REQ→REP", "(b) beacon-ingest → bus → region-monitor", "% of raw PUB→SUB",
                       "sighting → region event", "resident memory", "(c) region-monitor evaluation", "sightings/s per core",
                       "(d) envelope JSON", "encode", "decode"] {
            #expect(text.contains(needle), "missing \"\(needle)\" in:\n\(text)")
        }
        // Every target line says met or by how much it was missed.
        let verdicts = text.split(separator: "\n").filter { $0.contains("target ≥") || $0.contains("target ≤") }
        #expect(verdicts.count >= 5)
        #expect(verdicts.allSatisfy { $0.contains(" met") || $0.contains("MISSED by") })
    }
}
