import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// The two ways the screen runs: `--attach` (a screen alone, against a running kitchen-display)
/// and `--screen` (the service and its screen in one process, the screen owning the terminal).
///
/// In deployed mode the screen is a kitchen like any other caller: it acts as `--screen-as`'s
/// principal, so it sees and bumps only its café's tickets, and a revoked key stops it acting.
extension TerminalScreen {
    /// `--attach`: every key is a request to the kitchen-display at `endpoint` (`name@tcp://…`
    /// names the instance whose key a deployed-mode socket expects; default kitchen-display).
    /// `principal`: deployed mode's `--screen-as`, whose key in `config`'s `--keys` the socket
    /// uses; nil in plain mode. Returns when the chef presses q or a signal asks the process to
    /// stop, with the terminal given back.
    public static func attach(to endpoint: String, station: String?, cafe: String?, config: Configuration, as principal: String?) throws {
        let context = try Context()
        let logger = Logger(service: "kitchen-display", instance: "screen", minimum: .error)
        let security = try principal.map { try SocketSecurity.from(config, name: $0, serving: nil, logger: logger) } ?? .plain(logger: logger)
        let client = try security.requestClient(context: context, peer: endpoint, defaultServer: "kitchen-display", timeoutMilliseconds: 1_000)
        let orders = try security.requestClient(context: context, peer: config[KitchenDisplaySettings.ordersOption], defaultServer: "order-service", timeoutMilliseconds: 2_000)
        defer { orders.close() }
        let screen = TerminalScreen(transport: { try client.send(raw: $0) }, menu: { try orders.send(raw: $0) }, station: station, cafe: cafe)
        let shutdown = ShutdownSignal()
        shutdown.installHandlers(logger: logger)
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
    /// q stops the service. Close it after `host.run(_:)` returns. `principal`: deployed mode's
    /// `--screen-as` (it must be in the key registry), each request made as it stands in the
    /// registry then; nil in plain mode (the developer).
    public static func show(on host: ServiceHost, station: String?, cafe: String?, as principal: String?, config: Configuration) throws -> TerminalScreen {
        let transport: Transport
        // The 86 keys act at order-service as the screen's kitchen (its own key), never as the service.
        let menuSecurity = try principal.map { try SocketSecurity.from(config, name: $0, serving: nil, logger: host.logger) } ?? .plain(logger: host.logger)
        let orders = try menuSecurity.requestClient(context: host.context, peer: config[KitchenDisplaySettings.ordersOption], defaultServer: "order-service", timeoutMilliseconds: 2_000)
        if let principal {
            guard host.security.caller(userId: principal, key: nil) != nil else {
                throw SecurityError("--screen-as \(principal) is not in the key registry; the screen would have no one to act as")
            }
            transport = { [router = host.requests.router, security = host.security] frame in
                guard let caller = security.caller(userId: principal, key: nil) else {
                    return RequestRouter.errorReply(ServiceError(.forbidden, "the screen's key \(principal) was revoked; it can no longer act"))
                }
                return router.handle(frame, caller: caller)
            }
        } else {
            transport = { [router = host.requests.router] in router.handle($0) }
        }
        let screen = TerminalScreen(transport: transport, menu: { try orders.send(raw: $0) }, station: station, cafe: cafe)
        screen.open()
        host.reactor.every(0.03, name: "screen") { [shutdown = host.shutdown] in
            screen.tick(now: Reactor.monotonic())
            if screen.quitRequested { shutdown.request() }
        }
        return screen
    }
}
