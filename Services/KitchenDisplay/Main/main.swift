import Foundation
import KitchenServer
import ServiceRuntime

// kitchen-display: tickets from order events, routed to stations; chefs start, bump and recall
// them on the terminal screen (`--screen`, or `--attach` to a running one) or through the command
// socket (`cafectl kds ...`); bumps go back to order-service as kitchen events. Start errors are
// JSON lines like every other log line (exit 1).

let launch = ServiceLaunch(KitchenDisplaySettings.common, summary: "the kitchen display: station tickets, expediter, start, bump, recall, rush",
                           specs: KitchenDisplaySettings.specs, settings: KitchenDisplaySettings.init(config:))
let settings = launch.settings
let config = launch.config
// Deployed mode: the screen acts as --screen-as's kitchen key, or does not start (said here, on
// the terminal, before the screen takes it over).
let screenPrincipal: String?
do {
    screenPrincipal = settings.screen || settings.attach != nil
        ? try settings.screenPrincipal(security: config[SocketSecurity.modeOption], keys: config[SocketSecurity.keysOption]) : nil
} catch {
    launch.startLog.exitStart("screen refused", error: error, status: 1)
}
if let endpoint = settings.attach {
    // A screen only: every key is a request to the running kitchen-display.
    do {
        try TerminalScreen.attach(to: endpoint, station: settings.station, cafe: settings.cafe, config: config, as: screenPrincipal)
        exit(0)
    } catch {
        launch.startLog.exitStart("attach failed", error: error, status: 1)
    }
}
if settings.screen {
    // The screen owns the terminal: logs go to a file instead of over the tickets.
    TerminalScreen.redirectLogs(to: settings.screenLogPath(dataDir: config[CommonOptions.dataDir]))
}
var screen: TerminalScreen?
launch.run { host, settings in
    let service = KitchenService(host: host, settings: settings.times)
    try service.start()
    service.addRetention(to: host.pruner, ticketRetentionDays: settings.ticketRetentionDays)
    screen = settings.screen ? try TerminalScreen.show(on: host, station: settings.station, cafe: settings.cafe, as: screenPrincipal, config: config) : nil
    return service
}
screen?.close()
