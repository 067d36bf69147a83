import Foundation
import Testing

/// `load-test push` end to end with a few phones: it starts its own platform and the local APNs
/// peer, and every phone's sighting at the café ends in a ready push the peer accepted. Only the
/// report's shape and the order of the times are checked, never a latency.
@Suite("load-test push")
struct LoadTestPushTests {
    @Test("a few phones arrive, each gets its orderReady push accepted by the peer, and the report gives the three latencies; then a small burst of order.ready events")
    func fewPhones() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("cafe-push-\(UUID().uuidString.prefix(8)).json")
        defer { try? FileManager.default.removeItem(at: json) }
        let loadTest = try Platform.binaryDirectory().appendingPathComponent("load-test")
        let common = ["--campus", root.appendingPathComponent("deploy/campus.json").path, "--apns-script", root.appendingPathComponent("deploy/local-apns.sh").path]
        let result = try runCommand(loadTest, ["push", "--phones", "4", "--rate", "4", "--seed", "2", "--burst", "10", "--json", json.path] + common,
                                    environment: environmentWithoutCafeVariables(), timeout: 120)
        #expect(result.status == 0, "\(result.out) \(result.err)")
        #expect(result.out.hasPrefix("push: 4 phones arriving at 4/s (Poisson, seed 2)"), "\(result.out)")
        // Each latency row names its figure, then n (every phone), then p50, p90, p99 and max.
        let lines = result.out.split(separator: "\n").map(String.init)
        for name in ["sighting → ready push accepted", "sighting → order.ready event", "order.ready → APNs 200"] {
            let fields = lines.first { $0.hasPrefix(name) }.map { $0.dropFirst(name.count).split(separator: " ") } ?? []
            #expect(fields.count == 5 && fields.first == "4" && fields.dropFirst().allSatisfy { Double($0) != nil }, "\(name) missing from:\n\(result.out)")
        }
        #expect(result.out.contains("pushes accepted: 4 of 4"), "\(result.out)")
        // Then notification-service alone: 10 order.ready events at once, each push accepted.
        #expect(lines.contains { $0.hasPrefix("burst: order.ready → APNs 200") && $0.dropFirst(29).split(separator: " ").first == "10" }, "\(result.out)")
        #expect(result.out.contains("burst: 10 of 10 accepted"), "\(result.out)")
        let phones = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [[String: Any]])
        #expect(phones.count == 4)
        for phone in phones {
            let times = ["sightingAt", "readyAt", "acceptedAt"].compactMap { phone[$0] as? Double }
            #expect(times.count == 3 && times == times.sorted(), "\(phone)")
        }
        // A run of no phones is refused before anything starts.
        let refused = try runCommand(loadTest, ["push", "--phones", "0"] + common, environment: environmentWithoutCafeVariables())
        #expect(refused.status == 2 && refused.err.contains("--phones"), "\(refused.err)")
    }
}
