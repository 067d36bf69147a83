import Foundation

/// `load-test run` started against a `Platform`, its output in files under the platform's folder.
struct LoadTestLaunch {
    let process = Process()
    let json: URL
    let out: URL
    let err: URL

    /// Starts `load-test run` with `arguments` plus every endpoint of `platform` and `--json`.
    init(_ platform: Platform, _ arguments: [String]) throws {
        json = platform.root.appendingPathComponent("run.json")
        out = platform.root.appendingPathComponent("load.out").creatingEmptyFile()
        err = platform.root.appendingPathComponent("load.err").creatingEmptyFile()
        process.executableURL = platform.bin.appendingPathComponent("load-test")
        process.arguments = ["run"] + arguments + [
            "--ingest", platform.endpoint("beacon-ingest"), "--region", platform.endpoint("region-monitor"),
            "--orders", platform.endpoint("order-service"), "--kitchen", platform.endpoint("kitchen-display"),
            "--notify", platform.endpoint("notification-service"), "--bus-sub", platform.busSub, "--bus", platform.endpoint("bus"),
            "--campus", platform.campus, "--json", json.path,
        ]
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
    }

    /// Waits for the run to end; its stderr (progress lines and errors).
    func finish() -> String {
        process.waitUntilExit()
        return (try? String(contentsOf: err, encoding: .utf8)) ?? ""
    }

    var table: String { (try? String(contentsOf: out, encoding: .utf8)) ?? "" }
}
