import Foundation
import ServiceRuntime
import Testing

/// `cafectl keys init|add|list|revoke` on a key folder, through the built binary: what it writes,
/// what it prints (never a secret key), and how it refuses.
@Suite
struct CafectlKeysTests {
    let bin: URL
    let root: URL

    init() throws {
        bin = try Platform.binaryDirectory()
        root = FileManager.default.temporaryDirectory.appendingPathComponent("cafe-keys-\(UUID().uuidString.prefix(8))")
    }

    func cafectl(_ arguments: [String]) throws -> CommandResult {
        try runCommand(bin.appendingPathComponent("cafectl"), arguments, environment: environmentWithoutCafeVariables())
    }

    /// Every secret key in the folder (from the `.key` files).
    func secrets(_ folder: KeyFolder) throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".key") }
        return try names.map { try folder.keyPair(named: String($0.dropLast(4))).secretKey }
    }

    func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : 0
    }

    @Test("init makes a 0600 key for every service instance and the operator; add, list and revoke; no secret key is ever printed")
    func lifecycle() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = KeyFolder(root.appendingPathComponent("keys").path)
        var printed = ""

        let initialized = try cafectl(["keys", "init", folder.path])
        try #require(initialized.status == 0, "\(initialized.err)")
        printed += initialized.out + initialized.err
        let names = try folder.registry().principals.map(\.name)
        #expect(names == KeyFolder.serviceInstances.map(\.name) + ["operator"])
        for name in names {
            #expect(mode(folder.keyPath(name)) == 0o600, "\(name).key")
            #expect(initialized.out.contains(folder.keyPath(name)))
        }
        #expect(initialized.out.contains("--keys \(folder.path) --as operator"))

        let added = try cafectl(["keys", "add", folder.path, "phone-alice", "--role", "phone", "--device", "D-alice", "--user", "alice"])
        try #require(added.status == 0, "\(added.err)")
        printed += added.out + added.err
        #expect(added.out.contains("phone-alice phone device=D-alice user=alice"))
        #expect(added.out.contains(folder.keyPath("phone-alice")))
        #expect(mode(folder.keyPath("phone-alice")) == 0o600)
        let alice = try #require(try folder.registry().principal(named: "phone-alice"))
        #expect(alice.role == .phone && alice.deviceId == "D-alice" && alice.userId == "alice")
        for (role, scope) in [("kitchen", ["--cafe", "caffe-macs"]), ("kiosk", ["--cafe", "caffe-macs"]), ("gateway", []), ("edge", []), ("service", ["--service", "region-monitor"])] {
            let result = try cafectl(["keys", "add", folder.path, "\(role)-1", "--role", role] + scope)
            #expect(result.status == 0, "\(role): \(result.err)")
            printed += result.out + result.err
        }

        let list = try cafectl(["keys", "list", folder.path])
        try #require(list.status == 0, "\(list.err)")
        printed += list.out + list.err
        for principal in try folder.registry().principals {
            let row = try #require(list.out.split(separator: "\n").first { $0.hasPrefix(principal.name + " ") }, "no row for \(principal.name)")
            #expect(row.contains(principal.role.rawValue) && row.contains(principal.publicKey), "\(row)")
            for field in principal.scopeFields { #expect(row.contains(field), "\(row)") }
        }
        let json = try cafectl(["keys", "list", folder.path, "--json"])
        printed += json.out + json.err
        let rows = try json.out.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:] }
        #expect(rows.count == (try folder.registry().principals.count))
        #expect(rows.allSatisfy { Set($0.keys) == ["name", "role", "scope", "publicKey", "keyFile"] })

        // Everything printed so far: not one secret key.
        for secret in try secrets(folder) { #expect(!printed.contains(secret), "a secret key was printed") }

        let revoked = try cafectl(["keys", "revoke", folder.path, "phone-alice"])
        #expect(revoked.status == 0, "\(revoked.err)")
        #expect(revoked.out.contains("revoked phone-alice"))
        #expect(try folder.registry().principal(named: "phone-alice") == nil)
        #expect(!FileManager.default.fileExists(atPath: folder.keyPath("phone-alice")))
    }

    @Test("refusals: one line on stderr, exit 2 for a wrong command line, exit 1 for what the folder refuses; the registry is unchanged")
    func refusals() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = KeyFolder(root.appendingPathComponent("keys").path)
        #expect(try cafectl(["keys", "init", folder.path]).status == 0)
        _ = try cafectl(["keys", "add", folder.path, "kitchen-macs", "--role", "kitchen", "--cafe", "caffe-macs"])
        let before = try folder.registry()
        let cases: [(arguments: [String], status: Int32, says: String)] = [
            (["keys", "add", folder.path, "phone-x", "--role", "phone", "--device", "D-x"], 2, "a phone key needs device=<id> user=<id>"),
            (["keys", "add", folder.path, "kitchen-x", "--role", "kitchen"], 2, "a kitchen key needs cafe=<id>"),
            (["keys", "add", folder.path, "op-x", "--role", "operator", "--cafe", "caffe-macs"], 2, "key has no scope"),
            (["keys", "add", folder.path, "edge-x", "--role", "edge", "--user", "alice"], 2, "key has no scope"),
            (["keys", "add", folder.path, "x", "--role", "wizard"], 2, "--role must be one of"),
            (["keys", "add", folder.path, "-bad", "--role", "gateway"], 2, "is not a name"),
            (["keys", "add", folder.path, "x"], 2, "missing --role"),
            (["keys", "add", folder.path, "x", "--role", "gateway", "--colour", "red"], 2, "unknown flag --colour"),
            (["keys", "add", folder.path, "kitchen-macs", "--role", "kitchen", "--cafe", "caffe-macs"], 1, "already registered"),
            (["keys", "revoke", folder.path, "nobody"], 1, "no principal named nobody"),
            (["keys", "init", folder.path], 1, "exists"),
            (["keys", "list", root.appendingPathComponent("none").path], 1, "no key registry"),
            (["keys", "init", root.appendingPathComponent("other").path, "--owner", "cafe"], 2, "--owner is UID[:GID]"),
            (["keys", "frobnicate", folder.path], 2, "usage: cafectl keys"),
        ]
        for refusal in cases {
            let result = try cafectl(refusal.arguments)
            #expect(result.status == refusal.status, "\(refusal.arguments): \(result.err)")
            #expect(result.err.hasPrefix("cafectl: ") && result.err.contains(refusal.says), "\(refusal.arguments): \(result.err)")
            #expect(result.err.split(separator: "\n").count == 1, "\(result.err)")
        }
        #expect(try folder.registry() == before)
        #expect(!FileManager.default.fileExists(atPath: folder.keyPath("phone-x")))
    }

    @Test("--owner gives the folder and every new key file to that user (here: ourselves)")
    func owner() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = KeyFolder(root.appendingPathComponent("keys").path)
        let owner = "\(getuid()):\(getgid())"
        let result = try cafectl(["keys", "init", folder.path, "--owner", owner])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("owned by \(owner)"))
        let added = try cafectl(["keys", "add", folder.path, "gw", "--role", "gateway", "--owner", owner])
        #expect(added.status == 0, "\(added.err)")
        for path in [folder.path, folder.keyPath("bus"), folder.keyPath("gw")] {
            var info = stat()
            #expect(stat(path, &info) == 0 && info.st_uid == getuid() && info.st_gid == getgid(), "\(path)")
        }
    }

    @Test("--keys and --as go together and must name a usable key: exit 2 with one line")
    func identityFlags() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = KeyFolder(root.appendingPathComponent("keys").path)
        #expect(try cafectl(["keys", "init", folder.path]).status == 0)
        for (arguments, says) in [(["health", "--keys", folder.path], "needs --as NAME"), (["health", "--as", "operator"], "needs --keys DIR"),
                                  (["health", "--keys", folder.path, "--as", "nobody"], "no secret key for nobody"),
                                  (["health", "region", "--keys", folder.path, "--as", "operator", "--region", "nobody@tcp://127.0.0.1:1"], "no key for server \"nobody\"")] {
            let result = try cafectl(arguments)
            #expect(result.status == 2, "\(arguments): \(result.err)")
            #expect(result.err.contains(says) && result.err.split(separator: "\n").count == 1, "\(arguments): \(result.err)")
        }
    }
}
