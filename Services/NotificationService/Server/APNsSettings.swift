import Messages
import NotifyCore
import ServiceRuntime

/// notification-service's APNs options: the team's signing key (a `.p8` file, its key id and the
/// team id), where APNs is, and how long an attempt may take. Without a key file the apns channel
/// still registers devices, and their pushes wait (health `degraded`, `push.credentials`).
public struct APNsSettings: Sendable, Equatable {
    public var keyFile: String?
    public var keyID = Self.keyIDOption.defaultValue
    public var teamID = Self.teamIDOption.defaultValue
    public var productionURL = Self.productionOption.defaultValue
    public var sandboxURL = Self.sandboxOption.defaultValue
    /// Tests only: the CA bundle APNs' certificate is checked against instead of the system's.
    public var caFile: String?
    public var timeoutSeconds = Self.timeoutOption.defaultValue
    public var maxInFlight = Self.inFlightOption.defaultValue
    public var retryBaseSeconds = Self.retryBaseOption.defaultValue

    public init() {}

    public static let keyFileOption = Option<String?>.optional("apns-key-file", .path,
                                                               help: "the team's APNs signing key (.p8, PKCS #8 P-256); re-read on SIGHUP. Without one, apns pushes wait (health degraded: push.credentials)")
    public static let keyIDOption = Option<String>("apns-key-id", default: "",
                                                   help: "the signing key's 10-character id (the provider token's kid)")
    public static let teamIDOption = Option<String>("apns-team-id", default: "",
                                                    help: "the Apple developer team id (the provider token's iss)")
    public static let productionOption = Option<String>("apns-production-url", default: "https://api.push.apple.com",
                                                        help: "APNs for devices registered with environment production")
    public static let sandboxOption = Option<String>("apns-sandbox-url", default: "https://api.sandbox.push.apple.com",
                                                     help: "APNs for devices registered with environment sandbox")
    public static let caFileOption = Option<String?>.optional("apns-ca-file", .path,
                                                              help: "tests only: trust this CA bundle for APNs instead of the system's (a local APNs peer)")
    public static let timeoutOption = Option.seconds("apns-timeout-seconds", OptionSpec.Bounds(lower: 0.1, upper: 120), default: 10,
                                                     help: "how long one push may take before it is sent again (same apns-id)")
    public static let inFlightOption = Option.count("apns-max-in-flight", 1...1_000, default: 100,
                                                    help: "pushes sent to APNs at once (HTTP/2 streams over one connection)")

    public static let retryBaseOption = Option.seconds("apns-retry-base-seconds", OptionSpec.Bounds(lower: 0.01, upper: 60), default: PushRetryPolicy.baseSeconds,
                                                       help: "the first retry's delay after a 5xx, GOAWAY, reset or timeout; each next one doubles (at most 300 s), scaled by a random 0.5–1")

    public static var specs: [OptionSpec] {
        [keyFileOption.spec, keyIDOption.spec, teamIDOption.spec, productionOption.spec, sandboxOption.spec, caFileOption.spec, timeoutOption.spec,
         inFlightOption.spec, retryBaseOption.spec]
    }

    public init(_ config: Configuration) {
        keyFile = config[Self.keyFileOption]
        keyID = config[Self.keyIDOption]
        teamID = config[Self.teamIDOption]
        productionURL = config[Self.productionOption]
        sandboxURL = config[Self.sandboxOption]
        caFile = config[Self.caFileOption]
        timeoutSeconds = config[Self.timeoutOption]
        maxInFlight = config[Self.inFlightOption]
        retryBaseSeconds = config[Self.retryBaseOption]
    }

    /// The base URL for a device's environment.
    public func baseURL(_ environment: APNsEnvironment) -> String {
        environment == .production ? productionURL : sandboxURL
    }
}
