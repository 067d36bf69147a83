import Foundation
import ServiceRuntime

// notification-service: device registrations and notification authorization; turns order events
// into localized notifications, delivered once on notify.delivery.<device>. and kept in an inbox.

let specs = ServiceHost.commonSpecs(service: "notification-service", listenPort: 7450)
let config = loadConfiguration(program: "notification-service", summary: "localized order notifications, delivered once", specs: specs)
do {
    let host = try ServiceHost(service: "notification-service", config: config)
    let service = NotifyService(host: host)
    try service.start()
    // The service is the owner its handlers point back to: keep it alive while the host runs.
    withExtendedLifetime(service) { host.run() }
} catch {
    FileHandle.standardError.write(Data("notification-service: \(error)\n".utf8))
    exit(1)
}
