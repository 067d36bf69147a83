import Campus
import Foundation
import NotifyServer
import ServiceRuntime

// notification-service: device registrations and notification authorization; turns order and
// region events into localized notifications, delivered once on notify.delivery.<device>. and
// kept in an inbox; pickup-window and region reminders.

let config = loadConfiguration(program: NotifySettings.program, summary: NotifySettings.summary, specs: NotifySettings.specs)
let settings = NotifySettings(config)
// Start errors are JSON lines like every other log line (exit 1; a missing or unreadable campus catalog among them).
let startLog = Logger(service: NotifySettings.program, instance: config[NotifySettings.common.instance])
do {
    let host = try ServiceHost(options: NotifySettings.common, config: config)
    let source = try CatalogSource(path: settings.campus, now: host.clock.now())
    let service = NotifyService(host: host, catalog: source.catalog, settings: settings)
    try service.start()
    // SIGHUP and catalog.reload switch to the file's new catalog when it validates whole.
    source.onChange { service.use($0) }
    source.attach(to: host)
    // The service is the owner its handlers point back to: keep it alive while the host runs.
    withExtendedLifetime(service) { host.run() }
} catch {
    startLog.exitStart("start failed", error: error, status: 1)
}
