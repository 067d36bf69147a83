import Foundation
import Testing

/// `load-test truth --quick` end to end with a tiny scenario: it starts its own platform, walks
/// its phones and writes a report of every figure. Only the report's shape is checked, never a
/// verdict: the verdicts are what the platform's rules achieve, judged by the command.
@Suite("load-test truth")
struct LoadTestTruthTests {
    @Test("a tiny quick run reports every figure with a verdict, as a table and as JSON")
    func quickRun() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("cafe-truth-\(UUID().uuidString.prefix(8)).json")
        defer { try? FileManager.default.removeItem(at: json) }
        let result = try runCommand(try Platform.binaryDirectory().appendingPathComponent("load-test"),
                                    ["truth", "--quick", "--phones", "6", "--duration", "12", "--beacon-exit-seconds", "3", "--seed", "4",
                                     "--campus", root.appendingPathComponent("deploy/campus.json").path, "--json", json.path],
                                    environment: environmentWithoutCafeVariables(), timeout: 120)
        #expect(result.status == 0, "\(result.err)")
        for figure in ["café named after arriving within 2 m", "café named or a candidate after arriving", "evidence: readings favour another café", "exit (last heard → unsatisfied)", "alternations, counters 4 m apart",
                       "wrong answers", "naming withdrawn standing at counters", "walk between counters switches once", "circle flaps"] {
            #expect(result.out.contains(figure), "\(figure) missing from:\n\(result.out)")
        }
        #expect(result.out.hasPrefix("truth: 6 phones, 12 s, seed 4"))
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any])
        #expect(report["phones"] as? Int == 6 && report["seed"] as? Int == 4)
        #expect((report["noise"] as? [String: Double])?["sigmaDB"] == 6)
        let verdicts = try #require(report["verdicts"] as? [[String: Any]])
        #expect(verdicts.count == 14)
        #expect(report["late"] is [Any], "the late arrivals and failed walks, listed (empty or not)")
        #expect(verdicts.allSatisfy { $0["name"] is String && $0["value"] is String && $0["target"] is String })
        #expect(report["reportsSent"] as? Int ?? 0 > 0, "the phones reported through beacon-ingest")
    }
}
