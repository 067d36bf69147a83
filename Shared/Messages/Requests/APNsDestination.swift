/// Which APNs service a device token belongs to: a development build's tokens are only known to
/// the sandbox, an App Store or TestFlight build's only to production.
public enum APNsEnvironment: String, Codable, Sendable, CaseIterable {
    case sandbox, production
}

/// Where APNs delivers to a device (`device.register` with channel `apns`): the device token the
/// app got from `registerForRemoteNotifications`, its environment and the topic (the app's or
/// the App Clip's bundle id). Checked where it is decoded: a token that is not 64 hex digits, or
/// a topic that is not a bundle id, is `request.invalidField` naming the field.
public struct APNsDestination: Codable, Sendable, Equatable, Hashable {
    /// The device token: 64 hex digits, kept in lower case.
    public var token: String
    public var environment: APNsEnvironment
    /// The bundle id, 3–155 bytes of A–Z, a–z, 0–9, "-" and ".", with at least one ".".
    public var topic: String

    /// The token's length in hex digits (32 bytes).
    public static let tokenHexDigits = 64
    /// The longest topic read: Apple's bundle ids are at most 155 characters.
    public static let maxTopicBytes = 155

    public init(token: String, environment: APNsEnvironment, topic: String) {
        self.token = token.lowercased()
        self.environment = environment
        self.topic = topic
    }

    enum CodingKeys: String, CodingKey { case token, environment, topic }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let token = try c.decode(String.self, forKey: .token)
        guard Self.isToken(token) else {
            throw DecodingError.dataCorruptedError(forKey: .token, in: c, debugDescription: "must be \(Self.tokenHexDigits) hex digits (an APNs device token)")
        }
        let topic = try c.decode(String.self, forKey: .topic)
        guard Self.isTopic(topic) else {
            throw DecodingError.dataCorruptedError(forKey: .topic, in: c,
                                                   debugDescription: "must be a bundle id: 3–\(Self.maxTopicBytes) characters of A–Z, a–z, 0–9, - and . with a dot")
        }
        self.init(token: token, environment: try c.decode(APNsEnvironment.self, forKey: .environment), topic: topic)
    }

    /// Whether `text` is a device token: exactly 64 hex digits, either case.
    public static func isToken(_ text: String) -> Bool {
        text.utf8.count == tokenHexDigits && text.utf8.allSatisfy {
            ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 70) || ($0 >= 97 && $0 <= 102)
        }
    }

    /// Whether `text` is a bundle id APNs takes as a topic.
    public static func isTopic(_ text: String) -> Bool {
        let bytes = text.utf8
        return bytes.count >= 3 && bytes.count <= maxTopicBytes && bytes.contains(46) && bytes.first != 46 && bytes.last != 46
            && bytes.allSatisfy { ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 || $0 == 46 }
    }
}
