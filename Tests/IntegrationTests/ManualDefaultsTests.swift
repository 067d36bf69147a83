import Foundation
import Testing

/// The manuals quote option defaults in passing ("`--beacon-exit-seconds`, 30", "`--recall-seconds`
/// (120)", "`--retention-days` (default 30"). Each quoted default must be the one the program
/// prints in its help, so a changed default cannot leave a manual behind.
@Suite("Defaults the manuals quote")
struct ManualDefaultsTests {
    /// Each manual and the help texts of the programs whose options it quotes.
    static let manuals: [(manual: String, programs: [[String]])] = [
        // region-monitor, and beacon-ingest whose smoothing and evidence the location rules rest on.
        ("Services/RegionMonitor/README.md", [["region-monitor", "--help"], ["beacon-ingest", "--help"]]),
        ("Services/OrderService/README.md", [["order-service", "--help"]]),
        ("Services/KitchenDisplay/README.md", [["kitchen-display", "--help"]]),
        ("Services/NotificationService/README.md", [["notification-service", "--help"]]),
        // load-test's own commands, and the services' common options (--stall-warning-ms).
        ("Services/LoadTest/README.md", [["load-test", "run", "--help"], ["load-test", "pacing", "--help"], ["load-test", "truth", "--help"], ["load-test", "scenario", "--help"],
                                         ["load-test", "bench", "--help"], ["load-test", "abuse", "--help"], ["order-service", "--help"]]),
        ("Services/Cafectl/README.md", [["cafectl", "help"]]),
        ("Services/Edge/README.md", [["edge", "--help"]]),
        ("deploy/README.md", [["order-service", "--help"], ["region-monitor", "--help"], ["notification-service", "--help"], ["edge", "--help"], ["bus", "--help"]]),
    ]

    /// `--name` quoted with a number: "`--name` (N", "`--name` (default N", "`--name`, N".
    static let quoted = try! NSRegularExpression(pattern: #"`?--([a-z][a-z0-9-]*)`?(?:\s\((?:default )?|,\s)([0-9][0-9.]*)(?=[);, ])"#)

    /// The default `help` gives `option`: "--name <kind> … env X, default V" in a service's or
    /// load-test's help, "--name V" in cafectl's.
    static func helpDefault(_ help: String, _ option: String) -> String? {
        let lines = help.components(separatedBy: "\n")
        if let at = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix("--\(option) <") }) {
            let own = lines[(at + 1)...].prefix { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("--") }
            return own.last { $0.contains(", default ") }?.components(separatedBy: ", default ").last?.trimmingCharacters(in: .whitespaces)
        }
        guard let found = help.range(of: "--\(option) [0-9][0-9.]*", options: .regularExpression) else { return nil }
        return String(help[found].split(separator: " ").last!)
    }

    @Test("every option default a manual quotes is the program's", arguments: manuals.map(\.manual))
    func quotedDefaults(manual: String) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent(manual), encoding: .utf8)
        let programs = try #require(Self.manuals.first { $0.manual == manual }).programs
        let helps = try programs.map { command -> String in
            let result = try runCommand(try Platform.binaryDirectory().appendingPathComponent(command[0]), Array(command.dropFirst()),
                                        environment: environmentWithoutCafeVariables())
            try #require(result.status == 0, "\(command.joined(separator: " ")) exited \(result.status): \(result.err)")
            return result.out
        }
        for match in Self.quoted.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            let option = String(text[Range(match.range(at: 1), in: text)!])
            let value = String(text[Range(match.range(at: 2), in: text)!])
            let defaults = helps.compactMap { Self.helpDefault($0, option) }
            #expect(!defaults.isEmpty, "\(manual) quotes --\(option) \(value); no help of \(programs.map { $0[0] }) has that option")
            if let actual = defaults.first {
                #expect(Double(actual) == Double(value), "\(manual) says --\(option) defaults to \(value); the help says \(actual)")
            }
        }
    }
}
