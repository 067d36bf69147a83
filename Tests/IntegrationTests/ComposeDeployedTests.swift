import Foundation
import ServiceRuntime
import Testing

/// deploy/docker-compose.yml runs deployed mode by default: every platform service with CURVE
/// and the key folder mounted read-only, as a principal `cafectl keys init` makes, and the tools
/// that make the folder and act as the operator. Read statically (no Docker engine here).
@Suite
struct ComposeDeployedTests {
    let compose: ComposeFile

    init() throws {
        compose = try ComposeFile.load()
    }

    var platform: [ComposeService] { compose.services.filter(\.isPlatformService) }

    @Test("every platform service runs deployed with the key folder mounted read-only at /keys, as a principal keys init makes")
    func everyServiceDeployed() throws {
        try #require(platform.count == 8)
        let instances = Dictionary(uniqueKeysWithValues: KeyFolder.serviceInstances.map { ($0.name, $0.service) })
        for service in platform {
            let env = service.environment
            #expect(env["CAFE_SECURITY"] == "deployed", "\(service.name) runs \(env["CAFE_SECURITY"] ?? "plain") mode")
            #expect(env["CAFE_KEYS"] == "/keys", "\(service.name) reads keys from \(env["CAFE_KEYS"] ?? "nowhere")")
            #expect(env["CAFE_INSECURE_PLAIN"] == nil, "\(service.name) must not fall back to insecure plain mode")
            let mount = try #require(service.mounts.first { $0.target == "/keys" }, "\(service.name) does not mount the key folder")
            #expect(mount.source == "./keys" && mount.readOnly, "\(service.name) mounts \(mount.source):\(mount.target) \(mount.readOnly ? "ro" : "writable")")
            let instance = try #require(env["CAFE_INSTANCE"], "\(service.name) has no instance name, so no principal")
            #expect(instances[instance] == service.executable, "keys init makes no \(service.executable ?? "?") key named \(instance)")
        }
    }

    @Test("the keys tool makes the folder as root and gives the keys to the image's user; the cafectl tool acts as the operator")
    func tools() throws {
        let keeper = try #require(compose.services.first { $0.isKeyKeeper }, "no service runs cafectl keys")
        #expect(!keeper.isPlatformService, "the keys tool runs only on demand")
        #expect(Array(keeper.arguments.prefix(3)) == ["keys", "init", "/keys"], "\(keeper.arguments)")
        let mount = try #require(keeper.mounts.first { $0.target == "/keys" })
        #expect(mount.source == "./keys" && !mount.readOnly, "the keys tool must write the folder the services read")
        #expect(keeper.value["user"]?.string == "0:0", "only root may give files to another user")
        // --owner is the user the runtime image runs as, so each container can read its 0600 key.
        let owner = try #require(keeper.arguments.firstIndex(of: "--owner").map { keeper.arguments[$0 + 1] })
        let runtime = try #require(try Dockerfile.load().stages.last)
        let useradd = try #require(runtime.all("RUN").first { $0.contains("useradd") })
        let uid = try #require(useradd.firstMatch(of: #/--uid (\d+)/#)?.output.1)
        let gid = try #require(runtime.all("RUN").first { $0.contains("groupadd") }?.firstMatch(of: #/--gid (\d+)/#)?.output.1)
        #expect(owner == "\(uid):\(gid)", "keys are given to \(owner), the image runs as \(uid):\(gid)")
        // The source folder exists (podman refuses a missing bind source) and git keeps its secrets out.
        let ignore = try DeployFiles.text("deploy/keys/.gitignore")
        #expect(ignore.split(separator: "\n").contains("*"))

        let tool = try #require(compose.services.first { $0.executable == "cafectl" && !$0.isKeyKeeper })
        #expect(tool.environment["CAFE_KEYS"] == "/keys" && tool.environment["CAFE_AS"] == "operator", "\(tool.environment)")
        #expect(tool.mounts.contains { $0.source == "./keys" && $0.target == "/keys" && $0.readOnly })
    }

    @Test("the image's build context leaves the keys out")
    func buildContext() throws {
        let ignore = try DeployFiles.text("deploy/Dockerfile.dockerignore").split(separator: "\n").map(String.init)
        #expect(ignore.contains("deploy/keys"))
    }
}
