import Foundation
import Messages
import NotifyCore
import ServiceRuntime

/// Live Activity updates (`apns-push-type: liveactivity`) through the same client, key and
/// outcome rules as alerts: one row per order holds its newest update, sent with a stable
/// `apns-id` per timestamp; an answer for an update a newer one replaced changes nothing.
extension PushDispatcher {
    func sendActivities() throws {
        let now = clock.now()
        let room = settings.maxInFlight - activitiesInFlight.count
        guard room > 0 else { return }
        let due = try store.dueActivities(now: now, limit: room, excluding: Set(activitiesInFlight.keys))
        var sendable: [DueActivity] = []
        for item in due {
            if now >= item.expiresAt {
                try events.write { try store.recordActivity(item.orderId, timestamp: item.timestamp, state: .expired, attempts: item.attempts, nextAt: nil,
                                                            status: nil, reason: "expired", at: now) }
                continue
            }
            sendable.append(item)
        }
        guard !sendable.isEmpty else { return }
        guard let bearer = credentials.bearer(now: now) else {
            held = true
            return
        }
        var requests: [HTTP2Request] = []
        for item in sendable {
            activitiesInFlight[item.orderId] = (item, item.attempts + 1)
            let headers = LiveActivityUpdate.headers(orderId: item.orderId, timestamp: item.timestamp, priority: item.priority, expiresAt: item.expiresAt,
                                                     topic: item.destination.topic, bearer: bearer)
            requests.append(HTTP2Request(key: Self.activityKeyPrefix + item.orderId, url: settings.baseURL(item.destination.environment) + "/3/device/" + item.destination.token,
                                         headers: headers, body: item.payload))
        }
        client.submit(requests)
    }

    func recordActivity(_ response: HTTP2Response) throws {
        let orderId = String(response.key.dropFirst(Self.activityKeyPrefix.count))
        guard let (item, attempt) = activitiesInFlight.removeValue(forKey: orderId) else { return }
        let now = clock.now()
        let outcome = response.failure.map { APNsOutcome.transient(reason: $0) } ?? APNsOutcome.classify(status: response.status, body: response.body)
        // The activity's token is its own: a dead one ends the activity, not the device's alerts.
        let decision = PushRetryPolicy.decide(outcome, attempts: attempt, expiresAt: item.expiresAt, registeredAt: now, now: now, jitter: jitter(),
                                              base: settings.retryBaseSeconds)
        let status = response.status == 0 ? nil : response.status
        let reason = Self.reason(outcome)
        try events.write {
            func put(_ state: PushState, _ attempts: Int, _ next: Timestamp?, _ why: String?) throws {
                try store.recordActivity(orderId, timestamp: item.timestamp, state: state, attempts: attempts, nextAt: next, status: status, reason: why, at: now)
            }
            switch decision {
            case .delivered: try put(.delivered, attempt, nil, nil)
            case .retire: try put(.retired, attempt, nil, reason)
            case .retry(let at), .backOffDevice(let at): try put(.pending, attempt, at, reason)
            case .hold: try put(.pending, attempt - 1, now, reason)
            case .expired: try put(.expired, attempt, nil, reason)
            case .failed(let why): try put(.failed, attempt, nil, why)
            }
        }
        switch outcome {
        case .accepted: sample(response.seconds * 1_000)
        case .credentials(let why): credentials.refused(why)
        case .tokenExpired: credentials.renew()
        default: logger.info("live activity update not accepted", ["order.id": orderId, "status": "\(response.status)", "reason": reason])
        }
    }
}
