import Foundation
import NotifyCore
import ServiceRuntime

// notification-service: device registrations and notification authorization; turns order and
// region events into localized notifications, delivered once on notify.delivery.<device>. and
// kept in an inbox; pickup-window and region reminders.

let specs = ServiceHost.commonSpecs(service: "notification-service", listenPort: 7450) + [
    OptionSpec("pickup-reminder-lead-seconds", .number, default: "600", help: "how long before its pickup window starts an accepted order's customer is reminded (0: no pickup reminders)"),
    OptionSpec("reminder-tick-seconds", .number, default: "1", help: "how often due pickup reminders are looked for"),
]
let config = loadConfiguration(program: "notification-service", summary: "localized order notifications and reminders, delivered once", specs: specs)
do {
    let host = try ServiceHost(service: "notification-service", config: config)
    let service = NotifyService(host: host, schedule: PickupReminderSchedule(leadSeconds: config.double("pickup-reminder-lead-seconds")),
                                tickSeconds: max(0.05, config.double("reminder-tick-seconds")))
    try service.start()
    // The service is the owner its handlers point back to: keep it alive while the host runs.
    withExtendedLifetime(service) { host.run() }
} catch {
    FileHandle.standardError.write(Data("notification-service: \(error)\n".utf8))
    exit(1)
}
