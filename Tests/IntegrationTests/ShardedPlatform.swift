import Foundation
import Messages
import ServiceRuntime
import Testing
import ZeroMQ

/// The bus, beacon-ingest-s0/s1 and region-monitor-s0/s1 on free loopback ports: the sharded
/// platform `ShardingTests` run on, started once for the suite by `Scope`.
/// `@unchecked Sendable`: the suite's tests share it through a task-local value, one test at a time.
final class ShardedPlatform: @unchecked Sendable {
    let children: ChildProcesses
    let ports: [String: Int]

    /// The platform of the running suite, set by `Scope`.
    @TaskLocal static var current: ShardedPlatform?

    /// Starts one platform for the suite it is applied to, and stops it after the suite's last test.
    struct Scope: SuiteTrait, TestScoping {
        func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
            let platform = try ShardedPlatform()
            defer { platform.stop() }
            try platform.start()
            try await ShardedPlatform.$current.withValue(platform) { try await function() }
        }
    }

    /// The running suite's platform.
    static func running() throws -> ShardedPlatform {
        try #require(current, "ShardingTests run on the platform their suite's Scope starts")
    }

    init() throws {
        children = try ChildProcesses()
        let names = ["bus-xsub", "bus-xpub", "bus"] + (0..<ShardingTests.shards).flatMap { ["beacon-ingest-s\($0)", "region-monitor-s\($0)", "region-fixes-s\($0)"] }
        ports = Dictionary(uniqueKeysWithValues: zip(names, try LoopbackPorts.free(names.count)))
    }

    func endpoint(_ name: String) -> String { "tcp://127.0.0.1:\(ports[name]!)" }

    func start() throws {
        let campus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("deploy/campus.json").path
        try children.start("bus", executable: "bus", arguments: ["--xsub", endpoint("bus-xsub"), "--xpub", endpoint("bus-xpub"), "--listen", endpoint("bus")])
        try children.waitHealthy("bus", endpoint: endpoint("bus"))
        for shard in 0..<ShardingTests.shards {
            for service in ["beacon-ingest", "region-monitor"] {
                let instance = "\(service)-s\(shard)"
                var arguments = ["--listen", endpoint(instance), "--bus-pub", endpoint("bus-xsub"), "--bus-sub", endpoint("bus-xpub"),
                                 "--data-dir", try children.folder(instance).path, "--instance", instance,
                                 "--shards", "\(ShardingTests.shards)", "--shard", "\(shard)"]
                if service == "region-monitor" { arguments += ["--campus", campus, "--fix-listen", endpoint("region-fixes-s\(shard)")] }
                if service == "beacon-ingest" { arguments += ["--fix-endpoints", endpoint("region-fixes-s\(shard)")] }
                try children.start(instance, executable: service, arguments: arguments, environment: environmentWithoutCafeVariables())
            }
        }
        for name in ports.keys where name.hasPrefix("beacon-ingest") || name.hasPrefix("region-monitor") {
            let status = try children.waitHealthy(name, endpoint: endpoint(name))
            #expect(status.instance == name)
            if name.hasPrefix("beacon-ingest") { #expect(status.details["shard"] == String(name.last!), "\(name): \(status.details)") }
        }
    }

    /// What `instance` answers to `health`.
    func health(_ instance: String, _ context: Context) throws -> HealthStatus {
        let client = RequestClient(context: context, endpoint: endpoint(instance))
        defer { client.close() }
        return try client.call(Op.health, Empty(), as: HealthStatus.self)
    }

    func stop() { children.stop() }
}
