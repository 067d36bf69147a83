import Foundation
import NotifyServer
import ServiceRuntime

// notification-service: device registrations and notification authorization; turns order and
// region events into localized notifications, delivered once on notify.delivery.<device>. and
// kept in an inbox; pickup-window and region reminders.

let config = loadConfiguration(program: NotifySettings.program, summary: NotifySettings.summary, specs: NotifySettings.specs)
let settings = NotifySettings(config)
do {
    let host = try ServiceHost(service: NotifySettings.program, config: config)
    let catalog = try NotifyService.catalog(at: settings.campus, logger: host.logger)
    let service = NotifyService(host: host, catalog: catalog, settings: settings)
    try service.start()
    // The service is the owner its handlers point back to: keep it alive while the host runs.
    withExtendedLifetime(service) { host.run() }
} catch {
    FileHandle.standardError.write(Data("notification-service: \(error)\n".utf8))
    exit(1)
}
