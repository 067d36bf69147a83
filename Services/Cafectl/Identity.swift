import Foundation
import Messages
import Policy
import ServiceRuntime
import ZeroMQ

/// Who cafectl acts as. Without `--keys` it is the plain-mode developer on loopback; with
/// `--keys DIR --as NAME` (or env `CAFE_KEYS` / `CAFE_AS`) it is principal NAME of that key
/// folder, over CURVE on every socket, and the platform holds it to NAME's role and scope.
struct Identity {
    let security: SocketSecurity
    /// The principal's registry entry; nil in plain mode.
    let principal: Principal?

    static let keys = Option<String?>("keys", .path, help: "the campus key folder: act in deployed mode (CURVE), with --as")
    static let name = Option<String?>("as", help: "the principal of --keys that cafectl acts as")
    /// The flags every command takes to say who cafectl is; an empty variable counts as unset.
    static let flags = [CommandFlag(keys, environment: "CAFE_KEYS"), CommandFlag(name, environment: "CAFE_AS")]

    init(_ values: CommandValues) throws {
        let logger = Logger(service: "cafectl", instance: "cafectl", minimum: .warning)
        let keys = values[Self.keys], name = values[Self.name]
        guard let keys else {
            if let name { throw UsageError("--as \(name) needs --keys DIR: the key folder holding \(name).key and the registry") }
            security = .plain(logger: logger)
            principal = nil
            return
        }
        guard let name else {
            throw UsageError("--keys \(keys) needs --as NAME: the principal cafectl acts as (cafectl keys list \(keys) shows them; keys init makes \"operator\")")
        }
        do {
            security = try .deployed(folder: KeyFolder(keys), as: name, serving: nil, logger: logger)
        } catch let error as SecurityError {
            throw UsageError("--keys \(keys) --as \(name): \(error.message)")
        }
        principal = security.registry?.current.principal(named: name)
    }

    var isDeployed: Bool { security.mode == .deployed }

    /// The device a command acts for: `--device`, or acting as a phone, its own (the service
    /// would take it from the key anyway).
    func device(_ values: CommandValues) throws -> String { try required(ClientCommands.device, values, own: \.deviceId) }

    /// The user a command acts for: `--user`, or acting as a phone, its own.
    func user(_ values: CommandValues) throws -> String { try required(ClientCommands.user, values, own: \.userId) }

    private func required(_ option: Option<String?>, _ values: CommandValues, own: KeyPath<Principal, String?>) throws -> String {
        if let value = values[option] { return value }
        if let principal, principal.role == .phone, let own = principal[keyPath: own] { return own }
        throw UsageError("missing --\(option.name)")
    }

    /// "operator (operator)", "phone-alice (phone device=D-alice user=alice)", or "the plain-mode developer".
    var description: String {
        guard let principal else { return "the plain-mode developer" }
        return "\(principal.name) (\(([principal.role.rawValue] + principal.scopeFields).joined(separator: " ")))"
    }
}
