import Foundation

/// An issuer's verification keys, read from a JWKS file (RFC 7517 §5) the operator keeps
/// current (the identity provider's `jwks_uri`, fetched by whatever the deployment uses).
/// Bounded as it is read: the file's size, the number of keys, each parameter's length.
public struct JWKSet: Sendable {
    /// The keys this platform verifies with, in file order.
    public let keys: [JSONWebKey]

    /// The largest JWKS file read. Real ones are 1–5 KB.
    public static let maxFileBytes = 65_536
    /// The most keys read from one file (members of `keys`, used or skipped).
    public static let maxKeys = 64

    public init(keys: [JSONWebKey]) {
        self.keys = keys
    }

    /// Reads the JWKS file at `path`.
    public static func read(file path: String) throws(IdentityError) -> JWKSet {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw IdentityError(.jwksUnreadable, "cannot open the JWKS file \(path)")
        }
        defer { try? handle.close() }
        // One byte more than the limit tells an oversize file from one exactly at it, without reading it all.
        let data: Data
        do {
            data = try handle.read(upToCount: maxFileBytes + 1) ?? Data()
        } catch {
            throw IdentityError(.jwksUnreadable, "cannot read the JWKS file \(path): \(error)")
        }
        return try parse(data)
    }

    /// Reads a JWKS document: `{"keys": [...]}` with at least one key we can verify with.
    public static func parse(_ data: Data) throws(IdentityError) -> JWKSet {
        guard data.count <= maxFileBytes else {
            throw IdentityError(.jwksTooLarge, "the JWKS is over \(maxFileBytes) bytes")
        }
        guard let document = JSONValue.object(Array(data)) else {
            throw IdentityError(.jwksMalformed, "the JWKS is not a JSON object (or nests over \(JSONValue.maxDepth) levels, or repeats a member)")
        }
        guard case .array(let members)? = document["keys"] else {
            throw IdentityError(.jwksMalformed, "the JWKS has no \"keys\" array")
        }
        guard members.count <= maxKeys else {
            throw IdentityError(.jwksTooLarge, "the JWKS has \(members.count) keys; at most \(maxKeys) are read")
        }
        var keys: [JSONWebKey] = []
        var seen = Set<String>()
        for (index, member) in members.enumerated() {
            guard case .object(let object) = member else {
                throw IdentityError(.jwksMalformed, "keys[\(index)] is not an object")
            }
            guard let key = try JSONWebKey(object, index: index) else { continue }
            if let id = key.keyID, !seen.insert(id).inserted {
                throw IdentityError(.jwksMalformed, "keys[\(index)]: kid \(JOSEHeader.shown(id)) is used twice")
            }
            keys.append(key)
        }
        guard !keys.isEmpty else {
            throw IdentityError(.jwksEmpty, "the JWKS holds no RSA or P-256 signing key")
        }
        return JWKSet(keys: keys)
    }

    /// The key a token's header names. A header without `kid` is matched only when the set
    /// holds a single key: with two, picking one would be a guess.
    public func key(for header: JOSEHeader) throws(IdentityError) -> JSONWebKey {
        let found: JSONWebKey?
        if let id = header.keyID {
            found = keys.first { $0.keyID == id }
        } else {
            found = keys.count == 1 ? keys[0] : nil
        }
        guard let found else {
            throw IdentityError(.unknownKey, header.keyID.map { "no key of the issuer has kid \(JOSEHeader.shown($0))" }
                                ?? "the token names no kid and the issuer has \(keys.count) keys")
        }
        guard found.algorithm == header.algorithm else {
            throw IdentityError(.keyMismatch, "the token says \(header.algorithm.rawValue) but its key is an \(found.algorithm.rawValue) key")
        }
        return found
    }
}
