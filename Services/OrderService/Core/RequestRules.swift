import Campus
import Foundation
import Messages

/// Field rules for order-service requests.
public enum RequestRules {
    /// Idempotency keys: 8–64 of A–Z, a–z, 0–9, "-" and "_".
    public static func validateIdempotencyKey(_ key: String) throws(ServiceError) {
        guard key.utf8.count >= 8, TextRules.isToken(key, max: 64) else {
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
        try TextRules.requireToken(value, field: field)
    }

    /// A locale identifier such as en_US, for prices and pickup times.
    public static func validateLocale(_ locale: String) throws(ServiceError) {
        guard isValidLocaleIdentifier(locale) else { throw ServiceError(.invalidField, "locale \"\(locale.prefix(40))\" is not a locale identifier like en_US") }
    }

    /// The café a request names, from the campus catalog.
    public static func cafe(_ id: String, in catalog: CampusCatalog) throws(ServiceError) -> Cafe {
        guard let cafe = catalog.cafe(id) else { throw ServiceError(.unknownCafe, "no café \"\(id.prefix(40))\" on this campus") }
        return cafe
    }

    /// A free-text reason (a cancellation): 1–200 characters, no control characters.
    public static func validateReason(_ reason: String) throws(ServiceError) {
        guard !reason.trimmingCharacters(in: .whitespaces).isEmpty, reason.count <= 200,
              !reason.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ServiceError(.invalidField, "reason must be 1–200 characters without control characters")
        }
    }

    static func isAlphanumeric(_ c: UInt8) -> Bool {
        (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57)
    }
}
