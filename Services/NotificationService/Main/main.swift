import NotifyServer
import ServiceRuntime

// notification-service: device registrations and notification authorization; turns order and
// region events into localized notifications, delivered once on notify.delivery.<device>. and
// kept in an inbox; pickup-window and region reminders. A missing or unreadable campus catalog is
// a start error (exit 1).

ServiceLaunch(NotifySettings.common, summary: NotifySettings.summary, specs: NotifySettings.specs, settings: NotifySettings.init).run { host, settings in
    let source = try CatalogSource(path: settings.campus, now: host.clock.now())
    let service = NotifyService(host: host, catalog: source.catalog, settings: settings)
    try service.start()
    // SIGHUP and catalog.reload switch to the file's new catalog when it validates whole.
    source.onChange { service.use($0) }
    source.attach(to: host)
    return service
}
