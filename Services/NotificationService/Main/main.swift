import Campus
import Foundation
import NotifyCore
import NotifyServer
import ServiceRuntime

// notification-service: device registrations and notification authorization; turns order and
// region events into localized notifications, delivered once on notify.delivery.<device>. and
// kept in an inbox; pickup-window and region reminders.

let specs = ServiceHost.commonSpecs(service: "notification-service", listenPort: 7450) + [
    OptionSpec("pickup-reminder-lead-seconds", .number, default: "600", help: "how long before its pickup window starts an accepted order's customer is reminded (0: no pickup reminders)"),
    OptionSpec("campus", .path, default: "deploy/campus.json", help: "the campus catalog: café names for reminder titles and the café ids reminders may name (without it, names are learned from orders and any id is taken)"),
    OptionSpec("reminder-tick-seconds", .number, default: "1", help: "how often due pickup reminders are looked for"),
    OptionSpec("retention-days", .integer, default: "30", range: NotificationRetention.allowedDays,
               help: "notifications (delivered and undeliverable) and ended reminders older than this many days are deleted, at start and hourly (1…3650)"),
]
let config = loadConfiguration(program: "notification-service", summary: "localized order notifications and reminders, delivered once", specs: specs)
guard let retention = NotificationRetention(days: config.int("retention-days")) else {
    fatalError("--retention-days was checked against NotificationRetention.allowedDays by the configuration")
}
do {
    let host = try ServiceHost(service: "notification-service", config: config)
    // The catalog is optional here (a notification-service container may not mount it): without
    // it the service still notifies, it just cannot check café ids.
    var catalog: CampusCatalog?
    if FileManager.default.fileExists(atPath: config.string("campus")) {
        catalog = try CampusCatalog.load(path: config.string("campus"))
    } else {
        host.logger.warning("no campus catalog; café names come from orders", ["campus": config.string("campus")])
    }
    let service = NotifyService(host: host, catalog: catalog, schedule: PickupReminderSchedule(leadSeconds: config.double("pickup-reminder-lead-seconds")),
                                tickSeconds: max(0.05, config.double("reminder-tick-seconds")),
                                retention: retention)
    try service.start()
    // The service is the owner its handlers point back to: keep it alive while the host runs.
    withExtendedLifetime(service) { host.run() }
} catch {
    FileHandle.standardError.write(Data("notification-service: \(error)\n".utf8))
    exit(1)
}
