import Foundation
import Testing

/// The HTTP front of deploy/docker-compose.yml and deploy/swarm-stack.yml, read statically: the
/// edge (the campus image) and Pushpin (deploy/pushpin's image). Pushpin binds the edge's two
/// ZeroMQ endpoints and the edge connects to them by DNS name; only Pushpin's HTTP port reaches
/// the host, because its publish socket takes anything without authentication.
@Suite
struct ComposeFrontTests {
    let compose: ComposeFile
    let stack: [ComposeService]
    let entrypoint: String

    init() throws {
        compose = try ComposeFile.load()
        let document = try YAMLSubset.parse(try DeployFiles.text("deploy/swarm-stack.yml"))
        stack = try #require(document["services"]?.pairs).map { ComposeService(name: $0.key, value: $0.value) }
        entrypoint = try DeployFiles.text("deploy/pushpin/campus-cafe-pushpin")
    }

    /// The port Pushpin's command binds for `flag` of render.sh (`--zhttp tcp://0.0.0.0:7461`).
    func pushpinBinds(_ flag: String) -> Int? {
        entrypoint.firstMatch(of: try! Regex("\(flag) tcp://0\\.0\\.0\\.0:(\\d+)")).flatMap { ($0.output[1].substring).flatMap { Int($0) } }
    }

    @Test("one edge and one Pushpin; the edge dials Pushpin's zhttpreq and publish endpoints by its DNS name, on the ports Pushpin binds")
    func edgeDialsPushpin() throws {
        for services in [compose.services, stack] {
            let edges = services.filter { $0.executable == "edge" }
            let pushpins = services.filter(\.isPushpin)
            try #require(edges.count == 1 && pushpins.count == 1, "\(services.map(\.name))")
            let env = edges[0].environment
            for (key, flag) in [("CAFE_ZHTTP_ENDPOINT", "--zhttp"), ("CAFE_PUBLISH_ENDPOINT", "--publish")] {
                let port = try #require(pushpinBinds(flag), "deploy/pushpin/campus-cafe-pushpin binds no \(flag) endpoint on every interface")
                #expect(env[key] == "tcp://\(pushpins[0].name):\(port)", "the edge's \(key) is \(env[key] ?? "unset")")
            }
            #expect(env["CAFE_SECURITY"] == "deployed" && env["CAFE_INSTANCE"] == "edge")
        }
    }

    @Test("only Pushpin's HTTP port reaches the host; its zhttpreq, publish and control ports never do")
    func onlyHTTPPublished() throws {
        let pushpin = try #require(compose.services.first { $0.isPushpin })
        #expect(pushpin.ports.map(\.container) == [8080], "\(pushpin.ports)")
        #expect(pushpin.ports.allSatisfy { $0.hostAddress == "127.0.0.1" }, "publish it wider only on purpose (an ingress in front)")
        let inner = [pushpinBinds("--zhttp"), pushpinBinds("--publish"), 7463].compactMap { $0 }
        for service in compose.services {
            #expect(service.ports.allSatisfy { !inner.contains($0.published) }, "\(service.name) publishes one of Pushpin's internal ports \(inner)")
        }
        let twin = try #require(stack.first { $0.isPushpin })
        let published = (twin.value["ports"]?.items ?? []).compactMap { $0["target"]?.string.flatMap(Int.init) }
        #expect(published == [8080], "the stack's Pushpin publishes \(published)")
    }

    @Test("the edge keeps its sessions in its own volume, reads the issuers file and Pushpin's Grip key read-only, and checks its health as itself")
    func edgeMounts() throws {
        for (services, keys) in [(compose.services, "/keys"), (stack, "/run/secrets")] {
            let edge = try #require(services.first { $0.executable == "edge" })
            let pushpin = try #require(services.first { $0.isPushpin })
            let env = edge.environment
            #expect(edge.mounts.contains { $0.isNamedVolume && !$0.readOnly && $0.target == env["CAFE_DATA_DIR"] && $0.source == "edge-data" })
            let gripVolume = try #require(pushpin.mounts.first { $0.isNamedVolume && !$0.readOnly }, "Pushpin keeps its configuration in no volume")
            let grip = try #require(env["CAFE_GRIP_KEY_FILE"])
            #expect(edge.mounts.contains { $0.source == gripVolume.source && $0.readOnly && grip == "\($0.target)/sig_key" }, "the edge reads \(grip) from Pushpin's volume, read-only")
            let issuers = try #require(env["CAFE_ISSUERS"])
            // Compose mounts ./issuer; the stack delivers it as secrets beside the keys.
            #expect(issuers == (keys == "/keys" ? "/etc/campus-cafe/issuer/issuers.json" : "/run/secrets/issuers.json"), "\(issuers)")
            #expect(env["CAFE_KEYS"] == keys)
            let health = try #require(edge.healthcheck)
            // cafectl health keeps to the platform services; the edge answers health as a request.
            #expect(Array(health.prefix(6)) == ["CMD", "cafectl", "request", "edge", "health", "--edge"] && health[6] == "edge@tcp://127.0.0.1:7460", "\(health)")
            #expect(health.contains(keys) && health.contains("--as") && health[health.firstIndex(of: "--as")! + 1] == "edge")
        }
    }

    @Test("the stack runs the edge and Pushpin as compose does, pinned to one node (the edge reads Pushpin's volume), the edge's key a secret")
    func stackMatchesCompose() throws {
        for service in stack where service.isFront {
            let twin = try #require(compose.service(service.name))
            #expect(service.command == twin.command, "\(service.name)")
            var expected = twin.environment
            if expected["CAFE_KEYS"] != nil { expected["CAFE_KEYS"] = "/run/secrets" }
            if expected["CAFE_ISSUERS"] != nil { expected["CAFE_ISSUERS"] = "/run/secrets/issuers.json" }
            #expect(service.environment == expected, "\(service.name) environment differs from compose beyond CAFE_KEYS and CAFE_ISSUERS")
            #expect(service.value["deploy"]?["placement"]?["constraints"]?.strings == ["node.labels.campus-cafe.edge == true"], "\(service.name)")
            #expect(service.value["deploy"]?["replicas"]?.string == "1")
        }
        let edge = try #require(stack.first { $0.executable == "edge" })
        let secrets = (edge.value["secrets"]?.items ?? []).compactMap { $0["target"]?.string }
        #expect(Set(secrets) == ["registry", "edge.key", "issuers.json", "jwks.json"], "\(secrets)")
        // podman-compose, which compose-test runs the stack with, ignores `configs:`: the issuers
        // file and the JWKS beside it are secrets from ./issuer, which both engines deliver.
        #expect(edge.value["configs"] == nil)
        let document = try YAMLSubset.parse(try DeployFiles.text("deploy/swarm-stack.yml"))
        for item in edge.value["secrets"]?.items ?? [] {
            guard let target = item["target"]?.string, target.hasSuffix(".json"), let source = item["source"]?.string else { continue }
            #expect(document["secrets"]?[source]?["file"]?.string == "./issuer/\(target)", "secret \(source)")
        }
        // Pushpin first: podman-compose starts services in file order, and the first container to
        // mount Pushpin's volume creates it.
        let order = stack.map(\.name)
        #expect((order.firstIndex(of: "pushpin") ?? .max) < (order.firstIndex(of: "edge") ?? .min), "\(order)")
    }

    @Test("Pushpin's image is Debian's pushpin package on the same Debian release as the campus image, rendered by render.sh")
    func pushpinImage() throws {
        let pushpin = try #require(compose.services.first { $0.isPushpin })
        #expect(pushpin.value["build"]?["context"]?.string == "pushpin")
        let image = try Dockerfile.load("deploy/pushpin/Dockerfile")
        let campus = try Dockerfile.load()
        let stage = try #require(image.stages.last)
        #expect(Dockerfile.release(of: stage.image) == Dockerfile.release(of: try #require(campus.stages.last).image), "\(stage.image)")
        #expect(stage.aptPackages.contains("pushpin"), "\(stage.aptPackages)")
        #expect(entrypoint.contains("render.sh") && entrypoint.contains("exec pushpin --config"))
        // It starts as root only to give its volume to Debian's pushpin user, then drops to it.
        let drop = try #require(entrypoint.range(of: "exec setpriv --reuid=pushpin"), "the entry never drops to pushpin")
        #expect(entrypoint.range(of: "/pushpin/render.sh \"$dir\"").map { $0.lowerBound > drop.upperBound } == true && entrypoint.contains("chown -R pushpin"))
    }
}
