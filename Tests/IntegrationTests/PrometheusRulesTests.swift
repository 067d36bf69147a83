import Foundation
import Testing

/// deploy/prometheus with Debian's promtool: the alert rules pass their unit tests (each alert
/// has a case that fires it and one that must not), and prometheus.yml and the rules load.
@Suite
struct PrometheusRulesTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy/prometheus")

    static func promtool(_ arguments: [String]) throws -> CommandResult {
        try runCommand(URL(fileURLWithPath: "/bin/sh"), ["-c", "cd '\(folder.path)' && promtool " + arguments.joined(separator: " ")], timeout: 60)
    }

    @Test("promtool test rules: every alert fires where it should and stays quiet beside it")
    func ruleTests() throws {
        let result = try Self.promtool(["test", "rules", "alerts.test.yml"])
        #expect(result.status == 0, "\(result.out) \(result.err)")
        // Every alert of alerts.yml is tested, each with a firing case and a quiet one.
        let rules = try String(contentsOf: Self.folder.appendingPathComponent("alerts.yml"), encoding: .utf8)
        let tests = try String(contentsOf: Self.folder.appendingPathComponent("alerts.test.yml"), encoding: .utf8)
        let alerts = rules.split(separator: "\n").compactMap { line -> String? in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.hasPrefix("- alert: ") ? String(trimmed.dropFirst(9)) : nil
        }
        #expect(alerts.count == 10)
        for alert in alerts {
            #expect(tests.components(separatedBy: "alertname: \(alert)\n").count - 1 >= 2, "\(alert) has a firing and a quiet evaluation")
        }
    }

    @Test("promtool check config: prometheus.yml and the rules it names load")
    func config() throws {
        let result = try Self.promtool(["check", "config", "prometheus.yml"])
        #expect(result.status == 0, "\(result.out) \(result.err)")
    }
}
