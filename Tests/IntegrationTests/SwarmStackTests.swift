import Foundation
import ServiceRuntime
import Testing

/// deploy/swarm-stack.yml, the Docker Swarm stack, read statically and held to the compose file
/// it mirrors. deploy/compose-test.sh also renders it with `docker stack config` and runs it with
/// podman-compose; `rendersWithTheDockerClient` below renders it where a docker client is installed.
@Suite
struct SwarmStackTests {
    let stack: YAMLValue
    let services: [ComposeService]
    let compose: ComposeFile

    init() throws {
        stack = try YAMLSubset.parse(try DeployFiles.text("deploy/swarm-stack.yml"))
        let pairs = try #require(stack["services"]?.pairs, "swarm-stack.yml has no services")
        // The HTTP front (edge, Pushpin) is held to its own rules by ComposeFrontTests.
        services = pairs.map { ComposeService(name: $0.key, value: $0.value) }.filter { !$0.isFront }
        compose = try ComposeFile.load()
    }

    @Test("the same eight platform services as the compose file, the shards as separate services, each one replica")
    func sameServices() throws {
        let platform = compose.services.filter(\.isPlatformService)
        #expect(Set(services.map(\.name)) == Set(platform.map(\.name)))
        for service in services {
            #expect(service.value["deploy"]?["replicas"]?.string == "1", "\(service.name): one process per instance name (its outbox stream has one writer)")
        }
        let shards = services.filter { $0.environment["CAFE_SHARD"] != nil }
        #expect(shards.count == 4)
        for executable in ["beacon-ingest", "region-monitor"] {
            let of = shards.filter { $0.executable == executable }
            #expect(Set(of.compactMap { $0.environment["CAFE_SHARD"] }) == ["0", "1"], "\(executable) shards: \(of.map(\.name))")
        }
    }

    @Test("images by tag, nothing to build, no depends_on (services wait for peers themselves)")
    func imagesOnly() throws {
        for service in services {
            #expect(service.value["build"] == nil, "\(service.name) builds; a stack deploys images")
            #expect(service.value["depends_on"] == nil, "\(service.name): stack deploy ignores depends_on")
            let image = try #require(service.image, "\(service.name) has no image")
            #expect(image == "${CAFE_IMAGE:-campus-cafe:latest}", "\(service.name) runs \(image)")
        }
    }

    @Test("each service runs what compose runs with the same environment, keys from /run/secrets")
    func sameCommandAndEnvironment() throws {
        for service in services {
            let twin = try #require(compose.service(service.name))
            #expect(service.command == twin.command, "\(service.name): \(service.command ?? []) vs compose \(twin.command ?? [])")
            var expected = twin.environment
            expected["CAFE_KEYS"] = "/run/secrets"
            #expect(service.environment == expected, "\(service.name) environment differs from compose beyond CAFE_KEYS")
            #expect(service.environment["CAFE_SECURITY"] == "deployed")
            // The published ports are compose's, on the node itself (no IPVS between client and service).
            let ports = try #require(service.value["ports"]?.items, "\(service.name) publishes nothing")
            let published = Set(ports.compactMap { $0["published"]?.string.flatMap(Int.init) })
            #expect(published == Set(twin.ports.map(\.published)), "\(service.name) publishes \(published)")
            #expect(ports.allSatisfy { $0["mode"]?.string == "host" })
            // Compose's healthcheck, with the keys where this stack puts them, as a liveness check:
            // Swarm replaces a task whose check fails, and restarting a degraded service (its bus
            // gone) helps nothing.
            let health = try #require(service.healthcheck, "\(service.name) has no healthcheck")
            let twinHealth = try #require(twin.healthcheck)
            #expect(health == twinHealth.map { $0 == "/keys" ? "/run/secrets" : $0 } + ["--live", "true"], "\(service.name): \(health)")
        }
    }

    @Test("keys are secrets: the registry and the instance's own key, uid 10001, 0400, from the files keys init makes")
    func keysAsSecrets() throws {
        let declared = Dictionary(uniqueKeysWithValues: try #require(stack["secrets"]?.pairs).map { ($0.key, $0.value) })
        let instances = Set(KeyFolder.serviceInstances.map(\.name))
        for service in services {
            let instance = try #require(service.environment["CAFE_INSTANCE"])
            #expect(instances.contains(instance), "keys init makes no key for \(instance)")
            let secrets = try #require(service.value["secrets"]?.items, "\(service.name) mounts no secrets")
            let targets = Dictionary(uniqueKeysWithValues: secrets.compactMap { item in item["target"]?.string.map { ($0, item) } })
            #expect(Set(targets.keys) == ["registry", "\(instance).key"], "\(service.name) mounts \(targets.keys.sorted()): only the registry and its own key")
            for (target, item) in targets {
                #expect(item["uid"]?.string == "10001" && item["gid"]?.string == "10001", "\(service.name) \(target): owned by the image's user")
                #expect(item["mode"]?.string == "0400", "\(service.name) \(target): a key another user may read is refused")
                let source = try #require(item["source"]?.string)
                let file = try #require(declared[source]?["file"]?.string, "secret \(source) is not declared with a file")
                #expect(file == "./keys/\(target)", "\(source) comes from \(file), not the file keys init writes for \(target)")
            }
        }
        // A registry change is a new secret name (Swarm secrets are immutable); service keys keep theirs.
        #expect(declared["registry"]?["name"]?.string?.contains("${CAFE_REGISTRY_VERSION") == true)
    }

    @Test("deploy: resources, restart, stop-first updates with rollback, DNS round robin; stateful services pinned to their volume's node")
    func deploySection() throws {
        for service in services {
            let deploy = try #require(service.value["deploy"], "\(service.name) has no deploy section")
            #expect(deploy["resources"]?["limits"]?["memory"] != nil && deploy["resources"]?["limits"]?["cpus"] != nil, "\(service.name) resources")
            #expect(deploy["restart_policy"]?["condition"]?.string == "any", "\(service.name) restart_policy")
            #expect(deploy["update_config"]?["order"]?.string == "stop-first", "\(service.name): one SQLite writer at a time")
            #expect(deploy["update_config"]?["failure_action"]?.string == "rollback")
            #expect(deploy["endpoint_mode"]?.string == "dnsrr", "\(service.name): no IPVS (it cuts connections idle 900 s)")
            let volumes = service.mounts.filter(\.isNamedVolume)
            let constraints = deploy["placement"]?["constraints"]?.strings ?? []
            if volumes.isEmpty {
                #expect(service.executable == "bus")
            } else {
                #expect(volumes.map(\.target) == ["/var/lib/campus-cafe"])
                #expect(constraints == ["node.labels.campus-cafe.\(service.name) == true"], "\(service.name) placement \(constraints)")
                #expect(volumes.allSatisfy { (stack["volumes"]?.keys ?? []).contains($0.source) })
            }
        }
    }

    @Test("docker stack config renders the stack (where a docker client is installed)")
    func rendersWithTheDockerClient() throws {
        let docker = ["/usr/bin/docker", "/usr/local/bin/docker"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let docker else {
            print("SwarmStackTests: no docker client here; deploy/compose-test.sh renders the stack where one is")
            return
        }
        let file = DeployFiles.repositoryRoot.appendingPathComponent("deploy/swarm-stack.yml").path
        let result = try runCommand(URL(fileURLWithPath: docker), ["stack", "config", "-c", file], timeout: 30)
        #expect(result.status == 0, "docker stack config: \(result.err)")
        #expect(result.out.contains("region-monitor-s1") && result.out.contains("endpoint_mode: dnsrr"), "\(result.out.prefix(400))")
    }
}
