/// A user's default-location preference: "Closest to Me" or one café.
public enum LocationPreference: Codable, Sendable, Equatable {
    case closestToMe
    case cafe(String)

    enum CodingKeys: String, CodingKey { case kind, cafeId }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(String.self, forKey: .kind) {
        case "closestToMe": self = .closestToMe
        case "cafe": self = .cafe(try c.decode(String.self, forKey: .cafeId))
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "kind must be \"closestToMe\" or \"cafe\", not \(Quoting.quoted(other))")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .closestToMe: try c.encode("closestToMe", forKey: .kind)
        case .cafe(let id):
            try c.encode("cafe", forKey: .kind)
            try c.encode(id, forKey: .cafeId)
        }
    }
}

/// `preference.set` / `preference.get`.
public struct PreferenceRequest: Codable, Sendable, Equatable {
    /// A phone may leave its own user out (it is taken from its key).
    public var userId: String?
    public var preference: LocationPreference?
    public init(userId: String?, preference: LocationPreference? = nil) {
        self.userId = userId
        self.preference = preference
    }
}

/// What `preference.get` and `preference.set` answer: the user's preference as it now stands.
public struct PreferenceView: Codable, Sendable, Equatable {
    public var userId: String
    public var preference: LocationPreference
    public init(userId: String, preference: LocationPreference) {
        self.userId = userId
        self.preference = preference
    }
}
