import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// The whole platform as real processes: the built executables on free loopback ports
/// (`LoopbackPorts` finds them free below the ephemeral range), with a fresh data folder, stopped (and
/// killed if need be) when the test ends, pass or fail.
final class Platform {
    static let services = ["beacon-ingest", "region-monitor", "order-service", "kitchen-display", "notification-service"]

    /// The processes, their logs and the data folder.
    let children: ChildProcesses
    let ports: [String: Int]
    /// The catalog every service reads; a test may point it at a copy before starting.
    var campus: String
    /// Flags added after the defaults (a later flag wins), per executable.
    var extraArguments: [String: [String]] = [:]
    /// Deployed mode: the key folder (every service instance and `operator` from `keys init`;
    /// tests add phones, kiosks and kitchens with `keys.add`). nil in plain mode.
    let keys: KeyFolder?

    var bin: URL { children.bin }
    var root: URL { children.root }

    /// Where the built executables are: beside the test bundle.
    static func binaryDirectory() throws -> URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if dir.path.hasSuffix(".xctest/Contents/MacOS") { dir = dir.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent() }
        for candidate in [dir, Bundle.main.bundleURL.deletingLastPathComponent()] {
            if FileManager.default.isExecutableFile(atPath: candidate.appendingPathComponent("bus").path) { return candidate }
        }
        throw PlatformError("the executables are not built next to the tests in \(dir.path); run `swift build --build-tests` first (deploy/test.sh does)")
    }

    /// A platform in plain mode, or in deployed mode (CURVE, keys under `<root>/keys`).
    init(security: SocketSecurity.Mode = .plain) throws {
        children = try ChildProcesses(prefix: "cafe-it")
        if security == .deployed {
            let folder = KeyFolder(children.root.appendingPathComponent("keys").path)
            try folder.initialize()
            keys = folder
        } else {
            keys = nil
        }
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
        let security = keys.map { ["--security", "deployed", "--keys", $0.path] } ?? []
        if service == "bus" {
            return ["--xsub", busPub, "--xpub", busSub, "--listen", endpoint("bus")] + security + (extraArguments[service] ?? [])
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
        return args + security + (extraArguments[service] ?? [])
    }

    /// Starts one executable, logging to `<service>.log` (continued when it is started again).
    func start(_ service: String) throws {
        try children.start(service, executable: service, arguments: arguments(for: service), inRootFolder: false)
    }

    /// The process last started for `service`.
    func process(_ service: String) -> Process? { children.process(service) }

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
    /// In deployed mode it connects with `principal`'s key (nil: plain, which the bus refuses).
    func busPublisher(_ context: Context, as principal: String? = nil) throws -> Socket {
        let publisher = try Socket(context, .pub)
        try publisher.setLinger(milliseconds: 0)
        if let principal { try security(as: principal).secureClient(publisher, server: "bus") }
        try publisher.connect(busPub)
        return publisher
    }

    /// How `principal` secures its client sockets (deployed mode; plain mode: the developer).
    func security(as principal: String) throws -> SocketSecurity {
        let logger = Logger(service: "test", instance: principal, minimum: .error)
        guard let keys else { return .plain(logger: logger) }
        return try .deployed(folder: keys, as: principal, serving: nil, logger: logger)
    }

    /// A request client to `service` acting as `principal` (deployed mode; plain mode ignores it).
    func client(_ service: String, as principal: String, context: Context, timeoutMilliseconds: Int32 = 5_000) throws -> RequestClient {
        try security(as: principal).requestClient(context: context, peer: endpoint(service), defaultServer: service, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// A request client to `endpoint` acting as `principal` with the keys of `folder`.
    static func client(_ endpoint: String, server: String, keys folder: KeyFolder, as principal: String, context: Context) throws -> RequestClient {
        let security = try SocketSecurity.deployed(folder: folder, as: principal, serving: nil, logger: Logger(service: "test", instance: principal, minimum: .error))
        return try security.requestClient(context: context, peer: endpoint, defaultServer: server)
    }

    func waitHealthy(_ service: String, timeout: Double = 20) throws {
        let curve = try keys.map { _ in try security(as: KeyFolder.defaultOperator).clientKeys(server: service) } ?? nil
        try children.waitHealthy(service, endpoint: endpoint(service), timeout: timeout, curve: curve)
    }

    /// SIGKILL: the process gets no chance to flush or close anything.
    func kill9(_ service: String) { children.kill9(service) }

    /// SIGTERM and the time the process took to exit, or nil when it had not exited after `limit` seconds.
    func terminate(_ service: String, limit: Double = 5) -> (seconds: Double, status: Int32)? { children.terminate(service, limit: limit) }

    func log(_ service: String) -> String { children.log(service) }

    /// Runs cafectl against this platform to completion (killed after two minutes).
    /// In deployed mode it acts as `principal` (the operator unless told).
    func cafectl(_ arguments: [String], as principal: String = KeyFolder.defaultOperator) throws -> CommandResult {
        try runCommand(bin.appendingPathComponent("cafectl"),
                       arguments + ["--bus", endpoint("bus"), "--ingest", endpoint("beacon-ingest"), "--region", endpoint("region-monitor"),
                                    "--orders", endpoint("order-service"), "--kitchen", endpoint("kitchen-display"),
                                    "--notify", endpoint("notification-service"), "--bus-pub", busPub, "--bus-sub", busSub]
                           + (keys.map { ["--keys", $0.path, "--as", principal] } ?? []),
                       timeout: 120)
    }

    /// Stops everything: SIGTERM, then SIGKILL for anything still alive after 3 s; removes the folder.
    func stop() { children.stop() }
}

struct PlatformError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
