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

    static let flagNames: Set<String> = ["keys", "as"]

    init(_ arguments: Arguments, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let logger = Logger(service: "cafectl", instance: "cafectl", minimum: .warning)
        let keys = arguments.flags["keys"]?.last ?? environment["CAFE_KEYS"].flatMap { $0.isEmpty ? nil : $0 }
        let name = arguments.flags["as"]?.last ?? environment["CAFE_AS"].flatMap { $0.isEmpty ? nil : $0 }
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

    /// The value of a required `--device` or `--user` flag; acting as a phone, its own device or
    /// user when the flag is left out (the service would take it from the key anyway).
    func required(_ flag: String, _ args: inout Arguments) throws -> String {
        if let value = args.string(flag) { return value }
        if let principal, principal.role == .phone, let own = flag == "device" ? principal.deviceId : flag == "user" ? principal.userId : nil {
            return own
        }
        throw UsageError("missing --\(flag)")
    }

    /// "operator (operator)", "phone-alice (phone device=D-alice user=alice)", or "the plain-mode developer".
    var description: String {
        guard let principal else { return "the plain-mode developer" }
        return "\(principal.name) (\(([principal.role.rawValue] + principal.scopeFields).joined(separator: " ")))"
    }
}
