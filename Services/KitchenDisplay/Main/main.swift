import Foundation
import KitchenServer
import ServiceRuntime

// kitchen-display: tickets from order events, routed to stations; chefs start, bump and recall
// them on the terminal screen (`--screen`, or `--attach` to a running one) or through the command
// socket (`cafectl kds ...`); bumps go back to order-service as kitchen events.

let config = loadConfiguration(program: "kitchen-display", summary: "the kitchen display: station tickets, expediter, start, bump, recall, rush",
                               specs: KitchenDisplaySettings.specs)
let settings = KitchenDisplaySettings(config: config)
// Start errors are JSON lines like every other log line (exit 1).
let startLog = Logger(service: "kitchen-display", instance: config[KitchenDisplaySettings.common.instance])
// Deployed mode: the screen acts as --screen-as's kitchen key, or does not start (said here, on
// the terminal, before the screen takes it over).
let screenPrincipal: String?
do {
    screenPrincipal = settings.screen || settings.attach != nil ? try settings.screenPrincipal(security: config[SocketSecurity.modeOption], keys: config[SocketSecurity.keysOption]) : nil
} catch {
    startLog.exitStart("screen refused", error: error, status: 1)
}
if let endpoint = settings.attach {
    // A screen only: every key is a request to the running kitchen-display.
    do {
        try TerminalScreen.attach(to: endpoint, station: settings.station, cafe: settings.cafe, config: config, as: screenPrincipal)
        exit(0)
    } catch {
        startLog.exitStart("attach failed", error: error, status: 1)
    }
}
if settings.screen {
    // The screen owns the terminal: logs go to a file instead of over the tickets.
    TerminalScreen.redirectLogs(to: settings.screenLogPath(dataDir: config[CommonOptions.dataDir]))
}
do {
    let host = try ServiceHost(options: KitchenDisplaySettings.common, config: config)
    let service = KitchenService(host: host, settings: settings.times)
    try service.start()
    let screen = settings.screen ? try TerminalScreen.show(on: host, station: settings.station, cafe: settings.cafe, as: screenPrincipal, config: config) : nil
    // The service is the owner its handlers point back to: keep it alive while the host runs.
    withExtendedLifetime(service) { host.run() }
    screen?.close()
} catch {
    startLog.exitStart("start failed", error: error, status: 1)
}
