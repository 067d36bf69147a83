import EdgeCore
import Messages
import ServiceRuntime

/// The screens' routes the streams part does not answer: the kitchen display's and the pickup
/// board's snapshots (`ScreenSnapshots`), and the status page's snapshot and stream (`StatusBoard`).
public final class ScreenServer {
    let snapshots: ScreenSnapshots
    let status: StatusBoard
    let streams: EdgeStreams

    public init(edge: EdgeServer, streams: EdgeStreams, host: ServiceHost, settings: EdgeStreamSettings) throws {
        self.streams = streams
        snapshots = ScreenSnapshots(journal: streams.journal, ask: edge.ask, clock: host.clock, logger: host.logger)
        status = try StatusBoard(edge: edge, host: host, busEndpoint: edge.settings.metrics.busHealthEndpoint) { [unowned streams] item in streams.publish(item) }
    }

    /// Closes the socket to the bus's request port, on the reactor's thread.
    public func close() { status.close() }

    /// Starts asking every process for the status page.
    public func start() { status.start() }

    /// Whether `action` is one of these routes.
    public func answers(_ action: Route.Action) -> Bool {
        if case .screen = action { return true }
        return action == .stream(.statusEvents)
    }

    /// Answers one of these routes for `principal` (the router has held it to the route's roles).
    public func answer(_ call: EdgeCall, headers: HTTPHeaders, principal: OnBehalfOf, done: @escaping @Sendable (EdgeResponse) -> Void) {
        switch call.action {
        case .screen(.status):
            done(.json(status.document))
        case .screen(let action):
            snapshots.answer(action, query: call.body, principal: principal, done: done)
        default:
            do {
                done(status.held(after: try StreamEventId.parse(headers["Last-Event-ID"]), keepAliveSeconds: streams.keepAliveSeconds))
            } catch {
                done(error.response)
            }
        }
    }
}

/// Confined to the host's reactor thread, like the rest of the edge.
extension ScreenServer: @unchecked Sendable {}
