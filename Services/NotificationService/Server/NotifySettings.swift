import NotifyCore
import ServiceRuntime

/// notification-service's own options, each declared once below with its default, range and
/// help; a property starts from its option's default. `init(_:)` reads a loaded configuration into it.
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
    public var pickupReminderLeadSeconds = Self.leadOption.defaultValue
    /// A pickup reminder due less than this long after its order was placed is not sent.
    public var pickupReminderNoticeSeconds = Self.noticeOption.defaultValue
    /// The campus catalog file; required (a missing or unreadable one stops the service at start).
    public var campus = Self.campusOption.defaultValue
    /// How often due pickup reminders are looked for.
    public var reminderTickSeconds = Self.reminderTickOption.defaultValue
    /// How many days what is over is kept.
    public var retentionDays = Self.retentionDaysOption.defaultValue
    /// The apns channel's key, team and endpoints.
    public var apns = APNsSettings()
    /// The webhook channel's secrets, limits and breaker.
    public var webhooks = WebhookSettings()

    /// The defaults.
    public init() {}

    /// The options every service reads, with notification-service's name and request port.
    public static let common = CommonOptions(service: program, listenPort: listenPort)
    public static let leadOption = Option.seconds("pickup-reminder-lead-seconds", .nonNegative, default: 600,
                                                  help: "how long before its pickup window starts an accepted order's customer is reminded (0: no pickup reminders)")
    public static let noticeOption = Option.seconds("pickup-reminder-notice-seconds", OptionSpec.Bounds(lower: -7 * 86_400, upper: 86_400),
                                                    default: PickupReminderSchedule.minimumNoticeSeconds,
                                                    help: "a pickup reminder due less than this long after its order was placed is not sent: 'coming up' the moment you order tells you nothing (negative: also remind orders placed inside the lead time, e.g. for tests)")
    public static let campusOption = Option<String>("campus", .path, default: "deploy/campus.json",
                                                    help: "the campus catalog: café names for reminder titles and the café ids reminders may name (required: without a readable one the service does not start)")
    public static let reminderTickOption = Option.seconds("reminder-tick-seconds", default: 1, help: "how often due pickup reminders are looked for")
    public static let retentionDaysOption = Option.count("retention-days", NotificationRetention.allowedDays, default: 30,
                                                         help: "notifications (delivered and undeliverable) and ended reminders older than this many days are deleted, at start and hourly (\(NotificationRetention.allowedDays.lowerBound)…\(NotificationRetention.allowedDays.upperBound))")

    /// Every option notification-service reads: the common ones, then its own.
    public static var specs: [OptionSpec] {
        common.specs + [leadOption.spec, noticeOption.spec, campusOption.spec, reminderTickOption.spec, retentionDaysOption.spec] + APNsSettings.specs + WebhookSettings.specs
    }

    /// The settings in `config` (loaded against `specs`, which checked every range).
    public init(_ config: Configuration) {
        pickupReminderLeadSeconds = config[Self.leadOption]
        pickupReminderNoticeSeconds = config[Self.noticeOption]
        campus = config[Self.campusOption]
        reminderTickSeconds = config[Self.reminderTickOption]
        retentionDays = config[Self.retentionDaysOption]
        apns = APNsSettings(config)
        webhooks = WebhookSettings(config)
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
