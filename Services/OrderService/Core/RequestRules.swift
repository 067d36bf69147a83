import Messages

/// Field rules for order-service requests.
public enum RequestRules {
    /// Idempotency keys: 8–64 of A–Z, a–z, 0–9, "-" and "_".
    public static func validateIdempotencyKey(_ key: String) throws(ServiceError) {
        guard (8...64).contains(key.utf8.count), isToken(key) else {
            throw ServiceError(.invalidIdempotencyKey, "idempotencyKey must be 8–64 characters of A–Z, a–z, 0–9, - and _")
        }
    }

    /// Payment tokens as the payment provider issues them: "tok_" and 16–64 letters or digits.
    public static func validatePaymentToken(_ token: String?) throws(ServiceError) {
        guard let token else { throw ServiceError(.paymentRequired, "this order needs a payment token") }
        let rest = token.dropFirst(4)
        guard token.hasPrefix("tok_"), (16...64).contains(rest.utf8.count), rest.utf8.allSatisfy(isAlphanumeric) else {
            throw ServiceError(.invalidPaymentToken, "paymentToken must be \"tok_\" followed by 16–64 letters or digits")
        }
    }

    /// User, device and café ids: 1–64 of A–Z, a–z, 0–9, "-" and "_".
    public static func validateID(_ value: String, field: String) throws(ServiceError) {
        guard (1...64).contains(value.utf8.count), isToken(value) else {
            throw ServiceError(.invalidField, "\(field) must be 1–64 characters of A–Z, a–z, 0–9, - and _")
        }
    }

    static func isToken(_ text: String) -> Bool {
        text.utf8.allSatisfy { isAlphanumeric($0) || $0 == 45 || $0 == 95 }
    }

    static func isAlphanumeric(_ c: UInt8) -> Bool {
        (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57)
    }
}
