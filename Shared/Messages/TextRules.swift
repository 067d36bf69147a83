/// Text checks every request socket shares: identifier tokens and beacon UUIDs.
public enum TextRules {
    /// 1…`max` bytes of A–Z, a–z, 0–9, "-" and "_" (and "." when `allowingDots`).
    public static func isToken(_ text: String, max: Int, allowingDots: Bool = false) -> Bool {
        !text.isEmpty && text.utf8.count <= max
            && text.utf8.allSatisfy {
                ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 || $0 == 95 || (allowingDots && $0 == 46)
            }
    }

    /// Throws `request.invalidField` naming `field` unless `value` is a token of 1–64 bytes: the
    /// rule for every id a request carries (devices, users, monitors, owners).
    public static func requireToken(_ value: String, field: String, allowingDots: Bool = false) throws(ServiceError) {
        guard isToken(value, max: 64, allowingDots: allowingDots) else {
            throw ServiceError(.invalidField, "\(field) must be 1–64 characters of A–Z, a–z, 0–9, \(allowingDots ? "., " : "")- and _")
        }
    }

    /// The UUID in canonical upper case, or nil when it is not 8-4-4-4-12 hex digits.
    /// Checked byte by byte: this runs for every sighting.
    public static func canonicalUUID(_ text: String) -> String? {
        var utf8 = text.utf8
        guard utf8.count == 36 else { return nil }
        var lower = false
        var index = 0
        for byte in utf8 {
            switch index {
            case 8, 13, 18, 23:
                guard byte == UInt8(ascii: "-") else { return nil }
            default:
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "F"): break
                case UInt8(ascii: "a")...UInt8(ascii: "f"): lower = true
                default: return nil
                }
            }
            index += 1
        }
        if !lower { return text }
        utf8 = text.utf8
        return String(decoding: utf8.map { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f") ? $0 - 32 : $0 }, as: UTF8.self)
    }
}
