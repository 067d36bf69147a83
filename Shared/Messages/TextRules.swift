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
    /// This runs for every sighting: the bytes are checked in place, and an upper-case UUID (what
    /// phones and gateways send) is returned as it came, without a copy.
    public static func canonicalUUID(_ text: String) -> String? {
        let verdict = text.utf8.withContiguousStorageIfAvailable(uuidVerdict) ?? Array(text.utf8).withUnsafeBufferPointer(uuidVerdict)
        switch verdict {
        case .notUUID: return nil
        case .canonical: return text
        case .lowerCase: return String(decoding: text.utf8.map { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f") ? $0 - 32 : $0 }, as: UTF8.self)
        }
    }

    enum UUIDVerdict { case notUUID, canonical, lowerCase }

    /// 36 bytes: hex digits, and "-" at 8, 13, 18 and 23.
    static func uuidVerdict(_ bytes: UnsafeBufferPointer<UInt8>) -> UUIDVerdict {
        guard bytes.count == 36 else { return .notUUID }
        var lower: UInt8 = 0
        for index in 0..<36 {
            let byte = bytes[index]
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return .notUUID }
                continue
            }
            if byte &- UInt8(ascii: "0") < 10 { continue }
            // A letter a–f in either case: 0x20 is the lower-case bit.
            guard (byte | 0x20) &- UInt8(ascii: "a") < 6 else { return .notUUID }
            lower |= byte & 0x20
        }
        return lower == 0 ? .canonical : .lowerCase
    }
}
