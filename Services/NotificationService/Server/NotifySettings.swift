import NotifyCore
import ServiceRuntime

/// notification-service's own options, each default declared once (as a property default) and
/// shown by `--help` from there. `init(_:)` reads a loaded configuration into it.
public struct NotifySettings: Sendable, Equatable {
    /// The executable's name: its log lines, its `--help` and its SQLite file.
    public static let program = "notification-service"
    /// The one line `--help` starts with.
    public static let summary = "localized order notifications and reminders, delivered once"
    /// The default request port (`--listen`).
    public static let listenPort = 7450
    /// The shortest pickup-reminder tick: a smaller `--reminder-tick-seconds` would spin the loop.
    public static let minimumTickSeconds = 0.05

    /// How long before its pickup window starts an accepted order's customer is reminded (0: never).
    public var pickupReminderLeadSeconds = 600.0
    /// A pickup reminder due less than this long after its order was placed is not sent.
    public var pickupReminderNoticeSeconds = PickupReminderSchedule.minimumNoticeSeconds
    /// The campus catalog file; required (a missing or unreadable one stops the service at start).
    public var campus = "deploy/campus.json"
    /// How often due pickup reminders are looked for.
    public var reminderTickSeconds = 1.0
    /// How many days what is over is kept.
    public var retentionDays = 30

    /// The defaults.
    public init() {}

    /// Every option notification-service reads: the common ones, then its own.
    public static var specs: [OptionSpec] {
        let defaults = NotifySettings()
        return ServiceHost.commonSpecs(service: program, listenPort: listenPort) + [
            .seconds("pickup-reminder-lead-seconds", .nonNegative, default: defaults.pickupReminderLeadSeconds,
                     help: "how long before its pickup window starts an accepted order's customer is reminded (0: no pickup reminders)"),
            .seconds("pickup-reminder-notice-seconds", OptionSpec.Bounds(lower: -7 * 86_400, upper: 86_400), default: defaults.pickupReminderNoticeSeconds,
                     help: "a pickup reminder due less than this long after its order was placed is not sent: 'coming up' the moment you order tells you nothing (negative: also remind orders placed inside the lead time, e.g. for tests)"),
            OptionSpec("campus", .path, default: defaults.campus,
                       help: "the campus catalog: café names for reminder titles and the café ids reminders may name (required: without a readable one the service does not start)"),
            .seconds("reminder-tick-seconds", default: defaults.reminderTickSeconds, help: "how often due pickup reminders are looked for"),
            .count("retention-days", NotificationRetention.allowedDays, default: defaults.retentionDays,
                   help: "notifications (delivered and undeliverable) and ended reminders older than this many days are deleted, at start and hourly (\(NotificationRetention.allowedDays.lowerBound)…\(NotificationRetention.allowedDays.upperBound))"),
        ]
    }

    /// The settings in `config` (loaded against `specs`, which checked every range).
    public init(_ config: Configuration) {
        pickupReminderLeadSeconds = config.double("pickup-reminder-lead-seconds")
        pickupReminderNoticeSeconds = config.double("pickup-reminder-notice-seconds")
        campus = config.string("campus")
        reminderTickSeconds = config.double("reminder-tick-seconds")
        retentionDays = config.int("retention-days")
    }

    /// When pickup reminders are due.
    public var schedule: PickupReminderSchedule { PickupReminderSchedule(leadSeconds: pickupReminderLeadSeconds, noticeSeconds: pickupReminderNoticeSeconds) }

    /// The pickup-reminder tick, never below `minimumTickSeconds`.
    public var tickSeconds: Double { max(Self.minimumTickSeconds, reminderTickSeconds) }

    /// The retention `retentionDays` gives.
    public var retention: NotificationRetention {
        guard let retention = NotificationRetention(days: retentionDays) else {
            fatalError("--retention-days was checked against NotificationRetention.allowedDays by the configuration")
        }
        return retention
    }
}
