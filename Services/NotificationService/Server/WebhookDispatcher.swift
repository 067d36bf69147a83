import Campus
import Foundation
import Messages
import NotifyCore
import ServiceRuntime

/// Sends the pending deliveries of the webhook channel and records what each receiver answered,
/// on the service's reactor thread, the way `PushDispatcher` does for APNs: due rows are read
/// from SQLite, POSTed by the HTTP client's own thread (HTTPS, HTTP/1.1 or 2 as negotiated, only
/// to the URL the catalog's allow-list names, no redirect followed), and each answer is written
/// in its notification's row in one transaction with what it causes. A delivery in flight lives
/// only in memory: after a crash its row is still pending and goes again with the same
/// `webhook-id`, so the receiver can drop the copy. Each receiver has a circuit breaker and a
/// 429 backoff (`WebhookCircuit`); deliveries it holds wait in their rows, not in memory.
final class WebhookDispatcher {
    let store: NotifyStore
    let events: EventWriter
    let logger: Logger
    let clock: any WallClock
    let settings: WebhookSettings
    /// The catalog in use (reloads replace it): the only source of receivers' URLs.
    let catalog: () -> CampusCatalog
    let secrets: WebhookSecrets
    let client: HTTP2Client
    /// Each receiver's breaker and backoff, by endpoint id (in memory: a restart starts closed).
    private(set) var circuits: [String: WebhookCircuit] = [:]
    /// Deliveries handed to the client, by notification id.
    private var inFlight: [String: (deviceId: String, endpoint: WebhookEndpoint, attempt: Int)] = [:]
    /// Receivers whose deliveries wait for a secret (health degraded).
    private(set) var held: Set<String> = []
    /// How often deliveries held for a secret are looked at again (SIGHUP lets them go at once).
    static let heldRecheckSeconds = 1.0
    /// Connections per receiver: HTTP/1.1 receivers answer one request per connection at a time.
    static let connectionsPerHost = 4
    private var wakeRequested = false
    private var nextScan = 0.0
    /// Randomness for retry jitter, in [0, 1); tests pass their own.
    let jitter: () -> Double

    init(store: NotifyStore, events: EventWriter, logger: Logger, clock: any WallClock, settings: WebhookSettings, catalog: @escaping () -> CampusCatalog,
         jitter: @escaping () -> Double = { Double.random(in: 0..<1) }) {
        self.store = store
        self.events = events
        self.logger = logger
        self.clock = clock
        self.settings = settings
        self.catalog = catalog
        self.jitter = jitter
        secrets = WebhookSecrets(file: settings.secretsFile)
        client = HTTP2Client(caFile: settings.caFile, timeoutSeconds: settings.timeoutSeconds, maxConnections: Self.connectionsPerHost, strict: true)
        if let problem = secrets.fileProblem, settings.secretsFile != nil { logger.error("webhook secrets unusable; deliveries wait", ["reason": problem]) }
    }

    deinit { client.stop() }

    /// Records the answers that came in, then sends what is due. Runs on the reactor's timer.
    func tick() throws {
        let responses = client.takeResponses()
        for response in responses { try record(response) }
        let clockNow = Reactor.monotonic()
        guard wakeRequested || !responses.isEmpty || clockNow >= nextScan else { return }
        wakeRequested = false
        nextScan = clockNow + PushDispatcher.scanSeconds
        try send()
    }

    /// A delivery was just queued (in the caller's transaction): look at the next tick.
    func wake() { wakeRequested = true }

    /// SIGHUP: read the secrets file again; deliveries held for a secret go at the next tick.
    func reloadSecrets() throws {
        let loaded = secrets.reload()
        held = []
        try events.write { try store.releaseWebhookPushes(endpoint: nil, reason: Self.secretHeld, at: clock.now()) }
        wake()
        logger.info("webhook secrets re-read", ["secrets": "\(loaded)", "reason": secrets.fileProblem ?? "-"])
    }

    static let secretHeld = "secret.held"

    private func send() throws {
        let now = clock.now()
        let room = settings.maxInFlight - inFlight.count
        guard room > 0 else { return }
        let due = try store.duePushes(now: now, limit: room, excluding: Set(inFlight.keys), channel: NotifyStore.webhookChannel)
        // Receivers that may take nothing more in this round (held, or their one probe is out).
        var skip: Set<String> = []
        var requests: [HTTP2Request] = []
        for item in due {
            let note = item.notification
            let registration = try store.registration(note.deviceId)
            func end(_ state: PushState, _ reason: String) throws {
                try events.write { try store.recordPush(note.notificationId, state: state, attempts: item.attempts, nextAt: nil, status: nil, reason: reason, at: now) }
            }
            if now >= item.expiresAt { try end(.expired, "expired"); continue }
            guard let destination = registration?.webhook else { try end(.failed, "channel.changed"); continue }
            if let refusal = DeliveryPolicy.refusal(registration, now: now) {
                try end(refusal == UndeliverableReason.tokenUnregistered ? .retired : .expired, refusal)
                continue
            }
            guard !skip.contains(destination.endpoint) else { continue }
            // The address comes from the catalog in use, never from the row: a receiver taken off
            // the allow-list gets nothing more.
            guard let endpoint = catalog().webhook(destination.endpoint) else { try end(.failed, "endpoint.notAllowed"); continue }
            guard let signer = secrets.signer(named: endpoint.secret) else {
                skip.insert(endpoint.id)
                if held.insert(endpoint.id).inserted {
                    logger.error("webhook deliveries wait for a secret", ["endpoint": endpoint.id, "reason": secrets.problem(named: endpoint.secret) ?? "-"])
                }
                try events.write { try store.deferWebhookPushes(endpoint: endpoint.id, until: now.adding(seconds: Self.heldRecheckSeconds), reason: Self.secretHeld, at: now) }
                continue
            }
            held.remove(endpoint.id)
            var circuit = circuits[endpoint.id] ?? WebhookCircuit(limits: settings.limits)
            let admission = circuit.admit(now: now)
            circuits[endpoint.id] = circuit
            switch admission {
            case .wait(let until, let reason):
                skip.insert(endpoint.id)
                try events.write { try store.deferWebhookPushes(endpoint: endpoint.id, until: until, reason: reason, at: now) }
                continue
            case .probe:
                skip.insert(endpoint.id)
                logger.info("webhook circuit half-open: one probe", ["endpoint": endpoint.id, "notification.id": note.notificationId])
            case .send: break
            }
            let delivery = WebhookDelivery(notification: note, recipient: destination.recipient, signer: signer, now: now)
            inFlight[note.notificationId] = (note.deviceId, endpoint, item.attempts + 1)
            requests.append(HTTP2Request(key: note.notificationId, url: endpoint.url, headers: delivery.headers, body: delivery.body))
        }
        client.submit(requests)
    }

    private func record(_ response: HTTP2Response) throws {
        guard let (deviceId, endpoint, attempt) = inFlight.removeValue(forKey: response.key) else { return }
        let now = clock.now()
        let outcome = response.failure.map { APNsOutcome.transient(reason: String($0.prefix(120))) } ?? WebhookAnswer.classify(status: response.status)
        // A 429 waits as long as the receiver asks (within bounds), else as long as APNs' would.
        var throttledUntil: Timestamp?
        if case .throttled = outcome {
            let seconds = RetryAfter.seconds(response.retryAfter, now: now)
                ?? PushRetryPolicy.delay(attempts: attempt, jitter: jitter(), minimum: PushRetryPolicy.throttleSeconds, base: settings.retryBaseSeconds)
            throttledUntil = now.adding(seconds: seconds)
        }
        // The breaker first, whatever becomes of the row: it is about the receiver.
        var circuit = circuits[endpoint.id] ?? WebhookCircuit(limits: settings.limits)
        let wasOpen = circuit.state
        let result: WebhookCircuit.Result
        if let throttledUntil { result = .throttled(until: throttledUntil) } else { result = WebhookAnswer.isAlive(outcome) ? .answered : .failed }
        let closedNow = circuit.record(result, now: now)
        circuits[endpoint.id] = circuit
        if circuit.state == .open, wasOpen != .open {
            logger.error("webhook circuit open", ["endpoint": endpoint.id, "failures": "\(circuit.consecutiveFailures)", "coolDownSeconds": "\(settings.breakerCoolDownSeconds)"])
        }
        if closedNow { logger.info("webhook circuit closed", ["endpoint": endpoint.id]) }
        if case .credentials(let why) = outcome { secrets.refused(named: endpoint.secret, why) }
        guard let expiresMs = try store.pushExpiry(response.key) else { return }
        let expiresAt = Timestamp(milliseconds: expiresMs)
        let registeredAt = try store.registration(deviceId)?.launchedAt ?? now
        var decision = PushRetryPolicy.decide(outcome, attempts: attempt, expiresAt: expiresAt, registeredAt: registeredAt, now: now, jitter: jitter(),
                                              base: settings.retryBaseSeconds)
        if let throttledUntil { decision = throttledUntil < expiresAt ? .backOffDevice(until: throttledUntil) : .expired }
        let status = response.status == 0 ? nil : response.status
        let reason = PushDispatcher.reason(outcome)
        let id = response.key
        try events.write {
            switch decision {
            case .delivered:
                try store.recordPush(id, state: .delivered, attempts: attempt, nextAt: nil, status: status, reason: nil, at: now)
            case .retire(let since):
                // The receiver says the device is gone there: like a dead APNs token, until it registers again.
                try store.retireToken(deviceId: deviceId, since: since)
                try store.recordPush(id, state: .retired, attempts: attempt, nextAt: nil, status: status, reason: reason, at: now)
            case .retry(let at):
                try store.recordPush(id, state: .pending, attempts: attempt, nextAt: at, status: status, reason: reason, at: now)
            case .backOffDevice(let until):
                // The whole receiver waits, not only this device.
                try store.recordPush(id, state: .pending, attempts: attempt, nextAt: until, status: status, reason: reason, at: now)
                try store.deferWebhookPushes(endpoint: endpoint.id, until: until, reason: "endpoint.backoff", at: now)
            case .hold:
                // The receiver refused the signature: not an attempt that counts; held for new secrets.
                try store.recordPush(id, state: .pending, attempts: attempt - 1, nextAt: now, status: status, reason: reason, at: now)
            case .expired:
                try store.recordPush(id, state: .expired, attempts: attempt, nextAt: nil, status: status, reason: reason, at: now)
            case .failed(let why):
                try store.recordPush(id, state: .failed, attempts: attempt, nextAt: nil, status: status, reason: why, at: now)
            }
            if closedNow { try store.releaseWebhookPushes(endpoint: endpoint.id, reason: "circuit.open", at: now) }
        }
        let fields = ["notification.id": id, "endpoint": endpoint.id, "attempt": "\(attempt)", "status": "\(response.status)", "reason": reason,
                      "decision": "\(decision)"]
        if outcome == .accepted { logger.debug("webhook accepted", fields) } else { logger.info("webhook not accepted", fields) }
    }

    /// Health: deliveries by state and attempts, and each allowed receiver's breaker and secret.
    func healthDetails() -> [String: String] {
        var details = store.pushCounts(channel: NotifyStore.webhookChannel, prefix: "webhook")
        details["webhook.inFlight"] = "\(inFlight.count)"
        for endpoint in catalog().webhooks ?? [] {
            let circuit = circuits[endpoint.id] ?? WebhookCircuit(limits: settings.limits)
            details["webhook.\(endpoint.id).circuit"] = circuit.state.rawValue
            details["webhook.\(endpoint.id).failures"] = "\(circuit.consecutiveFailures)"
            details["webhook.\(endpoint.id).opened"] = "\(circuit.opened)"
            details["webhook.\(endpoint.id).secret"] = secrets.problem(named: endpoint.secret) ?? "ok"
        }
        return details
    }

    /// Health `degraded`: each allowed receiver whose deliveries would wait for a secret.
    func degradedReasons() -> [String] {
        (catalog().webhooks ?? []).filter { secrets.problem(named: $0.secret) != nil }.map { "webhook.\($0.id).secret" }
    }
}
