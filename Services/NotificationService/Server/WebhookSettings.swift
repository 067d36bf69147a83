import NotifyCore
import ServiceRuntime

/// notification-service's webhook options: the file of signing secrets, how long an attempt may
/// take, how many go at once, and the circuit breaker. The receivers themselves (ids and URLs)
/// come only from the campus catalog's `webhooks` allow-list.
public struct WebhookSettings: Sendable, Equatable {
    public var secretsFile: String?
    /// Tests only: the CA bundle receivers' certificates are checked against instead of the system's.
    public var caFile: String?
    public var timeoutSeconds = Self.timeoutOption.defaultValue
    public var maxInFlight = Self.inFlightOption.defaultValue
    public var retryBaseSeconds = Self.retryBaseOption.defaultValue
    public var breakerFailures = Self.breakerFailuresOption.defaultValue
    public var breakerCoolDownSeconds = Self.breakerCoolDownOption.defaultValue

    public init() {}

    public static let secretsOption = Option<String?>.optional("webhook-secrets", .path,
                                                               help: "a JSON object of the catalog's secret names to their whsec_ secrets; re-read on SIGHUP. A receiver without one holds its deliveries (health degraded)")
    public static let caFileOption = Option<String?>.optional("webhook-ca-file", .path,
                                                              help: "tests only: trust this CA bundle for webhook receivers instead of the system's (a local peer)")
    public static let timeoutOption = Option.seconds("webhook-timeout-seconds", OptionSpec.Bounds(lower: 0.1, upper: 120), default: 10,
                                                     help: "how long one webhook POST may take, connecting included, before it is sent again (same webhook-id)")
    public static let inFlightOption = Option.count("webhook-max-in-flight", 1...1_000, default: 50,
                                                    help: "webhook POSTs sent at once, over every receiver")
    public static let retryBaseOption = Option.seconds("webhook-retry-base-seconds", OptionSpec.Bounds(lower: 0.01, upper: 60), default: PushRetryPolicy.baseSeconds,
                                                       help: "the first retry's delay after no answer, 408 or 5xx; each next one doubles (at most 300 s), scaled by a random 0.5–1")
    public static let breakerFailuresOption = Option.count("webhook-breaker-failures", 1...1_000, default: WebhookCircuit.Limits.defaultFailures,
                                                           help: "consecutive failures (no answer, 408, 5xx) that open a receiver's circuit breaker")
    public static let breakerCoolDownOption = Option.seconds("webhook-breaker-cooldown-seconds", OptionSpec.Bounds(lower: 0.1, upper: 3_600),
                                                             default: WebhookCircuit.Limits.defaultCoolDownSeconds,
                                                             help: "how long an open breaker sends nothing before one probe (half-open)")

    public static var specs: [OptionSpec] {
        [secretsOption.spec, caFileOption.spec, timeoutOption.spec, inFlightOption.spec, retryBaseOption.spec, breakerFailuresOption.spec, breakerCoolDownOption.spec]
    }

    public init(_ config: Configuration) {
        secretsFile = config[Self.secretsOption]
        caFile = config[Self.caFileOption]
        timeoutSeconds = config[Self.timeoutOption]
        maxInFlight = config[Self.inFlightOption]
        retryBaseSeconds = config[Self.retryBaseOption]
        breakerFailures = config[Self.breakerFailuresOption]
        breakerCoolDownSeconds = config[Self.breakerCoolDownOption]
    }

    /// The breaker every receiver gets.
    public var limits: WebhookCircuit.Limits { WebhookCircuit.Limits(failures: breakerFailures, coolDownSeconds: breakerCoolDownSeconds) }
}
