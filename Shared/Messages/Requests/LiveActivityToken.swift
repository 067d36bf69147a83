/// `device.register` with `liveActivity`: the push token of the Live Activity the app started for
/// one of its orders (`Activity.pushTokenUpdates`). Sent with channel `apns` (its environment and
/// topic are the app's); each state change of the order is then a `liveactivity` push to it.
/// Checked where it is decoded: an order id that is not a token, or a push token that is not
/// 16–256 hex digits, is `request.invalidField` naming the field.
public struct LiveActivityToken: Codable, Sendable, Equatable, Hashable {
    public var orderId: String
    /// The activity's push token, hex, kept in lower case.
    public var token: String

    /// Push tokens seen are 80 hex digits or more; the bound leaves room and refuses nonsense.
    public static let tokenHexDigits = 16...256

    public init(orderId: String, token: String) {
        self.orderId = orderId
        self.token = token.lowercased()
    }

    enum CodingKeys: String, CodingKey { case orderId, token }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let orderId = try c.decode(String.self, forKey: .orderId)
        guard TextRules.isToken(orderId, max: 64) else {
            throw DecodingError.dataCorruptedError(forKey: .orderId, in: c, debugDescription: "must be 1–64 characters of A–Z, a–z, 0–9, - and _")
        }
        let token = try c.decode(String.self, forKey: .token)
        guard Self.tokenHexDigits.contains(token.utf8.count), token.utf8.count % 2 == 0,
              token.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 70) || ($0 >= 97 && $0 <= 102) }) else {
            throw DecodingError.dataCorruptedError(forKey: .token, in: c,
                                                   debugDescription: "must be \(Self.tokenHexDigits.lowerBound)–\(Self.tokenHexDigits.upperBound) hex digits (a Live Activity push token)")
        }
        self.init(orderId: orderId, token: token)
    }
}
