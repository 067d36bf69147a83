import Foundation
import Messages
import Policy
import ServiceRuntime
import ZeroMQ

/// `cafectl keys init|add|revoke|list DIR …`: the campus key folder (see `KeyFolder`). Secret
/// keys are written 0600 and never printed; what is printed is names, roles, scopes, public keys
/// and file paths. Running processes pick a change up within a second, or at once on SIGHUP.
enum KeysCommand {
    static let usage = "usage: cafectl keys init DIR [--owner UID[:GID]] | add DIR NAME --role R [--device D --user U | --cafe C | --service S] [--owner UID[:GID]] | revoke DIR NAME | list DIR [--json]"

    static let owner = Option<String?>("owner", help: "who must own the key files: UID[:GID] in numbers (the image runs as 10001:10001)")
    static let role = Option<Role?>.optionalChoice("role", help: "the new principal's role")
    static let service = Option<String?>("service", help: "a service key's service")
    static let json = Option.flag("json", default: false, help: "one JSON line per principal")

    static let initFlags = [CommandFlag(owner)]
    static let addFlags = [CommandFlag(owner), CommandFlag(role), CommandFlag(service), CommandFlag(ClientCommands.device),
                           CommandFlag(ClientCommands.user), CommandFlag(ClientCommands.cafe)]
    static let jsonSwitch = CommandFlag(json, .switchOnly)
    static let listFlags = [jsonSwitch]

    static func run(_ args: CommandArguments) throws -> Int32 {
        let words = Array(args.words.dropFirst())
        guard let verb = words.first, words.count >= 2 else { throw UsageError(usage) }
        let folder = KeyFolder(words[1])
        switch verb {
        case "init":
            guard words.count == 2 else { throw UsageError("usage: cafectl keys init DIR [--owner UID[:GID]]") }
            let owner = try args.command(initFlags)[Self.owner].map(FileOwner.init)
            let made = try folder.initialize()
            if let owner { try owner.apply(to: [folder.path] + made.map { folder.keyPath($0.name) }) }
            say("created \(folder.registryPath) with \(made.count) principals, each key 0600\(owner.map { " owned by \($0)" } ?? ""):")
            for principal in made { say("  \(principal.summary.padded(to: 48)) \(folder.keyPath(principal.name))") }
            say("act as the operator with: cafectl <command> --keys \(folder.path) --as \(KeyFolder.defaultOperator)")
        case "add":
            guard words.count == 3 else { throw UsageError("usage: cafectl keys add DIR NAME --role R [--device D --user U | --cafe C | --service S] [--owner UID[:GID]]") }
            let flags = try args.command(addFlags)
            let candidate = try principal(named: words[2], flags)
            let owner = try flags[Self.owner].map(FileOwner.init)
            let added = try folder.add(name: candidate.name, role: candidate.role, service: candidate.service, deviceId: candidate.deviceId,
                                       userId: candidate.userId, cafeId: candidate.cafeId)
            if let owner { try owner.apply(to: [folder.keyPath(added.name)]) }
            say("added \(added.summary)")
            say("key: \(folder.keyPath(added.name)) (0600\(owner.map { ", owned by \($0)" } ?? ""); give it to \(added.name) only)")
            say("running processes accept it within a second (kill -HUP them for at once); act as it with: --keys \(folder.path) --as \(added.name)")
        case "revoke":
            guard words.count == 3 else { throw UsageError("usage: cafectl keys revoke DIR NAME") }
            _ = try args.command([])
            let removed = try folder.revoke(name: words[2])
            say("revoked \(removed.summary); its key file is deleted")
            say("running processes refuse it within a second, open connections included (kill -HUP them for at once)")
        case "list":
            guard words.count == 2 else { throw UsageError("usage: cafectl keys list DIR [--json]") }
            try list(folder, json: try args.command(listFlags)[Self.json])
        default:
            throw UsageError(usage)
        }
        return 0
    }

    /// The principal `add` is asked for, checked by the registry's own rules before the folder is
    /// touched, so a wrong scope is a usage error.
    static func principal(named name: String, _ flags: CommandValues) throws -> Principal {
        let role = try flags.required(Self.role)
        let placeholder: String
        do { placeholder = try CurveKeyPair.generate().publicKey } catch { throw SecurityError("cannot make a CURVE key pair: \(error)") }
        let principal = Principal(name: name, role: role, publicKey: placeholder, service: flags[Self.service], deviceId: flags[ClientCommands.device],
                                  userId: flags[ClientCommands.user], cafeId: flags[ClientCommands.cafe])
        do {
            _ = try KeyRegistry([principal])
        } catch {
            throw UsageError(error.message)
        }
        return principal
    }

    /// Name, role, scope and public key of every principal, and whether its secret key is in this folder.
    static func list(_ folder: KeyFolder, json: Bool) throws {
        let principals = try folder.registry().principals
        func hasKey(_ p: Principal) -> Bool { FileManager.default.fileExists(atPath: folder.keyPath(p.name)) }
        if json {
            let rows: [[String: Any]] = principals.map { p in
                ["name": p.name, "role": p.role.rawValue, "scope": p.scopeFields.joined(separator: " "), "publicKey": p.publicKey, "keyFile": hasKey(p)]
            }
            for row in rows {
                let data = try JSONSerialization.data(withJSONObject: row, options: [.sortedKeys, .withoutEscapingSlashes])
                FileHandle.standardOutput.write(data + Data("\n".utf8))
            }
            return
        }
        let nameWidth = max(4, principals.map(\.name.count).max() ?? 0)
        let scopeWidth = max(5, principals.map { $0.scopeFields.joined(separator: " ").count }.max() ?? 0)
        func row(_ cells: [String]) -> String {
            [cells[0].padding(toLength: nameWidth, withPad: " ", startingAt: 0), cells[1].padding(toLength: 9, withPad: " ", startingAt: 0),
             cells[2].padding(toLength: scopeWidth, withPad: " ", startingAt: 0), cells[3].padding(toLength: 40, withPad: " ", startingAt: 0), cells[4]]
                .joined(separator: "  ")
        }
        say(row(["NAME", "ROLE", "SCOPE", "PUBLIC KEY", "KEY FILE"]))
        for p in principals { say(row([p.name, p.role.rawValue, p.scopeFields.joined(separator: " "), p.publicKey, hasKey(p) ? "here" : "-"])) }
    }

    static func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
}

/// `--owner UID[:GID]`: who must own the key files, for a container whose user differs from the
/// one running cafectl (the image runs as 10001:10001). Changing the owner takes root, except to
/// oneself.
struct FileOwner: CustomStringConvertible {
    let uid: uid_t
    let gid: gid_t?

    init(_ text: String) throws {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let uid = uid_t(parts[0]) else { throw UsageError("--owner is UID[:GID] in numbers (10001:10001), not \"\(text)\"") }
        self.uid = uid
        if parts.count == 2 {
            guard let gid = gid_t(parts[1]) else { throw UsageError("--owner is UID[:GID] in numbers (10001:10001), not \"\(text)\"") }
            self.gid = gid
        } else {
            gid = nil
        }
    }

    var description: String { gid.map { "\(uid):\($0)" } ?? "\(uid)" }

    func apply(to paths: [String]) throws {
        for path in paths where chown(path, uid, gid ?? gid_t.max) != 0 {
            throw SecurityError("cannot give \(path) to \(self): \(String(cString: strerror(errno))) (changing a file's owner takes root)")
        }
    }
}

extension String {
    /// Padded with spaces to `width`; never cut.
    func padded(to width: Int) -> String { count >= width ? self : padding(toLength: width, withPad: " ", startingAt: 0) }
}
