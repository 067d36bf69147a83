import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// The whole platform as real processes: the built executables on free loopback ports, each
/// with a fresh data folder, stopped (and killed if need be) when the test ends, pass or fail.
final class Platform {
    static let services = ["beacon-ingest", "region-monitor", "order-service", "kitchen-display", "notification-service"]

    let bin: URL
    let root: URL
    let ports: [String: Int]
    let campus: String
    private(set) var processes: [String: Process] = [:]
    /// Flags added after the defaults (a later flag wins), per executable.
    var extraArguments: [String: [String]] = [:]

    /// Where the built executables are: beside the test bundle.
    static func binaryDirectory() throws -> URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if dir.path.hasSuffix(".xctest/Contents/MacOS") { dir = dir.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent() }
        for candidate in [dir, Bundle.main.bundleURL.deletingLastPathComponent()] {
            if FileManager.default.isExecutableFile(atPath: candidate.appendingPathComponent("bus").path) { return candidate }
        }
        throw PlatformError("the executables are not built next to the tests in \(dir.path); run `swift build --build-tests` first (deploy/test.sh does)")
    }

    init() throws {
        bin = try Self.binaryDirectory()
        root = FileManager.default.temporaryDirectory.appendingPathComponent("cafe-it-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let names = ["bus-xsub", "bus-xpub", "bus", "region-fixes"] + Self.services
        let free = try LoopbackPorts.free(names.count)
        ports = Dictionary(uniqueKeysWithValues: zip(names, free))
        campus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("deploy/campus.json").path
    }

    func endpoint(_ name: String) -> String { "tcp://127.0.0.1:\(ports[name]!)" }
    var busPub: String { endpoint("bus-xsub") }
    var busSub: String { endpoint("bus-xpub") }

    func arguments(for service: String) -> [String] {
        if service == "bus" {
            return ["--xsub", busPub, "--xpub", busSub, "--listen", endpoint("bus")]
        }
        var args = ["--listen", endpoint(service), "--bus-pub", busPub, "--bus-sub", busSub,
                    "--data-dir", root.appendingPathComponent("data").path, "--log-level", "debug"]
        if service == "region-monitor" || service == "order-service" { args += ["--campus", campus] }
        if service == "region-monitor" { args += ["--beacon-exit-seconds", "5", "--fix-listen", endpoint("region-fixes")] }
        if service == "beacon-ingest" { args += ["--fix-endpoints", endpoint("region-fixes")] }
        if service == "order-service" { args += ["--region-endpoints", endpoint("region-monitor")] }
        // Pickup reminders off unless a test asks for them (extraArguments): a window minutes away
        // would otherwise add a reminder to every inbox a test counts.
        if service == "notification-service" { args += ["--pickup-reminder-lead-seconds", "0", "--campus", campus] }
        return args + (extraArguments[service] ?? [])
    }

    /// Starts one executable; its stdout and stderr go to a log file (nothing to drain, nothing to block).
    func start(_ service: String) throws {
        let process = Process()
        process.executableURL = bin.appendingPathComponent(service)
        process.arguments = arguments(for: service)
        let log = root.appendingPathComponent("\(service).log")
        if !FileManager.default.fileExists(atPath: log.path) { FileManager.default.createFile(atPath: log.path, contents: nil) }
        let handle = try FileHandle(forWritingTo: log)
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        processes[service] = process
    }

    /// Starts the bus and the five services and waits until every one answers health.
    func startAll() throws {
        try start("bus")
        for service in Self.services { try start(service) }
        for service in ["bus"] + Self.services { try waitHealthy(service) }
    }

    /// Starts the bus and only `services`, and waits until each (the bus too) answers health.
    func start(busAnd services: [String]) throws {
        try start("bus")
        for service in services { try start(service) }
        for service in ["bus"] + services { try waitHealthy(service) }
    }

    /// A PUB socket on the bus, for a test that plays a publisher; the caller closes it.
    func busPublisher(_ context: Context) throws -> Socket {
        let publisher = try Socket(context, .pub)
        try publisher.setLinger(milliseconds: 0)
        try publisher.connect(busPub)
        return publisher
    }

    func waitHealthy(_ service: String, timeout: Double = 20) throws {
        let context = try Context()
        let client = RequestClient(context: context, endpoint: endpoint(service), timeoutMilliseconds: 500)
        defer { client.close() }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if processes[service]?.isRunning == false { throw PlatformError("\(service) exited: \(log(service).suffix(2000))") }
            if let status = try? client.call(Op.health, Empty(), as: HealthStatus.self), status.status == "ok" { return }
            usleep(100_000)
        }
        throw PlatformError("\(service) did not become healthy in \(timeout) s: \(log(service).suffix(2000))")
    }

    /// SIGKILL: the process gets no chance to flush or close anything.
    func kill9(_ service: String) {
        guard let process = processes[service] else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM and the time the process took to exit, or nil when it had not exited after `limit` seconds.
    func terminate(_ service: String, limit: Double = 5) -> (seconds: Double, status: Int32)? {
        guard let process = processes[service] else { return nil }
        let started = Date()
        kill(process.processIdentifier, SIGTERM)
        while process.isRunning && Date().timeIntervalSince(started) < limit { usleep(10_000) }
        guard !process.isRunning else { return nil }
        return (Date().timeIntervalSince(started), process.terminationStatus)
    }

    func log(_ service: String) -> String {
        (try? String(contentsOf: root.appendingPathComponent("\(service).log"), encoding: .utf8)) ?? ""
    }

    /// Runs cafectl against this platform and returns (exit status, stdout, stderr).
    func cafectl(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = bin.appendingPathComponent("cafectl")
        process.arguments = arguments + ["--bus", endpoint("bus"), "--ingest", endpoint("beacon-ingest"), "--region", endpoint("region-monitor"),
                                         "--orders", endpoint("order-service"), "--kitchen", endpoint("kitchen-display"),
                                         "--notify", endpoint("notification-service"), "--bus-pub", busPub, "--bus-sub", busSub]
        let out = root.appendingPathComponent("cafectl-\(UUID().uuidString.prefix(6)).out")
        let err = out.appendingPathExtension("err")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, (try? String(contentsOf: out, encoding: .utf8)) ?? "", (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }

    /// Stops everything: SIGTERM, then SIGKILL for anything still alive after 3 s; removes the folder.
    func stop() {
        for process in processes.values where process.isRunning { kill(process.processIdentifier, SIGTERM) }
        let deadline = Date().addingTimeInterval(3)
        for process in processes.values {
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
        processes.removeAll()
        if ProcessInfo.processInfo.environment["CAFE_KEEP_TEST_DATA"] == nil { try? FileManager.default.removeItem(at: root) }
    }

    deinit { stop() }
}

struct PlatformError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
