import EdgeCore
import Foundation
import Messages
import Policy
import SQLite
import ServiceRuntime

/// Live order status over server-sent events, held by Pushpin (issue 26).
///
/// The edge follows the `order` stream and notification-service's `notify` stream on the bus (and
/// for the café screens the `kitchen` and `menu` streams, journalled on each café's channel as
/// `CafeEvent`s with ids of the channel's own count) as a consumer with a cursor (the runtime's `StreamFollower`: exactly once, in order, caught up by
/// `replay` after a gap or a restart). Each order event and each `notify.delivery` is journalled
/// in the transaction that moves the cursor (`StreamJournal`), then published to Pushpin on its
/// channel (`StreamChannel`) with its seq as the event id.
///
/// `open` answers one of the two SSE routes: it checks the caller may see the stream (an order's:
/// `order.get` on behalf of the caller, so the service's own scope rules decide; a device's: the
/// phone's own device), then answers a GRIP stream hold whose body is what the client missed.
///
/// Everything runs on the host's reactor thread: the consumer, the publish timer and `open`'s
/// continuations (the server calls `done` of `EdgeAsk` there).
public final class EdgeStreams {
    private let host: ServiceHost
    private let settings: EdgeStreamSettings
    private let ask: EdgeAsk
    public let journal: StreamJournal
    private var publisher: PushpinPublisher?
    /// Items of events applied in the batch being committed: published after the commit, on the
    /// next turn of the loop, and forgotten if the batch rolls back (it comes again by replay).
    private(set) var pending: [PushpinPublishItem] = []
    /// How often pending items are handed to Pushpin: at most this much is added to an event's way.
    static let publishInterval = 0.005
    /// Streams opened, and opens refused (by the service's scope check or the device rule).
    private(set) var opened = 0
    private(set) var refused = 0
    /// Events journalled since start (a count, not a scan of the journal, so health stays cheap).
    private(set) var journalled = 0

    public init(host: ServiceHost, settings: EdgeStreamSettings, ask: @escaping EdgeAsk) {
        self.host = host
        self.settings = settings
        self.ask = ask
        journal = StreamJournal(db: host.db)
    }

    /// Migrates the journal, subscribes to order and notify events with a cursor, connects the
    /// PUSH socket to Pushpin and starts the publish and prune timers.
    public func start() throws {
        try journal.migrate()
        publisher = try PushpinPublisher(context: host.context, endpoint: settings.publishEndpoint)
        try host.bus.subscribe(["order.", "notify.", "kitchen.", "menu."], durableStreams: ["order", "notify", "kitchen", "menu"]) { [unowned self] _, envelope in
            try self.consume(envelope)
        }
        host.bus.consumer?.onRolledBack = { [unowned self] in self.pending.removeAll() }
        host.reactor.every(Self.publishInterval, name: "streams.publish") { [unowned self] in self.flush() }
        host.reactor.every(ScreenStreams.heartbeatInterval, name: "streams.heartbeat") { [unowned self] in self.heartbeat() }
        // A batch at a time, a few milliseconds at most (the host's pruner), never one long delete.
        host.pruner.add("streams.journal") { [unowned self] limit in
            let cutoff = host.clock.now().adding(seconds: -Double(settings.historyHours) * 3600)
            return try host.db.transaction { try journal.prune(before: cutoff, limit: limit) }
        }
        host.requests.addHealthDetails { [unowned self] in
            [
                "streams.publishEndpoint": settings.publishEndpoint,
                "streams.published": "\(publisher?.published ?? 0)",
                "streams.dropped": "\(publisher?.dropped ?? 0)",
                "streams.opened": "\(opened)",
                "streams.refused": "\(refused)",
                "streams.journalled": "\(journalled)",
            ]
        }
    }

    /// One applied bus event, inside the consumer's transaction: journalled, and queued for Pushpin.
    func consume(_ envelope: Envelope) throws {
        if let screen = CafeEvent.of(envelope) {
            let channel = StreamChannel.cafe(screen.cafeId)
            let event = try journal.appendCounted(channel: channel, event: screen.type, data: screen.data, at: host.clock.now())
            journalled += 1
            pending.append(PushpinPublishItem(channel: channel, event: event))
        }
        guard let event = StreamEvent.of(envelope) else { return }
        try journal.append(event, at: host.clock.now())
        journalled += 1
        pending.append(PushpinPublishItem(channel: event.channel, event: event.event))
    }

    /// The screens' heartbeat: one event a second on `StreamChannel.screens`, its id the clock's
    /// milliseconds (so Pushpin never drops one as seen), which a page does not resume from.
    func heartbeat() {
        guard let publisher else { return }
        let now = host.clock.now()
        publisher.publish(ScreenStreams.heartbeat(at: now))
    }

    /// Hands one item to Pushpin at once (the status page's documents, which are not journalled).
    public func publish(_ item: PushpinPublishItem) { publisher?.publish(item) }

    /// How long a held stream may be idle before Pushpin writes a keep-alive.
    public var keepAliveSeconds: Int { settings.keepAliveSeconds }

    /// Hands what the last commits journalled to Pushpin.
    func flush() {
        guard !pending.isEmpty, let publisher else { return }
        let items = pending
        pending.removeAll(keepingCapacity: true)
        for item in items { publisher.publish(item) }
    }

    /// Forgets events older than the history the settings keep.
    func prune() throws {
        let cutoff = host.clock.now().adding(seconds: -Double(settings.historyHours) * 3600)
        try host.db.transaction { _ = try journal.prune(before: cutoff) }
    }

    /// Answers one of the two SSE routes for `principal`: a held response, or the problem that
    /// refuses it (422 for a Last-Event-ID that is not an id, what `order.get` answered when the
    /// caller may not see the order or it does not exist, 403 for another device's stream).
    public func open(action: Route.Action, pathParameters: [String: String], body: [UInt8] = [], headers: HTTPHeaders,
                     principal: OnBehalfOf, done: @escaping @Sendable (EdgeResponse) -> Void) {
        let after: UInt64?
        do {
            after = try StreamEventId.parse(headers["Last-Event-ID"])
        } catch {
            refused += 1
            return done(error.response)
        }
        switch action {
        case .stream(.orderEvents):
            guard let orderId = pathParameters["orderId"] else { return done(Self.noStream(action)) }
            // The service decides who may see the order, exactly as for GET /v1/orders/{orderId}.
            let body = JSONValue.object([("orderId", .string(orderId))]).encoded()
            ask(Op.orderGet, body, principal) { [self] answer in
                guard answer.status == 200 else {
                    refused += 1
                    return done(answer)
                }
                done(held(channel: StreamChannel.order(orderId), after: after))
            }
        case .stream(.deviceEvents):
            guard let deviceId = pathParameters["deviceId"] else { return done(Self.noStream(action)) }
            guard principal.role == Role.phone.rawValue, principal.deviceId == deviceId else {
                refused += 1
                return done(Problem(.forbidden, "\(principal.name) may read the events of its own device only, not \(Quoting.quoted(deviceId))").response)
            }
            done(held(channel: StreamChannel.device(deviceId), after: after))
        case .stream(.cafeEvents):
            let cafeId: String
            do {
                cafeId = try ScreenStreams.cafe(of: principal, asked: ScreenStreams.member("cafeId", in: body))
            } catch {
                refused += 1
                return done(error.response)
            }
            opened += 1
            done(ScreenStreams.held(journal: journal, cafeId: cafeId, after: after, keepAliveSeconds: settings.keepAliveSeconds, logger: host.logger))
        default:
            done(Self.noStream(action))
        }
    }

    /// The held response with what the journal has after `after`; 503 when the journal cannot be read.
    private func held(channel: String, after: UInt64?) -> EdgeResponse {
        do {
            let missed = try journal.events(channel: channel, after: after)
            opened += 1
            return HeldStream.response(channel: channel, missed: missed, keepAliveSeconds: settings.keepAliveSeconds)
        } catch {
            host.logger.error("stream journal unreadable", ["channel": channel, "error": "\(error)"])
            return Problem(.httpServiceUnavailable, "the edge cannot read its stream journal now; try again").response
        }
    }

    private static func noStream(_ action: Route.Action) -> EdgeResponse {
        Problem(.httpNotFound, "\(action) is not a stream the edge serves").response
    }

    /// Closes the PUSH socket, on the reactor's thread (the host closes the bus consumer).
    public func close() {
        flush()
        publisher?.close()
        publisher = nil
    }
}

/// Confined to the host's reactor thread (see the type's comment): the closures `open` hands to
/// `EdgeAsk` run there, so they may use the instance.
extension EdgeStreams: @unchecked Sendable {}
