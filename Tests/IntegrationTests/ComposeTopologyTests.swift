import Foundation
import ServiceRuntime
import Testing

/// `docker compose up` without Docker: every service of deploy/docker-compose.yml started as a
/// local process with the environment compose would give it, in depends_on order, until its own
/// healthcheck command passes. Service names and container ports become free loopback ports, and
/// mount targets become folders, so the values are checked too (a shard index out of range, an
/// endpoint a service cannot bind), not only the variable names.
@Suite(.serialized)
struct ComposeTopologyTests {
    @Test("every compose service starts from its compose environment and passes its healthcheck; the cafectl tool sees them all")
    func composeWithoutDocker() throws {
        let compose = try ComposeFile.load()
        let children = try ChildProcesses()
        defer { children.stop() }
        // ./keys is the test's own folder; the keys tool makes it as `docker compose run --rm keys`
        // would, except that the files go to the test's own user (only root may give them to 10001).
        let local = try LocalTopology(compose: compose, root: children.root, binds: ["./keys": try children.folder("keys")])
        let base = environmentWithoutCafeVariables()
        let keeper = try #require(compose.services.first { $0.isKeyKeeper })
        let owner = "\(getuid()):\(getgid())"
        let made = try runCommand(children.bin.appendingPathComponent(keeper.executable!),
                                  keeper.arguments.map { local.localize($0, for: keeper) }.replacingOwner(with: owner), environment: base)
        try #require(made.status == 0, "the keys tool failed: \(made.err)")

        var healthy = Set<String>()
        var waiting = compose.services.filter(\.isPlatformService)
        while !waiting.isEmpty {
            let ready = waiting.filter { Set($0.dependsOn.keys).isSubset(of: healthy) }
            try #require(!ready.isEmpty, "depends_on never settles for \(waiting.map(\.name))")
            for service in ready {
                let environment = base.merging(service.environment.mapValues { local.localize($0, for: service) }) { $1 }
                try children.start(service.name, executable: service.executable!, arguments: service.arguments.map { local.localize($0, for: service) }, environment: environment)
            }
            for service in ready {
                try local.waitForHealthcheck(service, children: children)
                healthy.insert(service.name)
            }
            waiting.removeAll { ready.map(\.name).contains($0.name) }
        }

        for tool in compose.services where !tool.isPlatformService && !tool.isKeyKeeper && !tool.isFront && !tool.isOwnImage {
            let environment = base.merging(tool.environment.mapValues { local.localize($0, for: tool) }) { $1 }
            // The tool prints the table for people; the JSON lines are read here.
            let arguments = tool.arguments.map { local.localize($0, for: tool) } + (tool.arguments.first == "health" ? ["--json"] : [])
            let result = try runCommand(children.bin.appendingPathComponent(tool.executable!), arguments, environment: environment)
            #expect(result.status == 0, "\(tool.name) exited \(result.status): \(result.out) \(result.err)")
            let lines = result.out.split(separator: "\n")
            #expect(lines.count == 6 && lines.allSatisfy { $0.contains("\"status\":\"ok\"") }, "\(result.out)")
        }
    }
}

/// What a container sees, mapped onto this machine: `tcp://<service>:<port>` and the service's own
/// `tcp://0.0.0.0:<port>` / `tcp://127.0.0.1:<port>` to one free loopback port per (service, port),
/// named volumes to fresh folders and bind mounts to their sources next to the compose file.
struct LocalTopology {
    let compose: ComposeFile
    let root: URL
    /// Bind-mount sources placed elsewhere than next to the compose file.
    let binds: [String: URL]
    private var ports: [String: Int] = [:]

    init(compose: ComposeFile, root: URL, binds: [String: URL] = [:]) throws {
        self.compose = compose
        self.root = root
        self.binds = binds
        var keys = Set<String>()
        for service in compose.services {
            for value in Array(service.environment.values) + (service.healthcheck ?? []) + (service.command ?? []) {
                for match in value.matches(of: Self.endpoint) {
                    if let key = key(host: String(match.output.1), port: String(match.output.2), in: service) { keys.insert(key) }
                }
            }
        }
        ports = Dictionary(uniqueKeysWithValues: zip(keys.sorted(), try LoopbackPorts.free(keys.count)))
    }

    /// `tcp://<host>:<port>`; a function because a `Regex` is not `Sendable` and cannot be a static constant.
    private static var endpoint: Regex<(Substring, Substring, Substring)> { #/tcp://([A-Za-z0-9.*-]+):(\d+)/# }

    private func key(host: String, port: String, in service: ComposeService) -> String? {
        if ["0.0.0.0", "*", "127.0.0.1", "localhost"].contains(host) { return "\(service.name):\(port)" }
        if compose.service(host) != nil { return "\(host):\(port)" }
        return nil
    }

    func localize(_ value: String, for service: ComposeService) -> String {
        var result = value.replacing(Self.endpoint) { match in
            guard let key = key(host: String(match.output.1), port: String(match.output.2), in: service), let port = ports[key] else { return String(match.output.0) }
            return "tcp://127.0.0.1:\(port)"
        }
        for mount in service.mounts where result == mount.target || result.hasPrefix(mount.target + "/") {
            let local = mount.isNamedVolume ? root.appendingPathComponent("volumes/\(mount.source)")
                : binds[mount.source] ?? DeployFiles.deployFolder.appendingPathComponent(mount.source)
            result = local.standardized.path + result.dropFirst(mount.target.count)
        }
        return result
    }

    /// Runs the service's healthcheck command, as Docker would, until it exits 0.
    func waitForHealthcheck(_ service: ComposeService, children: ChildProcesses, timeout: Double = 30) throws {
        guard let test = service.healthcheck, test.first == "CMD", test.count > 1 else { throw PlatformError("\(service.name) has no exec-form healthcheck") }
        let executable = children.bin.appendingPathComponent(test[1])
        let arguments = test.dropFirst(2).map { localize($0, for: service) }
        let deadline = Date().addingTimeInterval(timeout)
        var last: CommandResult?
        while Date() < deadline {
            guard children.isRunning(service.name) else { throw PlatformError("\(service.name) exited: \(children.log(service.name).suffix(2000))") }
            let result = try runCommand(executable, arguments, environment: environmentWithoutCafeVariables())
            if result.status == 0 { return }
            last = result
            usleep(300_000)
        }
        throw PlatformError("\(service.name) never passed its healthcheck: \(last?.out ?? "") \(last?.err ?? "") \(children.log(service.name).suffix(2000))")
    }
}

extension Array where Element == String {
    /// The same arguments with `--owner` set to `value`.
    func replacingOwner(with value: String) -> [String] {
        guard let flag = firstIndex(of: "--owner"), flag + 1 < count else { return self }
        var copy = self
        copy[flag + 1] = value
        return copy
    }
}
