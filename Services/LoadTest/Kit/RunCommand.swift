import Campus
import Foundation
import ServiceRuntime
import ZeroMQ

/// `load-test run`: the open-loop, constant-rate generator (see `LoadRunner`).
public enum RunCommand {
    static let summary = "open-loop constant-rate load: sightings, region events and orders, with latency percentiles and loss"

    /// Runs `load-test run` with `arguments` (after the command word); the exit status.
    public static func main(arguments: [String]) -> Int32 {
        let config = subcommandConfiguration(program: "load-test run", summary: summary, specs: RunOptions.specs, arguments: arguments, usage: "load-test run [options]")
        let settings = RunSettings(config)
        // Before any thread or socket, so all of load-test's but the raw chains' inherit it.
        let priority = GeneratorPriority.raise(to: settings.generatorNice)
        let security = LoadSecurity.from(config)
        do {
            let catalog = try CampusCatalog.load(path: config[RunOptions.campus])
            let runID = "lt" + String(format: "%06x", UInt32.random(in: 0...0xFF_FFFF))
            let runner = LoadRunner(settings: settings, catalog: catalog, context: try Context(), runID: runID, security: security, log: logLine)
            runner.priority = priority
            let report = try runner.run()
            print(report.table)
            if !config[RunOptions.json].isEmpty { try writeJSON(report, to: config[RunOptions.json]) }
            return 0
        } catch {
            logLine("load-test: \(error)")
            return 1
        }
    }
}
