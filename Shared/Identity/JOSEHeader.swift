/// The protected header of a compact JWS (RFC 7515 §4), as far as we use it.
///
/// Header fields that point at keys (`jwk`, `jku`, `x5u`, `x5c`) are ignored: the key comes only
/// from the issuer's configured JWKS, never from the token. `crit` is refused, since it names
/// extensions the receiver must understand and we understand none (RFC 7515 §4.1.11).
public struct JOSEHeader: Sendable, Equatable {
    /// The algorithm, already one we accept.
    public let algorithm: JWSAlgorithm
    /// The key id, when the header names one.
    public let keyID: String?
    /// The media type (`JWT` for most ID tokens), when given.
    public let type: String?

    /// The longest `kid` read: real ones are a few dozen characters.
    public static let maxKeyIDBytes = 256

    /// Reads the header object; refuses wrong shapes (`jws.header`) and algorithms we do not accept (`jws.algorithm`).
    init(_ object: [String: JSONValue]) throws(IdentityError) {
        guard case .string(let name)? = object["alg"] else {
            throw IdentityError(.header, "the header has no string \"alg\"")
        }
        if object["crit"] != nil { throw IdentityError(.header, "the header names critical extensions (\"crit\"), which we do not support") }
        guard let algorithm = JWSAlgorithm(rawValue: name) else {
            throw IdentityError(.algorithm, "algorithm \(Self.shown(name)) is not accepted (only RS256 and ES256)")
        }
        var keyID: String?
        switch object["kid"] {
        case nil: keyID = nil
        case .string(let kid) where !kid.isEmpty && kid.utf8.count <= Self.maxKeyIDBytes: keyID = kid
        default: throw IdentityError(.header, "\"kid\" must be a string of 1–\(Self.maxKeyIDBytes) bytes")
        }
        switch object["typ"] {
        case nil: type = nil
        case .string(let value): type = value
        default: throw IdentityError(.header, "\"typ\" must be a string")
        }
        self.algorithm = algorithm
        self.keyID = keyID
    }

    /// A header value as a refusal shows it: quoted, cut, control characters escaped.
    static func shown(_ text: String) -> String {
        let cut = text.unicodeScalars.prefix(32).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : String($0) }.joined()
        return "\"\(cut)\(text.unicodeScalars.count > 32 ? "…" : "")\""
    }
}
