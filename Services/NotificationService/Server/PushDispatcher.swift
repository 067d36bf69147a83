import Foundation
import Messages
import NotifyCore
import ServiceRuntime

/// Sends the pending pushes of the apns channel and records what APNs answered, on the
/// service's reactor thread: due rows are read from SQLite, handed to the HTTP/2 client's own
/// thread, and each answer comes back here and is written in its notification's row in one
/// transaction with what it causes (a retired token, a device backed off). A push in flight is
/// only in memory: after a crash its row is still pending and is sent again, with the same
/// `apns-id`, so the phone replaces the first copy instead of showing two.
final class PushDispatcher {
    let store: NotifyStore
    let events: EventWriter
    let logger: Logger
    let clock: any WallClock
    let settings: APNsSettings
    let credentials: APNsCredentials
    let client: HTTP2Client
    /// Pushes handed to the client, by notification id: the request and its attempt number.
    private var inFlight: [String: (push: APNsPush, attempt: Int)] = [:]
    /// Live Activity updates handed to the client, by order id.
    var activitiesInFlight: [String: (update: DueActivity, attempt: Int)] = [:]
    /// The key of an activity update's request: never a notification id ("ntf_…").
    static let activityKeyPrefix = "activity:"
    /// Accept latencies (request to APNs' 200) of the last pushes, milliseconds, for health.
    private var latencies: [Double] = []
    private var latencyIndex = 0
    static let latencySamples = 1_000
    /// How often answers are collected and due pushes sent: the longest an answer waits to be recorded.
    static let tickSeconds = 0.005
    /// The longest a retry that came due waits to be noticed.
    static let scanSeconds = 0.1
    private var wakeRequested = false
    private var nextScan = 0.0
    /// Randomness for retry jitter, in [0, 1); tests pass their own.
    let jitter: () -> Double
    /// Whether a due push waits for the key (health `degraded`: `push.credentials`).
    var held = false

    init(store: NotifyStore, events: EventWriter, logger: Logger, clock: any WallClock, settings: APNsSettings,
         jitter: @escaping () -> Double = { Double.random(in: 0..<1) }) {
        self.store = store
        self.events = events
        self.logger = logger
        self.clock = clock
        self.settings = settings
        self.jitter = jitter
        credentials = APNsCredentials(settings: settings)
        client = HTTP2Client(caFile: settings.caFile, timeoutSeconds: settings.timeoutSeconds)
        if let problem = credentials.problem, settings.keyFile != nil { logger.error("APNs key unusable; pushes wait", ["reason": problem]) }
    }

    deinit { client.stop() }

    /// Records the answers that came in, then sends what is due. Runs on the reactor's timer.
    func tick() throws {
        let responses = client.takeResponses()
        for response in responses {
            if response.key.hasPrefix(Self.activityKeyPrefix) { try recordActivity(response) } else { try record(response) }
        }
        // SQLite is asked for due pushes when something may have changed (a push started, an
        // answer recorded, a key read), else every `scanSeconds` for retries coming due: an idle
        // service does not query 200 times a second.
        let clockNow = Reactor.monotonic()
        guard wakeRequested || !responses.isEmpty || clockNow >= nextScan else { return }
        wakeRequested = false
        nextScan = clockNow + Self.scanSeconds
        try send()
        try sendActivities()
    }

    /// A push or an activity update was just queued (in the caller's transaction): look at the next tick.
    func wake() { wakeRequested = true }

    /// SIGHUP: read the key file again; held pushes go out at the next tick when it loads.
    func reloadKey() {
        let loaded = credentials.reload()
        wake()
        logger.info("APNs key re-read", ["loaded": "\(loaded)", "reason": credentials.problem ?? "-"])
    }

    private func send() throws {
        let now = clock.now()
        let room = settings.maxInFlight - inFlight.count
        guard room > 0 else { return }
        let due = try store.duePushes(now: now, limit: room, excluding: Set(inFlight.keys))
        var sendable: [(DuePush, APNsDestination)] = []
        for item in due {
            let note = item.notification
            let registration = try store.registration(note.deviceId)
            // The expiry, the grant and the token are checked at every attempt, key or no key: an
            // App Clip's 8 hours may end while a push waits, and a device may have registered
            // another channel since.
            if now >= item.expiresAt {
                try events.write { try store.recordPush(note.notificationId, state: .expired, attempts: item.attempts, nextAt: nil, status: nil, reason: "expired", at: now) }
                continue
            }
            guard let destination = registration?.apns else {
                try events.write { try store.recordPush(note.notificationId, state: .failed, attempts: item.attempts, nextAt: nil, status: nil, reason: "channel.changed", at: now) }
                continue
            }
            if let refusal = DeliveryPolicy.refusal(registration, now: now) {
                let state: PushState = refusal == UndeliverableReason.tokenUnregistered ? .retired : .expired
                try events.write { try store.recordPush(note.notificationId, state: state, attempts: item.attempts, nextAt: nil, status: nil, reason: refusal, at: now) }
                continue
            }
            sendable.append((item, destination))
        }
        guard !sendable.isEmpty else {
            held = false
            return
        }
        guard let bearer = credentials.bearer(now: now) else {
            held = true
            return
        }
        held = false
        var requests: [HTTP2Request] = []
        for (item, destination) in sendable {
            let push = APNsPush(item.notification, destination: destination)
            inFlight[push.notificationId] = (push, item.attempts + 1)
            requests.append(HTTP2Request(key: push.notificationId, url: settings.baseURL(destination.environment) + push.path,
                                         headers: push.headers(bearer: bearer), body: push.payload))
        }
        client.submit(requests)
    }

    private func record(_ response: HTTP2Response) throws {
        guard let (push, attempt) = inFlight.removeValue(forKey: response.key) else { return }
        let now = clock.now()
        let outcome = response.failure.map { APNsOutcome.transient(reason: $0) } ?? APNsOutcome.classify(status: response.status, body: response.body)
        guard let stored = try store.registration(push.deviceId), let expiresMs = try store.pushExpiry(push.notificationId) else { return }
        let decision = PushRetryPolicy.decide(outcome, attempts: attempt, expiresAt: Timestamp(milliseconds: expiresMs), registeredAt: stored.launchedAt,
                                              now: now, jitter: jitter(), base: settings.retryBaseSeconds)
        let status = response.status == 0 ? nil : response.status
        let reason = Self.reason(outcome)
        var fields: [String: String] = ["notification.id": push.notificationId, "device.id": push.deviceId, "apns.id": push.apnsId,
                                        "attempt": "\(attempt)", "status": "\(response.status)", "reason": reason]
        try events.write {
            switch decision {
            case .delivered:
                try store.recordPush(push.notificationId, state: .delivered, attempts: attempt, nextAt: nil, status: status, reason: nil, at: now)
            case .retire(let since):
                try store.retireToken(deviceId: push.deviceId, since: since)
                try store.recordPush(push.notificationId, state: .retired, attempts: attempt, nextAt: nil, status: status, reason: reason, at: now)
            case .retry(let at):
                try store.recordPush(push.notificationId, state: .pending, attempts: attempt, nextAt: at, status: status, reason: reason, at: now)
            case .backOffDevice(let until):
                try store.recordPush(push.notificationId, state: .pending, attempts: attempt, nextAt: until, status: status, reason: reason, at: now)
                try store.deferPushes(deviceId: push.deviceId, until: until)
            case .hold:
                // Not an attempt that counts: the push waits, unchanged, for a key APNs accepts.
                try store.recordPush(push.notificationId, state: .pending, attempts: attempt - 1, nextAt: now, status: status, reason: reason, at: now)
            case .expired:
                try store.recordPush(push.notificationId, state: .expired, attempts: attempt, nextAt: nil, status: status, reason: reason, at: now)
            case .failed(let why):
                try store.recordPush(push.notificationId, state: .failed, attempts: attempt, nextAt: nil, status: status, reason: why, at: now)
            }
        }
        switch outcome {
        case .accepted:
            sample(response.seconds * 1_000)
            logger.debug("push accepted", fields)
        case .credentials(let why):
            credentials.refused(why)
            logger.error("APNs refused the key; pushes wait for SIGHUP with a good key", fields)
        case .tokenExpired:
            credentials.renew()
        default:
            fields["decision"] = "\(decision)"
            logger.info("push not accepted", fields)
        }
    }

    static func reason(_ outcome: APNsOutcome) -> String {
        switch outcome {
        case .accepted: ""
        case .unregistered: "Unregistered"
        case .credentials(let reason), .throttled(let reason), .transient(let reason): reason
        case .tokenExpired: "ExpiredProviderToken"
        case .payloadTooLarge: "PayloadTooLarge"
        case .refused(_, let reason): reason
        }
    }

    func sample(_ milliseconds: Double) {
        if latencies.count < Self.latencySamples {
            latencies.append(milliseconds)
        } else {
            latencies[latencyIndex] = milliseconds
        }
        latencyIndex = (latencyIndex + 1) % Self.latencySamples
    }

    /// Health: the counts by state, the attempts, connections opened and the accept latency.
    func healthDetails() -> [String: String] {
        var details = store.pushCounts().merging(store.activityCounts()) { a, _ in a }
        let sorted = latencies.sorted()
        func percentile(_ p: Double) -> String {
            sorted.isEmpty ? "-" : String(format: "%.1f", sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))])
        }
        details["push.inFlight"] = "\(inFlight.count)"
        details["push.connections"] = "\(client.connectionsOpened)"
        details["push.acceptP50Ms"] = percentile(0.5)
        details["push.acceptP99Ms"] = percentile(0.99)
        details["push.credentials"] = credentials.problem ?? "ok"
        return details
    }
}
