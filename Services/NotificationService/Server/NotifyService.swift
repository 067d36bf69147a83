import Campus
import Foundation
import Messages
import Metrics
import NotifyCore
import ServiceRuntime

/// The shell of notification-service: registrations, inboxes and reminders in its store. Each
/// notification is written with its delivery (or undeliverable) event in one transaction through
/// the outbox; the event id of what caused it is remembered in the same transaction, so a
/// replayed event never notifies twice, and one notification per (device, kind, order).
public final class NotifyService {
    let clock: any WallClock
    let logger: Logger
    let reactor: Reactor
    let requests: RequestServer
    let router: RequestRouter
    let bus: BusSubscription
    let events: EventWriter
    /// Deletes what retention no longer keeps, a batch at a time (the host's).
    let pruner: Pruner
    /// The campus catalog: café names and the ids reminders may name. Required: main refuses to
    /// start without a readable one.
    /// The catalog in use: replaced whole by a reload (`use(_:)`), on the reactor's thread.
    private(set) var catalog: CampusCatalog
    let store: NotifyStore
    let composer = NotificationComposer()
    let schedule: PickupReminderSchedule
    private let tickSeconds: Double
    var now: Timestamp { clock.now() }
    /// How long what is over (notifications, ended reminders) is kept.
    let retention: NotificationRetention
    /// Events skipped because their id was already applied (since start), for health.
    /// Rows deleted by retention since start, for health.
    var pruned = 0
    /// From an order event's publication to the notifications it caused, committed (health `latency:order.notification`).
    var orderToNotification = LatencyBuckets()
    /// The apns channel's options, and its sender once started.
    let apns: APNsSettings
    private(set) var pushes: PushDispatcher?
    /// The webhook channel's options, and its sender once started.
    let webhooks: WebhookSettings
    var webhookSender: WebhookDispatcher?

    /// The service on `host` (its database, sockets and clock); `start()` migrates and registers it.
    public init(host: ServiceHost, catalog: CampusCatalog, schedule: PickupReminderSchedule, tickSeconds: Double, retention: NotificationRetention,
                apns: APNsSettings = APNsSettings(), webhooks: WebhookSettings = WebhookSettings()) {
        clock = host.clock
        logger = host.logger
        reactor = host.reactor
        requests = host.requests
        router = host.requests.router
        bus = host.bus
        events = host.events
        pruner = host.pruner
        self.catalog = catalog
        self.schedule = schedule
        self.tickSeconds = tickSeconds
        self.retention = retention
        self.apns = apns
        self.webhooks = webhooks
        store = NotifyStore(db: host.db)
    }

    /// The service with its settings.
    public convenience init(host: ServiceHost, catalog: CampusCatalog, settings: NotifySettings) {
        self.init(host: host, catalog: catalog, schedule: settings.schedule, tickSeconds: settings.tickSeconds, retention: settings.retention, apns: settings.apns,
                  webhooks: settings.webhooks)
    }

    /// Switches to a reloaded catalog (café names, reminder cafés, grace times).
    public func use(_ catalog: CampusCatalog) { self.catalog = catalog }

    /// Migrates the schema and registers the subscriptions, ops, timers and health details.
    public func start() throws {
        try store.migrate()
        // A service that was down for a while catches up before it takes new work.
        try pruneExpired()
        // Two consumers, each its own socket and group commit: an order's ready is told at once, not
        // queued behind the thousands of region events a second that walking phones bring.
        try bus.subscribe(["order."], durableStreams: ["order"]) { [unowned self] _, envelope in try self.consume(envelope) }
        let regions = try bus.subscribe(["region."], durableStreams: ["region"]) { [unowned self] _, envelope in try self.consume(envelope) }
        // A region event reminds at most once per reminder and event (its once key): applied twice it
        // sends nothing more, so its ids (thousands a second from walking phones) are not kept.
        regions.follower.ledger.unrecordedStreams = ["region"]
        routeRequests()
        // Pickup reminders live in SQLite, so a restart neither loses nor repeats one.
        reactor.every(tickSeconds, name: "reminders.pickup") { [unowned self] in try self.sendDuePickupReminders() }
        addRetention(to: pruner)
        requests.addHealthDetails { [unowned self] in
            store.healthCounts().merging([
                "retention.days": "\(retention.days)",
                "retention.pruned": "\(pruned)",
                "latency:order.notification": orderToNotification.encoded,
            ]) { stored, _ in stored }
        }
        startPushes()
        startWebhooks()
    }

    /// The apns channel's sender: a tick on the reactor records APNs' answers and sends what is
    /// due; SIGHUP re-reads the key; health counts pushes and says `push.credentials` while due
    /// pushes wait for a key.
    private func startPushes() {
        let dispatcher = PushDispatcher(store: store, events: events, logger: logger, clock: clock, settings: apns)
        pushes = dispatcher
        reactor.every(PushDispatcher.tickSeconds, name: "push.dispatch") { try dispatcher.tick() }
        HangupSignal.shared.start()
        var hangups = HangupSignal.shared.count
        reactor.every(0.5, name: "push.key") {
            let count = HangupSignal.shared.count
            guard count != hangups else { return }
            hangups = count
            dispatcher.reloadKey()
        }
        requests.addHealthDetails { dispatcher.healthDetails() }
        requests.addDegradedReasons { [unowned self] in dispatcher.held || (apns.keyFile != nil && dispatcher.credentials.problem != nil) ? ["push.credentials"] : [] }
    }

    /// A café's name: from the catalog, else as the last order taught it (an order-service with a
    /// newer catalog), else its id.
    func cafeName(_ cafeId: String) throws -> String {
        if let cafe = catalog.cafe(cafeId) { return cafe.name }
        return try store.cafeName(cafeId) ?? cafeId
    }

    /// Writes one device's notification and its delivery or undeliverable event, inside the
    /// caller's transaction. `onceKey` names what may notify this device only once per kind (the
    /// order id; a one-shot reminder's id); nil when it was already notified (collapsed).
    @discardableResult
    func notify(_ subject: NotificationSubject, deviceId: String, onceKey: String) throws -> DeviceNotification? {
        let registration = try store.registration(deviceId)
        let notification = composer.compose(subject, deviceId: deviceId, registration: registration,
                                             notificationId: "ntf_" + UUID().uuidString.lowercased(), now: now)
        guard try !store.hasNotification(deviceId: deviceId, kind: notification.kind, onceKey: onceKey) else { return nil }
        let emitted: Data
        if let reason = notification.undeliverableReason {
            logger.info("notification not delivered", ["device.id": deviceId, "notification.kind": notification.kind.rawValue,
                                                            "notification.collapseId": notification.collapseId, "reason": reason])
            emitted = try events.emitKeepingBody(.notifyUndeliverable, topic: Topic.notifyUndeliverable, stream: "notify", .notification(notification)).body
        } else {
            emitted = try events.emitKeepingBody(.notifyDelivery, topic: Topic.notifyDelivery(device: deviceId), stream: "notify", .notification(notification)).body
        }
        // The inbox keeps the notification as its event carried it: encoded once.
        try store.insert(notification, body: emitted, onceKey: onceKey)
        // Channel apns: the push starts in the same transaction; the dispatcher sends it.
        if notification.undeliverableReason == nil, registration?.apns != nil {
            try store.startPush(notification.notificationId, at: now,
                                expiresAt: notification.expiresAt ?? now.adding(seconds: PushRetryPolicy.noExpirySeconds))
            pushes?.wake()
        }
        // Channel webhook: the same, for the webhook sender.
        if notification.undeliverableReason == nil, registration?.webhook != nil {
            try store.startPush(notification.notificationId, at: now, expiresAt: notification.expiresAt ?? now.adding(seconds: PushRetryPolicy.noExpirySeconds),
                                channel: NotifyStore.webhookChannel)
            webhookSender?.wake()
        }
        return notification
    }
}
