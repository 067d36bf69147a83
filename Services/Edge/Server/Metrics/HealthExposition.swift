import Foundation
import Messages
import Metrics

/// Turns one process's `health` reply into samples of the `/metrics` page, labelled with its
/// service and instance: each key health gives as the family it belongs to (counters as counters,
/// gauges as gauges), and every other numeric key as `cafe_health_value{key}`. A process that did
/// not answer gets `cafe_up 0` and nothing else, so it shows as down instead of vanishing.
///
/// The reply is the network's: keys and values beyond the bounds below are left out, never trusted.
public enum HealthExposition {
    /// The most details read from one reply, and the longest key and value.
    public static let maxDetails = 4_096
    public static let maxKeyLength = 200
    public static let maxValueLength = LatencyBuckets.maxEncodedLength

    /// The codes `cafe_requests_refused_total` counts; every other error is `cafe_request_errors_total`.
    static let refusalCodes: Set<String> = ["auth.forbidden", "request.rateLimited", "request.busy"]

    /// A health reply's body as a process sent it, nil when it is not one (too deep, not JSON, not health).
    public static func decode(_ body: [UInt8]) -> HealthStatus? {
        let data = Data(body)
        guard !Wire.nestsTooDeep(data) else { return nil }
        return try? JSONDecoder().decode(HealthStatus.self, from: data)
    }

    /// Adds a process that did not answer.
    public static func addDown(service: String, instance: String, to page: inout PrometheusText) {
        page.add(.up, [("service", service), ("instance", instance)], 0)
    }

    /// Adds the samples of `health`, labelled `service` and `instance` (as configured at the edge,
    /// so a series keeps its labels whether the process answers or not).
    public static func add(_ health: HealthStatus, service: String, instance: String, to page: inout PrometheusText) {
        let base = [("service", service), ("instance", instance)]
        page.add(.up, base, 1)
        page.add(.healthy, base, health.status == "ok" ? 1 : 0)
        page.add(.uptime, base, health.uptimeSeconds.isFinite ? health.uptimeSeconds : 0)
        page.add(.outboxPending, base, Double(health.outboxPending))
        for (stream, seq) in health.streams.sorted(by: { $0.key < $1.key }).prefix(64) where stream.utf8.count <= maxKeyLength {
            page.add(.streamLastSeq, base + [("stream", stream)], Double(seq))
        }
        let details = health.details.count <= maxDetails ? health.details : [:]
        for reason in (details["reasons"] ?? "").split(separator: ",").prefix(32) {
            page.add(.degraded, base + [("reason", String(reason))], 1)
        }
        for (key, value) in details.sorted(by: { $0.key < $1.key })
        where key.utf8.count <= maxKeyLength && value.utf8.count <= maxValueLength {
            if let histogram = histogram(key, value, base) {
                page.add(histogram.family, histogram.labels, histogram: histogram.buckets)
            } else if let (family, labels, number) = sample(key, value, base) {
                page.add(family, labels, number)
            }
        }
    }

    private static func histogram(_ key: String, _ value: String, _ base: [(String, String)]) -> (family: MetricFamily, labels: [(String, String)], buckets: LatencyBuckets)? {
        guard key.hasPrefix("op:") || key.hasPrefix("latency:"), let buckets = LatencyBuckets(encoded: value) else { return nil }
        switch key {
        case "latency:sighting.regionEvent": return (.sightingLatency, base, buckets)
        case "latency:order.notification": return (.orderLatency, base, buckets)
        default:
            let parts = key.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0] == "op", parts[2] == "latency" else { return nil }
            return (.latency, base + [("op", String(parts[1]))], buckets)
        }
    }

    /// The family, labels and value of one numeric detail; nil for text and for keys shown otherwise.
    static func sample(_ key: String, _ value: String, _ base: [(String, String)]) -> (MetricFamily, [(String, String)], Double)? {
        if let state = stateSample(key, value, base) { return state }
        guard let number = Double(value), number.isFinite else { return nil }
        if let exact = exact[key] { return (exact.0, base + exact.1, exact.2.map { number * $0 } ?? number) }
        let parts = key.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        if parts.count >= 3, parts[0] == "op" {
            if parts[2] == "requests", parts.count == 3 { return (.requests, base + [("op", parts[1])], number) }
            if parts[2] == "error", parts.count == 4 {
                return (refusalCodes.contains(parts[3]) ? .refused : .errors, base + [("op", parts[1]), ("code", parts[3])], number)
            }
            return nil
        }
        for (prefix, suffix, family, label) in patterns where key.hasPrefix(prefix) && key.hasSuffix(suffix) && key.count > prefix.count + suffix.count {
            let middle = String(key.dropFirst(prefix.count).dropLast(suffix.count))
            return (family, base + label(middle), number)
        }
        if key == "endpoint" || key.hasPrefix("bus.") || key == "shard" || key == "shards" { return nil }
        return (.other, base + [("key", key)], number)
    }

    /// Keys whose value is a word, not a number: the kitchen's links, push credentials, circuits.
    private static func stateSample(_ key: String, _ value: String, _ base: [(String, String)]) -> (MetricFamily, [(String, String)], Double)? {
        switch key {
        case "link.bus", "link.orderService":
            return (.kitchenLink, base + [("link", String(key.dropFirst(5))), ("state", value)], 1)
        case "push.credentials":
            return (.pushCredentials, base, value == "ok" ? 1 : 0)
        default:
            if key.hasPrefix("webhook."), key.hasSuffix(".circuit") {
                return (.webhookOpen, base + [("endpoint", String(key.dropFirst(8).dropLast(8)))], value == "open" ? 1 : 0)
            }
            return nil
        }
    }

    /// Keys with one meaning everywhere: the family, extra labels, and a factor (µs → s).
    private static let exact: [String: (MetricFamily, [(String, String)], Double?)] = [
        "process.cpuMicros": (.cpu, [], 1e-6), "process.residentBytes": (.resident, [], nil),
        "db.bytes": (.database, [], nil), "db.walBytes": (.wal, [], nil), "fs.bytes": (.fsSize, [], nil), "fs.availableBytes": (.fsAvailable, [], nil),
        "deadLettered": (.deadLetters, [], nil), "auth.refused": (.authRefused, [], nil), "requests.rateLimited": (.rateLimited, [], nil),
        "events.applied": (.consumerEvents, [("outcome", "applied")], nil), "replayed": (.consumerEvents, [("outcome", "replayed")], nil),
        "duplicates": (.consumerEvents, [("outcome", "duplicate")], nil), "events.deduplicated": (.consumerEvents, [("outcome", "deduplicated")], nil),
        "events.refused": (.consumerEvents, [("outcome", "refused")], nil), "events.seqCollisions": (.consumerEvents, [("outcome", "seqCollision")], nil),
        "events.seqCollisionsRecovered": (.consumerEvents, [("outcome", "seqCollisionRecovered")], nil),
        "zap.accepted": (.zap, [("result", "accepted")], nil), "zap.refused": (.zap, [("result", "refused")], nil),
        "replay.served": (.replays, [("outcome", "served")], nil), "replay.busy": (.replays, [("outcome", "busy")], nil),
        "sightings.consumed": (.sightings, [("outcome", "consumed")], nil), "sightings.refused": (.sightings, [("outcome", "refused")], nil),
        "sightings.unwatched": (.sightings, [("outcome", "unwatched")], nil),
        "fixes.consumed": (.fixes, [("outcome", "consumed")], nil), "fixes.refused": (.fixes, [("outcome", "refused")], nil),
        "fixes.forbidden": (.fixes, [("outcome", "forbidden")], nil), "fixes.dropped": (.fixes, [("outcome", "dropped")], nil),
        "published.bestEffort": (.published, [], nil), "devices.tracked": (.devices, [], nil), "devices.smoothing": (.devices, [], nil),
        "orders.open": (.ordersOpen, [], nil), "tickets.open": (.ticketsOpen, [], nil),
        "notifications.held": (.notifications, [("state", "held")], nil), "notifications.delivered": (.notifications, [("state", "delivered")], nil),
        "notifications.undeliverable": (.notifications, [("state", "undeliverable")], nil),
        "push.sent": (.pushAttempts, [("kind", "sent")], nil), "push.retried": (.pushAttempts, [("kind", "retried")], nil),
        "push.inFlight": (.other, [("key", "push.inFlight")], nil), "push.connections": (.other, [("key", "push.connections")], nil),
        "push.acceptP50Ms": (.other, [("key", "push.acceptP50Ms")], nil), "push.acceptP99Ms": (.other, [("key", "push.acceptP99Ms")], nil),
        "forwarded": (.busForwarded, [], nil), "subscriptions.held": (.busSubscriptions, [], nil),
        "refused.publications": (.busRefused, [("kind", "publication"), ("reason", "all")], nil),
        "refused.subscriptions": (.busRefused, [("kind", "subscription"), ("reason", "all")], nil),
        "limits.refused.token": (.edgeLimited, [("by", "token")], nil), "limits.refused.address": (.edgeLimited, [("by", "address")], nil),
        "streams.opened": (.streamsOpened, [], nil),
        "streams.published": (.streamEvents, [("outcome", "published")], nil), "streams.dropped": (.streamEvents, [("outcome", "dropped")], nil),
    ]

    /// Families of keys with a name inside: prefix, suffix, family, and the labels of the middle.
    private static let patterns: [(String, String, MetricFamily, @Sendable (String) -> [(String, String)])] = [
        ("cursor.", "", .cursor, publisherStream),
        ("lag.", ".events", .lagEvents, publisherStream),
        ("lag.", ".seconds", .lagSeconds, publisherStream),
        ("heartbeat.", ".ageSeconds", .heartbeatAge, { [("publisher", $0)] }),
        ("shed.", "", .shed, { [("publisher", $0)] }),
        ("refused.publications.", "", .busRefused, { [("kind", "publication"), ("reason", $0)] }),
        ("refused.subscriptions.", "", .busRefused, { [("kind", "subscription"), ("reason", $0)] }),
        ("http.", "", .http, { [("code", $0)] }),
        ("push.", "", .pushes, { [("channel", "apns"), ("state", $0)] }),
        ("activity.", "", .pushes, { [("channel", "liveActivity"), ("state", $0)] }),
        ("forward.", ".inFlight", .forwardInFlight, { [("target", $0)] }),
        ("forward.", ".timedOut", .forwardFailures, { [("target", $0), ("outcome", "timedOut")] }),
        ("forward.", ".unavailable", .forwardFailures, { [("target", $0), ("outcome", "unavailable")] }),
        ("forward.", ".shed", .forwardFailures, { [("target", $0), ("outcome", "shed")] }),
    ]

    /// "order-service/order" → publisher and stream labels.
    private static func publisherStream(_ key: String) -> [(String, String)] {
        guard let slash = key.lastIndex(of: "/") else { return [("publisher", key), ("stream", "")] }
        return [("publisher", String(key[..<slash])), ("stream", String(key[key.index(after: slash)...]))]
    }
}
