import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// Long-running executables a test starts under names of its choosing (two shards of one service,
/// say), each logging to a file in a fresh temporary folder. `stop()` ends them all; call it in a
/// `defer` so they end when the test fails too. The one process harness of these tests: `Platform`
/// runs the whole platform through one.
final class ChildProcesses {
    let bin: URL
    let root: URL
    /// Every process started, restarts included, so that `stop()` misses none; the last one
    /// started under a name is the one the name means.
    private var started: [(name: String, process: Process)] = []

    /// A fresh folder named `<prefix>-<random>` in the temporary directory.
    init(prefix: String = "cafe-procs") throws {
        bin = try Platform.binaryDirectory()
        root = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// A folder under the temporary root, created on first use.
    func folder(_ name: String) throws -> URL {
        let url = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Starts `executable` from the build folder as `name`. Its stdout and stderr go to `<name>.log`
    /// in the root folder, appended, so a process started again under its name continues its log
    /// (nothing to drain, nothing to block). `environment` replaces the inherited one when given;
    /// the process runs in the root folder unless `inRootFolder` is false (then in the test's own).
    func start(_ name: String, executable: String, arguments: [String] = [], environment: [String: String]? = nil, inRootFolder: Bool = true) throws {
        let process = Process()
        process.executableURL = bin.appendingPathComponent(executable)
        process.arguments = arguments
        if inRootFolder { process.currentDirectoryURL = root }
        if let environment { process.environment = environment }
        let log = root.appendingPathComponent("\(name).log")
        if !FileManager.default.fileExists(atPath: log.path) { _ = FileManager.default.createFile(atPath: log.path, contents: nil) }
        let handle = try FileHandle(forWritingTo: log)
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        started.append((name, process))
    }

    /// The process last started as `name`.
    func process(_ name: String) -> Process? { started.last { $0.name == name }?.process }

    func isRunning(_ name: String) -> Bool { process(name)?.isRunning ?? false }

    func log(_ name: String) -> String {
        (try? String(contentsOf: root.appendingPathComponent("\(name).log"), encoding: .utf8)) ?? ""
    }

    /// Waits until the process answers `health` with "ok" on `endpoint`.
    @discardableResult
    func waitHealthy(_ name: String, endpoint: String, timeout: Double = 20, curve: RequestClient.CurveClientKeys? = nil) throws -> HealthStatus {
        let context = try Context()
        let client = RequestClient(context: context, endpoint: endpoint, timeoutMilliseconds: 500, curve: curve)
        defer { client.close() }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if !isRunning(name) { throw PlatformError("\(name) exited: \(log(name).suffix(2000))") }
            if let status = try? client.call(Op.health, Empty(), as: HealthStatus.self), status.status == "ok" { return status }
            usleep(100_000)
        }
        throw PlatformError("\(name) did not become healthy in \(timeout) s: \(log(name).suffix(2000))")
    }

    /// SIGKILL: the process gets no chance to flush or close anything.
    func kill9(_ name: String) {
        guard let process = process(name) else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM and the time the process took to exit, or nil when it had not exited after `limit` seconds.
    func terminate(_ name: String, limit: Double = 5) -> (seconds: Double, status: Int32)? {
        guard let process = process(name) else { return nil }
        let started = Date()
        kill(process.processIdentifier, SIGTERM)
        while process.isRunning && Date().timeIntervalSince(started) < limit { usleep(10_000) }
        guard !process.isRunning else { return nil }
        return (Date().timeIntervalSince(started), process.terminationStatus)
    }

    /// SIGTERM to every child, SIGKILL to any still alive after 3 s; removes the folder (kept when
    /// `CAFE_KEEP_TEST_DATA` is set). Safe to call twice.
    func stop() {
        for (_, process) in started where process.isRunning { kill(process.processIdentifier, SIGTERM) }
        let deadline = Date().addingTimeInterval(3)
        for (_, process) in started {
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
        started.removeAll()
        if ProcessInfo.processInfo.environment["CAFE_KEEP_TEST_DATA"] == nil { try? FileManager.default.removeItem(at: root) }
    }

    deinit { stop() }
}

/// What a finished command printed and how it exited.
struct CommandResult {
    let status: Int32
    let out: String
    let err: String
}

/// Runs a short command to completion, killing it after `timeout` seconds. Output goes through
/// files, so a chatty child never blocks on a full pipe.
func runCommand(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil, timeout: Double = 20) throws -> CommandResult {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cafe-cmd-\(UUID().uuidString.prefix(8))")
    let out = scratch.appendingPathExtension("out")
    let err = scratch.appendingPathExtension("err")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    _ = FileManager.default.createFile(atPath: err.path, contents: nil)
    defer {
        try? FileManager.default.removeItem(at: out)
        try? FileManager.default.removeItem(at: err)
    }
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    process.standardOutput = try FileHandle(forWritingTo: out)
    process.standardError = try FileHandle(forWritingTo: err)
    try process.run()
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        throw PlatformError("\(executable.lastPathComponent) \(arguments.joined(separator: " ")) did not finish in \(timeout) s")
    }
    return CommandResult(status: process.terminationStatus,
                         out: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                         err: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
}

/// The environment of this test process without any `CAFE_` variable, so a child reads only
/// the configuration the test gives it.
func environmentWithoutCafeVariables() -> [String: String] {
    ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("CAFE_") }
}
