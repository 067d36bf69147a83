import Foundation
import ServiceRuntime
import ZeroMQ

/// The two ways the screen runs: `--attach` (a screen alone, against a running kitchen-display)
/// and `--screen` (the service and its screen in one process, the screen owning the terminal).
extension TerminalScreen {
    /// `--attach`: every key is a request to the kitchen-display at `endpoint`. Returns when the
    /// chef presses q or a signal asks the process to stop, with the terminal given back.
    public static func attach(to endpoint: String, station: String?, cafe: String?) throws {
        let context = try Context()
        let client = RequestClient(context: context, endpoint: endpoint, timeoutMilliseconds: 1_000)
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
    }

    /// `--screen`: logs go to the file at `path` (created with its folder) instead of over the
    /// tickets. Left on stderr when the file cannot be opened.
    public static func redirectLogs(to path: String) {
        try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        if fd >= 0 { dup2(fd, STDERR_FILENO); Glibc.close(fd) }
    }

    /// `--screen`: a screen acting through the service's own router, drawn by the host's reactor;
    /// q stops the service. Close it after `host.run()` returns.
    public static func show(on host: ServiceHost, station: String?, cafe: String?) -> TerminalScreen {
        let screen = TerminalScreen(transport: { [router = host.router] in router.handle($0) }, station: station, cafe: cafe)
        screen.open()
        host.reactor.every(0.03, name: "screen") { [shutdown = host.shutdown] in
            screen.tick(now: Reactor.monotonic())
            if screen.quitRequested { shutdown.request() }
        }
        return screen
    }
}
