import Messages

/// Typed reads of an ID token's claims, each refusal naming the claim: a claim of the wrong
/// type is refused (`idToken.claim`), never read as absent.
struct IDTokenClaims {
    let object: [String: JSONValue]

    init(_ object: [String: JSONValue]) {
        self.object = object
    }

    /// The most audiences read from an `aud` array.
    static let maxAudiences = 16
    /// NumericDate's range: 1970 to the end of year 9999, in seconds.
    static let numericDates = 0.0...253_402_300_799.0

    /// A string claim, nil when absent.
    func string(_ name: String) throws(IdentityError) -> String? {
        switch object[name] {
        case nil: return nil
        case .string(let value): return value
        default: throw IdentityError(.claim, "\"\(name)\" must be a string")
        }
    }

    /// A string claim of 1…`maxBytes` bytes with no control characters, nil when absent.
    func printable(_ name: String, maxBytes: Int) throws(IdentityError) -> String? {
        guard let value = try string(name) else { return nil }
        guard Self.isPrintable(value, maxBytes: maxBytes) else {
            throw IdentityError(.claim, "\"\(name)\" must be 1–\(maxBytes) bytes without control characters")
        }
        return value
    }

    /// `sub`: required, at most 255 bytes (OpenID Connect Core §2), printable.
    func subject() throws(IdentityError) -> String {
        guard case .string(let value)? = object["sub"], Self.isPrintable(value, maxBytes: 255) else {
            throw IdentityError(.subject, "\"sub\" must be a string of 1–255 bytes without control characters")
        }
        return value
    }

    /// The allowed audience `aud` names (a string, or an array of them). With more than one
    /// audience, `azp` must name an allowed one too (the party the token was issued to).
    func audience(allowed: Set<String>) throws(IdentityError) -> String {
        let audiences: [String]
        switch object["aud"] {
        case .string(let value)?: audiences = [value]
        case .array(let values)? where !values.isEmpty && values.count <= Self.maxAudiences:
            audiences = values.compactMap(\.string)
            guard audiences.count == values.count else { throw IdentityError(.audience, "\"aud\" must hold only strings") }
        default:
            throw IdentityError(.audience, "\"aud\" must be a string or an array of 1–\(Self.maxAudiences) strings")
        }
        guard let matched = audiences.first(where: allowed.contains) else {
            throw IdentityError(.audience, "the token is for \(audiences.prefix(3).map(JOSEHeader.shown).joined(separator: ", ")), not an audience of this platform")
        }
        let party: String?
        do { party = try string("azp") } catch { throw IdentityError(.audience, "\"azp\" must be a string") }
        if let party, !allowed.contains(party) {
            throw IdentityError(.audience, "the token was issued to \(JOSEHeader.shown(party)) (azp), not an audience of this platform")
        }
        if party == nil, audiences.count > 1 {
            throw IdentityError(.audience, "a token for several audiences must name its authorized party (azp)")
        }
        return matched
    }

    /// A NumericDate claim (seconds since 1970, whole or not) as a Timestamp, nil when absent.
    func numericDate(_ name: String) throws(IdentityError) -> Timestamp? {
        guard let value = object[name] else { return nil }
        guard let seconds = value.number, Self.numericDates.contains(seconds) else {
            throw IdentityError(.claim, "\"\(name)\" must be a number of seconds since 1970")
        }
        return Timestamp(milliseconds: Int64((seconds * 1_000).rounded(.down)))
    }

    /// A boolean claim; the strings "true" and "false" are read too (Apple sends `email_verified` so).
    func flag(_ name: String) throws(IdentityError) -> Bool? {
        switch object[name] {
        case nil: return nil
        case .bool(let value)?: return value
        case .string("true")?: return true
        case .string("false")?: return false
        default: throw IdentityError(.claim, "\"\(name)\" must be true or false")
        }
    }

    static func isPrintable(_ text: String, maxBytes: Int) -> Bool {
        !text.isEmpty && text.utf8.count <= maxBytes && !text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }
}
