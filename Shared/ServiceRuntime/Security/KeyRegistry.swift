import Foundation
import Messages
import Policy
import ZeroMQ

/// The campus key registry: who holds each CURVE public key. One text file, one line per key:
///
///     <public key, Z85, 40 characters> <name> <role> [scope…]
///
/// Scope is `service=<service>` for a service instance, `device=<id> user=<id>` for a phone,
/// `cafe=<id>` for a kiosk or kitchen; gateways and operators have none. Lines that are empty or
/// start with "# " are comments (a Z85 key has no space, so it cannot be mistaken for one).
public struct KeyRegistry: Sendable, Equatable {
    public private(set) var principals: [Principal]
    private var byKey: [String: Int] = [:]
    private var byName: [String: Int] = [:]

    /// The services a `service` key may run as.
    public static let services: Set<String> = StreamOwners.services

    /// An empty registry.
    public init() { principals = [] }

    public init(_ principals: [Principal]) throws(RegistryError) {
        self.principals = []
        for principal in principals { try add(principal) }
    }

    public func principal(key: String) -> Principal? { byKey[key].map { principals[$0] } }
    public func principal(named name: String) -> Principal? { byName[name].map { principals[$0] } }

    /// Adds a principal; refuses a second entry for a key or a name, and an invalid scope.
    public mutating func add(_ principal: Principal) throws(RegistryError) {
        if let problem = Self.problem(with: principal) { throw RegistryError(line: nil, message: problem) }
        if byKey[principal.publicKey] != nil { throw RegistryError(line: nil, message: "the key of \(principal.name) is already registered to \(self.principal(key: principal.publicKey)!.name)") }
        if byName[principal.name] != nil { throw RegistryError(line: nil, message: "a principal named \(principal.name) is already registered") }
        byKey[principal.publicKey] = principals.count
        byName[principal.name] = principals.count
        principals.append(principal)
    }

    /// Removes the principal named `name`; returns it, or nil when there is none.
    @discardableResult
    public mutating func remove(named name: String) -> Principal? {
        guard let index = byName[name] else { return nil }
        let removed = principals.remove(at: index)
        byKey = [:]
        byName = [:]
        for (i, p) in principals.enumerated() {
            byKey[p.publicKey] = i
            byName[p.name] = i
        }
        return removed
    }

    /// Why `principal` cannot be registered; nil when it can.
    static func problem(with principal: Principal) -> String? {
        if !isName(principal.name) { return "\(Quoting.quoted(principal.name)) is not a name (letters, digits, '.', '_' and '-', at most 64, not starting with '.' or '-')" }
        if !Z85.isKey(principal.publicKey) { return "the key of \(principal.name) is not a 40-character Z85 CURVE key" }
        let scoped = (service: principal.service != nil, device: principal.deviceId != nil, user: principal.userId != nil, cafe: principal.cafeId != nil)
        for value in [principal.service, principal.deviceId, principal.userId, principal.cafeId].compactMap({ $0 }) where !isScopeValue(value) {
            return "scope value \(Quoting.quoted(value)) of \(principal.name) is not an identifier (no spaces or control characters, at most 128 bytes)"
        }
        switch principal.role {
        case .service:
            guard let service = principal.service, services.contains(service), !scoped.device, !scoped.user, !scoped.cafe else {
                return "a service key needs service=<one of \(services.sorted().joined(separator: ", "))> and nothing else"
            }
        case .phone:
            guard scoped.device, scoped.user, !scoped.service, !scoped.cafe else { return "a phone key needs device=<id> user=<id> and nothing else" }
        case .kiosk, .kitchen:
            guard scoped.cafe, !scoped.service, !scoped.device, !scoped.user else { return "a \(principal.role.rawValue) key needs cafe=<id> and nothing else" }
        case .gateway, .operator, .edge:
            guard !scoped.service, !scoped.device, !scoped.user, !scoped.cafe else { return "a \(principal.role.rawValue) key has no scope" }
        }
        return nil
    }

    public static func isName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count), bytes[0] != UInt8(ascii: "."), bytes[0] != UInt8(ascii: "-") else { return false }
        return bytes.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
        }
    }

    static func isScopeValue(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        return (1...128).contains(bytes.count) && bytes.allSatisfy { $0 > 0x20 && $0 != 0x7F }
    }

    // MARK: Text form

    /// Reads the registry file's text. Every problem names its line.
    public init(text: String) throws(RegistryError) {
        self.principals = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line == "#" || line.hasPrefix("# ") || line.hasPrefix("#\t") { continue }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard fields.count >= 3 else { throw RegistryError(line: index + 1, message: "expected <public key> <name> <role> [scope…], got \(fields.count) field(s)") }
            guard let role = Role(rawValue: fields[2]) else {
                throw RegistryError(line: index + 1, message: "unknown role \(Quoting.quoted(fields[2])); roles: \(Role.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            var principal = Principal(name: fields[1], role: role, publicKey: fields[0])
            for field in fields.dropFirst(3) {
                guard let equals = field.firstIndex(of: "=") else { throw RegistryError(line: index + 1, message: "scope \(Quoting.quoted(field)) is not key=value") }
                let key = String(field[..<equals]), value = String(field[field.index(after: equals)...])
                switch key {
                case "service" where principal.service == nil: principal.service = value
                case "device" where principal.deviceId == nil: principal.deviceId = value
                case "user" where principal.userId == nil: principal.userId = value
                case "cafe" where principal.cafeId == nil: principal.cafeId = value
                default: throw RegistryError(line: index + 1, message: "unknown or repeated scope \(Quoting.quoted(key)); scopes: service, device, user, cafe")
                }
            }
            do { try add(principal) } catch { throw RegistryError(line: index + 1, message: error.message) }
        }
    }

    /// The registry as its file holds it.
    public var text: String {
        var lines = [
            "# Campus Café key registry: one line per CURVE public key — key, principal name, role, scope.",
            "# Every process re-reads it on SIGHUP and when it changes; a removed line is a revoked key.",
            "# Manage it with cafectl keys (init, add, revoke, list); keys are Z85 and never contain a space.",
        ]
        for p in principals { lines.append(([p.publicKey, p.name, p.role.rawValue] + p.scopeFields).joined(separator: " ")) }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Why a registry could not be read or changed.
public struct RegistryError: Error, Sendable, Equatable, CustomStringConvertible {
    public let line: Int?
    public let message: String
    public var description: String { line.map { "line \($0): \(message)" } ?? message }
}
