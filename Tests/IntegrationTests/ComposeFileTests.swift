import Foundation
import ServiceRuntime
import Testing

/// deploy/docker-compose.yml checked against the package it runs. There is no Docker engine where
/// these tests run, so each check is what `docker compose up` would otherwise find out the hard
/// way: a command that is not an executable, a variable nothing reads, a healthcheck that is a
/// usage error, a volume not declared, shards that overlap or leave a gap, ports that collide.
@Suite
struct ComposeFileTests {
    let compose: ComposeFile
    let products: [String]

    init() throws {
        compose = try ComposeFile.load()
        products = try DeployFiles.products()
    }

    var platform: [ComposeService] { compose.services.filter(\.isPlatformService) }
    var bus: ComposeService? { platform.first { $0.executable == "bus" } }

    @Test("the file parses and runs the bus, two shards of beacon-ingest and region-monitor, and the other services")
    func layout() throws {
        let counts = Dictionary(grouping: platform, by: { $0.executable ?? "" }).mapValues(\.count)
        #expect(counts == ["bus": 1, "beacon-ingest": 2, "region-monitor": 2, "order-service": 1, "kitchen-display": 1, "notification-service": 1])
        #expect(compose.document["version"] == nil, "the top-level version key is obsolete in the Compose specification")
    }

    @Test("every service runs an executable the package builds, from one image that one service builds")
    func executables() throws {
        let bin = try Platform.binaryDirectory()
        for service in compose.services where !service.isOwnImage {
            let executable = try #require(service.executable, "\(service.name) has neither entrypoint nor command")
            #expect(products.contains(executable), "\(service.name) runs \(executable), which is not a product in Package.swift")
            #expect(FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent(executable).path), "\(executable) is not built")
        }
        #expect(Set(compose.services.filter { !$0.isOwnImage }.map(\.image)) == ["campus-cafe:latest"])
        let builders = compose.services.filter { $0.value["build"] != nil && !$0.isOwnImage }
        #expect(builders.count == 1, "one service builds the shared image so compose builds it once")
        let build = try #require(builders.first?.value["build"])
        let context = DeployFiles.deployFolder.appendingPathComponent(try #require(build["context"]?.string)).standardized
        #expect(context.path == DeployFiles.repositoryRoot.standardized.path, "the build context is the repository root")
        let dockerfile = context.appendingPathComponent(try #require(build["dockerfile"]?.string))
        #expect(FileManager.default.fileExists(atPath: dockerfile.path))
    }

    @Test("every environment variable a service sets is one its executable reads")
    func environmentIsRead() throws {
        var names: [String: Set<String>] = [:]
        for service in compose.services where !service.isOwnImage {
            let executable = try #require(service.executable)
            if names[executable] == nil { names[executable] = try DeployFiles.environmentNames(of: executable) }
            let read = names[executable]!
            #expect(!read.isEmpty, "\(executable) --help lists no environment variables")
            for key in service.environment.keys.sorted() {
                #expect(read.contains(key), "\(service.name) sets \(key), which \(executable) does not read (it reads \(read.sorted()))")
            }
        }
    }

    @Test("cafectl takes each service endpoint from CAFE_<FLAG>_ENDPOINT, as the tools service sets it")
    func cafectlReadsItsEndpointVariables() throws {
        let bin = try Platform.binaryDirectory()
        let tools = compose.services.filter { $0.executable == "cafectl" }
        #expect(!tools.isEmpty)
        let services = ["BUS": "bus", "INGEST": "beacon-ingest", "REGION": "region-monitor", "ORDERS": "order-service", "KITCHEN": "kitchen-display", "NOTIFY": "notification-service"]
        // An ipc path nobody binds: unlike a freed TCP port, no concurrently running test can take it.
        let unused = "ipc://\(FileManager.default.temporaryDirectory.path)/cafe-unused-\(UUID().uuidString.prefix(8))"
        for tool in tools {
            for key in tool.environment.keys.sorted() {
                let flag = key.dropFirst("CAFE_".count).dropLast("_ENDPOINT".count)
                guard let name = services[String(flag)] else { continue }
                var environment = environmentWithoutCafeVariables()
                environment[key] = unused
                let result = try runCommand(bin.appendingPathComponent("cafectl"), ["health", name, "--json", "--timeout-ms", "200"], environment: environment)
                #expect(result.status == 1, "\(key): \(result.err)")
                #expect(result.out.contains("\"endpoint\":\"\(unused)\""), "cafectl did not use \(key): \(result.out)")
            }
        }
    }

    @Test("services listen on every interface and advertise their DNS name; everyone meets at the bus service")
    func endpoints() throws {
        let bus = try #require(bus)
        let env = bus.environment
        for key in ["CAFE_XSUB", "CAFE_XPUB", "CAFE_LISTEN"] {
            #expect(env[key]?.wholeMatch(of: #/tcp://(0\.0\.0\.0|\*):\d+/#) != nil, "bus \(key) = \(env[key] ?? "unset")")
        }
        let xsub = env["CAFE_XSUB"]?.split(separator: ":").last.map(String.init) ?? ""
        let xpub = env["CAFE_XPUB"]?.split(separator: ":").last.map(String.init) ?? ""
        for service in platform where service.executable != "bus" {
            let env = service.environment
            let listen = try #require(env["CAFE_LISTEN"], "\(service.name) sets no CAFE_LISTEN")
            let match = try #require(listen.wholeMatch(of: #/tcp://(?:0\.0\.0\.0|\*):(\d+)/#), "\(service.name) listens on \(listen), which other containers cannot reach")
            #expect(env["CAFE_ADVERTISE"] == "tcp://\(service.name):\(match.output.1)", "\(service.name) must advertise its DNS name: heartbeats carry it and consumers dial it to replay")
            #expect(env["CAFE_BUS_PUB"] == "tcp://\(bus.name):\(xsub)")
            #expect(env["CAFE_BUS_SUB"] == "tcp://\(bus.name):\(xpub)")
        }
        // Every endpoint that names a host names a service that binds that port, and the server
        // principal it expects (named before "@", else the service's own name) is that service's instance.
        // CAFE_ADVERTISE is dialled by consumers of the heartbeat, with the key of its source (the instance).
        for service in compose.services {
            for (key, value) in service.environment {
                for item in value.split(separator: ",").map(String.init) {
                    let (server, endpoint) = PeerEndpoint.split(item, defaultName: "")
                    guard let m = endpoint.wholeMatch(of: #/tcp://([a-z][a-z0-9-]*):(\d+)/#) else { continue }
                    let target = try #require(compose.service(String(m.output.1)), "\(service.name) dials \(item), not a service")
                    // Pushpin binds what the edge dials by its own configuration (ComposeFrontTests).
                    if target.isPushpin { continue }
                    #expect(target.boundPorts.contains(Int(m.output.2)!), "\(service.name) dials \(item), a port \(target.name) does not bind")
                    let expected = server.isEmpty ? (key == "CAFE_ADVERTISE" ? target.name : target.executable ?? "") : server
                    #expect(target.environment["CAFE_INSTANCE"] == expected,
                            "\(service.name) dials \(item) expecting the key of \(expected), but \(target.name) runs as \(target.environment["CAFE_INSTANCE"] ?? "?")")
                }
            }
        }
    }

    @Test("every healthcheck is a cafectl health command that asks that service on the port it binds, as the container's own principal")
    func healthchecks() throws {
        let bin = try Platform.binaryDirectory()
        // The key folder the containers mount at /keys, made the way `keys init` makes it.
        let keys = KeyFolder(FileManager.default.temporaryDirectory.appendingPathComponent("cafe-compose-keys-\(UUID().uuidString.prefix(8))").path)
        try keys.initialize()
        defer { try? FileManager.default.removeItem(atPath: keys.path) }
        // An ipc path nobody binds: unlike a freed TCP port, no concurrently running test can take it.
        let unused = "ipc://\(FileManager.default.temporaryDirectory.path)/cafe-unused-\(UUID().uuidString.prefix(8))"
        for service in platform {
            let test = try #require(service.healthcheck, "\(service.name) has no healthcheck")
            try #require(test.count >= 6 && test[0] == "CMD" && test[1] == "cafectl" && test[2] == "health", "\(service.name): \(test)")
            #expect(test[3] == service.executable, "\(service.name) checks \(test[3])")
            let peer = try #require(test.firstIndex { $0.contains("tcp://") }.map { test[$0] })
            let (server, endpoint) = PeerEndpoint.split(peer, defaultName: test[3])
            let port = try #require(endpoint.wholeMatch(of: #/tcp://127\.0\.0\.1:(\d+)/#).flatMap { Int($0.output.1) }, "\(endpoint) is not on loopback")
            let instance = service.environment["CAFE_INSTANCE"]
            #expect(server == instance, "\(service.name) checks the server \(server), but it runs as \(instance ?? "?")")
            #expect(test.contains("--keys") && test[test.firstIndex(of: "--keys")! + 1] == "/keys", "\(service.name): \(test)")
            #expect(test.contains("--as") && test[test.firstIndex(of: "--as")! + 1] == instance, "\(service.name) must check health as its own principal: \(test)")
            let health = service.environment["CAFE_LISTEN"]
            #expect(health?.hasSuffix(":\(port)") == true, "\(service.name) answers health on \(health ?? "?"), the check asks :\(port)")
            // Against nothing: exit 1 (unreachable), not 2 (a usage error), for the named service on the given endpoint.
            let arguments = Array(test.dropFirst(2)).map { $0 == peer ? "\(server)@\(unused)" : $0 == "/keys" ? keys.path : $0 }
            // --json: the lines a script reads (the check itself goes by the exit status alone).
            let result = try runCommand(bin.appendingPathComponent(test[1]), (arguments + ["--json"]).replacingTimeout(with: "200"),
                                        environment: environmentWithoutCafeVariables())
            #expect(result.status == 1, "\(service.name): \(test.joined(separator: " ")) exited \(result.status): \(result.err)")
            #expect(result.out.contains("\"service\":\"\(test[3])\"") && result.out.contains("\"endpoint\":\"\(server)@\(unused)\""), "\(result.out)")
            #expect(result.out.split(separator: "\n").count == 1, "the check must ask one service: \(result.out)")
        }
    }

    @Test("named volumes are declared, one per stateful instance, mounted where it keeps its data; the campus is read-only")
    func volumes() throws {
        let declared = compose.declaredVolumes
        var users: [String: [String]] = [:]
        for service in compose.services {
            for mount in service.mounts {
                if mount.isNamedVolume {
                    #expect(declared.contains(mount.source), "\(service.name) mounts undeclared volume \(mount.source)")
                    users[mount.source, default: []].append(service.name)
                } else {
                    let source = DeployFiles.deployFolder.appendingPathComponent(mount.source)
                    #expect(FileManager.default.fileExists(atPath: source.path), "\(service.name) binds \(mount.source), which does not exist next to the compose file")
                    #expect(mount.readOnly || service.isKeyKeeper, "\(service.name) binds \(mount.source) writable")
                }
            }
            if let dataDir = service.environment["CAFE_DATA_DIR"] {
                #expect(service.mounts.contains { $0.isNamedVolume && $0.target == dataDir }, "\(service.name) keeps data in \(dataDir) without a named volume there")
            }
            if let campus = service.environment["CAFE_CAMPUS"] {
                #expect(service.mounts.contains { !$0.isNamedVolume && $0.target == campus && $0.source.hasSuffix("campus.json") }, "\(service.name) reads \(campus) but it is not mounted")
            }
        }
        // One writer per volume; another service may read it (the edge reads Pushpin's Grip key).
        var writers: [String: [String]] = [:]
        for service in compose.services {
            for mount in service.mounts where mount.isNamedVolume && !mount.readOnly { writers[mount.source, default: []].append(service.name) }
        }
        for volume in declared {
            #expect(writers[volume]?.count == 1, "volume \(volume) is written by \(writers[volume] ?? []) and used by \(users[volume] ?? [])")
        }
        let stateful = platform.filter { $0.executable != "bus" }
        #expect(stateful.allSatisfy { $0.environment["CAFE_DATA_DIR"] != nil })
    }

    @Test("shards of one service agree on the count, cover 0..<count once each, and have their own instance names")
    func shards() throws {
        let instances = compose.services.compactMap { $0.environment["CAFE_INSTANCE"] }
        #expect(Set(instances).count == instances.count, "CAFE_INSTANCE values repeat: \(instances)")
        for (executable, group) in Dictionary(grouping: platform, by: { $0.executable ?? "" }) {
            let counts = Set(group.map { $0.environment["CAFE_SHARDS"] })
            guard counts != [nil] else { continue }
            try #require(counts.count == 1, "\(executable) instances disagree on CAFE_SHARDS: \(counts)")
            let count = try #require(counts.first.flatMap { $0 }.flatMap { Int($0) }, "\(executable): CAFE_SHARDS must be an integer")
            let owned = group.compactMap { $0.environment["CAFE_SHARD"].flatMap { Int($0) } }.sorted()
            #expect(owned == Array(0..<count), "\(executable) shards \(owned) do not cover 0..<\(count) once each")
            #expect(group.allSatisfy { $0.environment["CAFE_INSTANCE"] != nil }, "each \(executable) shard needs its own CAFE_INSTANCE: its outbox stream's source")
        }
        for executable in ["beacon-ingest", "region-monitor"] {
            #expect(platform.filter { $0.executable == executable }.allSatisfy { $0.environment["CAFE_SHARDS"] == "2" })
        }
    }

    @Test("published ports do not collide, reach a port the container binds, and stay on the host's loopback")
    func ports() throws {
        var seen: [Int: String] = [:]
        for service in compose.services {
            for port in service.ports {
                #expect(seen[port.published] == nil, "host port \(port.published) is published by \(seen[port.published] ?? "") and \(service.name)")
                seen[port.published] = service.name
                // Pushpin's HTTP port is in its own configuration (ComposeFrontTests), not its environment.
                #expect(service.isOwnImage || service.boundPorts.contains(port.container), "\(service.name) publishes \(port.container), which it does not bind")
                #expect(port.hostAddress == "127.0.0.1", "\(service.name) publishes \(port.published) beyond loopback; publish wider only on purpose")
            }
        }
        #expect(Set(seen.keys).isSuperset(of: [7401, 7402, 7403, 7410, 7411, 7420, 7421, 7430, 7440, 7450]))
    }

    @Test("depends_on names existing services; every service waits for a healthy bus; platform services restart unless stopped")
    func dependenciesAndRestart() throws {
        let bus = try #require(bus)
        for service in compose.services {
            for (target, condition) in service.dependsOn {
                let dependency = compose.service(target)
                #expect(dependency != nil, "\(service.name) depends on \(target), which does not exist")
                if condition == "service_healthy" { #expect(dependency?.healthcheck != nil, "\(target) has no healthcheck to wait for") }
            }
        }
        for service in platform {
            #expect(service.value["restart"]?.string == "unless-stopped", "\(service.name)")
            if service.name != bus.name {
                #expect(service.dependsOn[bus.name] == .some("service_healthy"), "\(service.name) must wait for a healthy bus")
            }
        }
    }
}

extension Array where Element == String {
    /// The same arguments with `--timeout-ms` set to `value` (added when missing).
    func replacingTimeout(with value: String) -> [String] {
        guard let flag = firstIndex(of: "--timeout-ms"), flag + 1 < count else { return self + ["--timeout-ms", value] }
        var copy = self
        copy[flag + 1] = value
        return copy
    }
}
