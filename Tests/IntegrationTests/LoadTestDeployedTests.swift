import Foundation
import LoadTestKit
import ServiceRuntime
import Testing

/// load-test against the platform in deployed mode: it watches as an operator and acts through
/// gateway, phone and kitchen keys it mints for the run and revokes at the end. Counts only,
/// never times.
@Suite(.serialized)
struct LoadTestDeployedTests {
    /// Registry entries and key files load-test left behind (its keys carry the run id `lt…` or the scenario device `load-…`).
    func leftovers(_ keys: KeyFolder) throws -> [String] {
        let names = try keys.registry().principals.map(\.name).filter { $0.hasPrefix("lt") || $0.hasPrefix("load-") }
        let files = try FileManager.default.contentsOfDirectory(atPath: keys.path).filter { $0.hasPrefix("lt") || $0.hasPrefix("load-") }
        return names + files
    }

    @Test("load-test run over CURVE: sightings through a minted gateway, orders by minted phones, bumps by minted kitchens; nothing lost, no key left behind")
    func runDeployed() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        let keys = try #require(platform.keys)
        try platform.startAll()
        let before = try keys.registry()
        let run = try LoadTestLaunch(platform, [
            "--rate", "1000", "--duration", "3", "--devices", "100", "--order-rate", "2", "--batch", "50", "--beacon-exit-seconds", "5",
            "--keys", keys.path, "--as", "operator",
        ])
        let stderr = run.finish()
        try #require(run.process.terminationStatus == 0, "load-test run failed: \(stderr.suffix(2000))")
        let report = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: run.json))
        #expect(report.sightings.accepted == report.sightings.sent && report.sightings.sent > 0)
        #expect(report.regionEvents.seen == report.regionEvents.expected && report.regionEvents.expected > 0)
        let orders = (try JSONSerialization.jsonObject(with: Data(contentsOf: run.json)) as? [String: Any])?["orders"] ?? [:]
        #expect(report.orders.started >= 5 && report.orders.notified == report.orders.started, "\(orders)")
        #expect(report.bus.measured && report.bus.shed == 0)
        #expect(report.lost == 0, "lost: \(report)")
        // The minted keys are gone again, from the registry and the folder.
        #expect(try keys.registry() == before)
        let left = try leftovers(keys)
        #expect(left.isEmpty, "\(left)")
    }

    @Test("load-test scenario over CURVE as the operator, with a minted phone and kitchen; refused as anything but an operator")
    func scenarioDeployed() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        let keys = try #require(platform.keys)
        try keys.add(name: "phone-alice", role: .phone, deviceId: "D-alice", userId: "alice")
        try platform.startAll()
        let json = platform.root.appendingPathComponent("scenario.json")
        func scenario(as principal: String) throws -> CommandResult {
            try runCommand(platform.bin.appendingPathComponent("load-test"), [
                "scenario", "--ingest", platform.endpoint("beacon-ingest"), "--orders", platform.endpoint("order-service"),
                "--kitchen", platform.endpoint("kitchen-display"), "--notify", platform.endpoint("notification-service"),
                "--bus-sub", platform.busSub, "--campus", platform.campus, "--json", json.path, "--keys", keys.path, "--as", principal,
            ], environment: environmentWithoutCafeVariables(), timeout: 60)
        }
        let refused = try scenario(as: "phone-alice")
        #expect(refused.status == 2 && refused.err.contains("must be an operator"), "\(refused.err)")
        #expect(!FileManager.default.fileExists(atPath: json.path))

        let result = try scenario(as: "operator")
        try #require(result.status == 0, "\(result.err)")
        let measured = try JSONDecoder().decode([ScenarioDriver.Measurement].self, from: Data(contentsOf: json))
        #expect(measured.contains { $0.step == "sighting → region event" && $0.milliseconds > 0 })
        #expect(measured.contains { $0.step == "order placed → ready notification" && $0.milliseconds > 0 })
        let left = try leftovers(keys)
        #expect(left.isEmpty, "\(left)")
    }
}
