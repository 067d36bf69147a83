import Foundation
import KitchenCore
import Messages
import ServiceRuntime
import ZeroMQ

// kitchen-display: tickets from order events, routed to stations; chefs start, bump and recall
// them on the terminal screen (`--screen`, or `--attach` to a running one) or through the command
// socket (`cafectl kds ...`); bumps go back to order-service as kitchen events.

let specs = ServiceHost.commonSpecs(service: "kitchen-display", listenPort: 7440) + [
    OptionSpec("screen", .flag, default: "false", help: "run the service with its full-screen display on this terminal (logs go to --screen-log)"),
    OptionSpec("attach", .string, default: "", help: "open the screen against a running kitchen-display at this endpoint (tcp://127.0.0.1:7440) instead of running the service"),
    OptionSpec("station", .string, default: "", help: "the screen's first view: a station (grill), or expediter; default every station"),
    OptionSpec("cafe", .string, default: "", help: "the screen shows only this café's tickets; default every café"),
    OptionSpec("screen-log", .path, default: "", help: "where logs go while the screen owns the terminal (default <data-dir>/kitchen-display.screen.log)"),
    OptionSpec("yellow-seconds", .number, default: "300", help: "a ticket waiting this long turns yellow"),
    OptionSpec("red-seconds", .number, default: "480", help: "a ticket waiting this long turns red"),
    OptionSpec("recall-seconds", .number, default: "120", help: "a bumped ticket can be recalled for this long"),
    OptionSpec("cancelled-seconds", .number, default: "60", help: "a cancelled ticket stays on screen, marked, for this long"),
]
let config = loadConfiguration(program: "kitchen-display", summary: "the kitchen display: station tickets, expediter, start, bump, recall, rush", specs: specs)
let station = config.string("station").isEmpty ? nil : config.string("station")
let cafe = config.string("cafe").isEmpty ? nil : config.string("cafe")

if !config.string("attach").isEmpty {
    // A screen only: every key is a request to the running kitchen-display.
    do {
        let context = try Context()
        let client = RequestClient(context: context, endpoint: config.string("attach"), timeoutMilliseconds: 1_000)
        let screen = TerminalScreen(transport: { try client.send(raw: $0) }, station: station, cafe: cafe)
        let shutdown = ShutdownSignal()
        shutdown.installHandlers(logger: Logger(service: "kitchen-display", instance: "screen", minimum: .error))
        screen.open()
        while !shutdown.isRequested && !screen.quitRequested {
            screen.tick(now: Reactor.monotonic())
            usleep(30_000)
        }
        screen.close()
        client.close()
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("kitchen-display: \(error)\n".utf8))
        exit(1)
    }
}

let settings = KitchenSettings(yellowSeconds: config.double("yellow-seconds"), redSeconds: config.double("red-seconds"),
                               recallSeconds: config.double("recall-seconds"), cancelledLingerSeconds: config.double("cancelled-seconds"))
let withScreen = config.bool("screen")
if withScreen {
    // The screen owns the terminal: logs go to a file instead of over the tickets.
    let path = config.string("screen-log").isEmpty
        ? (config.string("data-dir") as NSString).appendingPathComponent("kitchen-display.screen.log") : config.string("screen-log")
    try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    if fd >= 0 { dup2(fd, STDERR_FILENO); Glibc.close(fd) }
}
do {
    let host = try ServiceHost(service: "kitchen-display", config: config)
    let service = KitchenService(host: host, settings: settings)
    try service.start()
    var screen: TerminalScreen?
    if withScreen {
        let shown = TerminalScreen(transport: { [router = host.router] in router.handle($0) }, station: station, cafe: cafe)
        shown.open()
        host.reactor.every(0.03, name: "screen") { [shutdown = host.shutdown] in
            shown.tick(now: Reactor.monotonic())
            if shown.quitRequested { shutdown.request() }
        }
        screen = shown
    }
    // The service is the owner its handlers point back to: keep it alive while the host runs.
    withExtendedLifetime(service) { host.run() }
    screen?.close()
} catch {
    FileHandle.standardError.write(Data("kitchen-display: \(error)\n".utf8))
    exit(1)
}
