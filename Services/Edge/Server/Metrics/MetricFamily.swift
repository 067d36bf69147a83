import Metrics

/// One metric family the edge's `/metrics` page exports: its name, type and help. `all` is the
/// catalogue deploy/README.md lists and the alert rules and dashboard are held to (a test reads
/// every expression in deploy/prometheus and deploy/grafana and finds each name here).
public struct MetricFamily: Sendable, Equatable {
    public let name: String
    public let kind: PrometheusText.Kind
    public let help: String

    init(_ name: String, _ kind: PrometheusText.Kind, _ help: String) {
        self.name = name
        self.kind = kind
        self.help = help
    }

    static let up = MetricFamily("cafe_up", .gauge, "1 when the process answered health for this scrape, 0 when it did not (down, or not answering in time)")
    static let healthy = MetricFamily("cafe_healthy", .gauge, "1 when health says ok, 0 when degraded")
    static let degraded = MetricFamily("cafe_degraded", .gauge, "1 for each reason health gives for degraded")
    static let uptime = MetricFamily("cafe_uptime_seconds", .gauge, "seconds since the process started")
    static let outboxPending = MetricFamily("cafe_outbox_pending", .gauge, "events written and not yet published")
    static let streamLastSeq = MetricFamily("cafe_stream_last_seq", .gauge, "the last seq of each durable stream this process publishes")
    static let cpu = MetricFamily("cafe_process_cpu_seconds_total", .counter, "user and system CPU time used")
    static let resident = MetricFamily("cafe_process_resident_memory_bytes", .gauge, "resident memory")
    static let database = MetricFamily("cafe_database_bytes", .gauge, "the SQLite file's size")
    static let wal = MetricFamily("cafe_database_wal_bytes", .gauge, "the SQLite write-ahead log's size")
    static let fsSize = MetricFamily("cafe_filesystem_size_bytes", .gauge, "the size of the file system holding the data folder")
    static let fsAvailable = MetricFamily("cafe_filesystem_avail_bytes", .gauge, "bytes free to the service on the file system holding the data folder")
    static let requests = MetricFamily("cafe_requests_total", .counter, "requests answered, per op (other: ops this process does not answer)")
    static let refused = MetricFamily("cafe_requests_refused_total", .counter, "requests refused, per op and code (auth.forbidden, request.rateLimited, request.busy)")
    static let errors = MetricFamily("cafe_request_errors_total", .counter, "requests answered with any other error, per op and code")
    static let latency = MetricFamily("cafe_request_duration_seconds", .histogram, "time to answer a request, per op")
    static let deadLetters = MetricFamily("cafe_dead_letters_total", .counter, "messages this process could not use, sent to deadletter.<service>.")
    static let cursor = MetricFamily("cafe_consumer_cursor", .gauge, "the last seq applied of each followed publisher's stream")
    static let lagEvents = MetricFamily("cafe_consumer_lag_events", .gauge, "events a publisher announced that this consumer has not applied")
    static let lagSeconds = MetricFamily("cafe_consumer_lag_seconds", .gauge, "how long this consumer has been behind the publisher's announced seq (0 when caught up)")
    static let heartbeatAge = MetricFamily("cafe_heartbeat_age_seconds", .gauge, "seconds since this consumer last heard the publisher's heartbeat")
    static let consumerEvents = MetricFamily("cafe_consumer_events_total", .counter, "bus events by what the consumer did with them")
    static let shed = MetricFamily("cafe_shed_total", .counter, "best-effort messages from the publisher that never arrived (gaps in their numbering)")
    static let authRefused = MetricFamily("cafe_auth_refused_total", .counter, "requests refused with auth.forbidden, every op")
    static let rateLimited = MetricFamily("cafe_requests_rate_limited_total", .counter, "requests over their caller's budget, every op")
    static let zap = MetricFamily("cafe_zap_total", .counter, "CURVE handshakes by result (deployed mode)")
    static let replays = MetricFamily("cafe_replays_total", .counter, "replay requests served, or refused busy")
    static let sightings = MetricFamily("cafe_sightings_total", .counter, "sightings region-monitor consumed, refused and unwatched")
    static let fixes = MetricFamily("cafe_fixes_total", .counter, "location fixes by outcome")
    static let published = MetricFamily("cafe_published_best_effort_total", .counter, "best-effort messages beacon-ingest published (sighting batches)")
    static let devices = MetricFamily("cafe_devices_tracked", .gauge, "devices held in memory (smoothing, records)")
    static let sightingLatency = MetricFamily("cafe_sighting_to_region_event_seconds", .histogram, "from a sighting batch's publication to the region events it caused")
    static let orderLatency = MetricFamily("cafe_order_to_notification_seconds", .histogram, "from an order event's publication to the notifications it caused")
    static let ordersOpen = MetricFamily("cafe_orders_open", .gauge, "orders not yet picked up, cancelled or no-show")
    static let ticketsOpen = MetricFamily("cafe_tickets_open", .gauge, "kitchen tickets not yet bumped")
    static let kitchenLink = MetricFamily("cafe_kitchen_link", .gauge, "1 for the kitchen display's link state (up, down, connecting, catchingUp), per link (bus, orderService)")
    static let notifications = MetricFamily("cafe_notifications_stored", .gauge, "notifications held, by state")
    static let pushes = MetricFamily("cafe_pushes", .gauge, "APNs pushes held, by outcome (pending, delivered, retired, expired, …)")
    static let pushAttempts = MetricFamily("cafe_push_attempts", .gauge, "APNs push attempts of the pushes held (sent; retried)")
    static let pushCredentials = MetricFamily("cafe_push_credentials_ok", .gauge, "1 when notification-service can sign APNs pushes, 0 when due pushes wait for a key")
    static let webhookOpen = MetricFamily("cafe_webhook_circuit_open", .gauge, "1 while a webhook endpoint's circuit is open")
    static let busForwarded = MetricFamily("cafe_bus_forwarded_total", .counter, "publications the bus forwarded")
    static let busRefused = MetricFamily("cafe_bus_refused_total", .counter, "publications and subscriptions the bus refused, by kind and reason")
    static let busSubscriptions = MetricFamily("cafe_bus_subscriptions_held", .gauge, "subscriptions the bus holds for its subscribers")
    static let http = MetricFamily("cafe_http_responses_total", .counter, "HTTP answers the edge gave, by status code")
    static let forwardInFlight = MetricFamily("cafe_edge_forward_in_flight", .gauge, "requests the edge forwarded that wait for the service")
    static let forwardFailures = MetricFamily("cafe_edge_forward_failures_total", .counter, "forwarded requests that timed out, found the service unavailable, or were shed")
    static let edgeLimited = MetricFamily("cafe_edge_rate_limited_total", .counter, "HTTP requests over a token's or an address's rate")
    static let streamsOpened = MetricFamily("cafe_edge_streams_opened_total", .counter, "SSE streams the edge opened for Pushpin to hold")
    static let streamEvents = MetricFamily("cafe_edge_stream_events_total", .counter, "bus events the edge published to held streams, or dropped")
    static let other = MetricFamily("cafe_health_value", .gauge, "every other numeric figure of health, by its key, as health gives it")
    static let scrape = MetricFamily("cafe_scrape_duration_seconds", .gauge, "how long the edge took to ask every process for this page")

    /// Every family the page may hold.
    public static let all: [MetricFamily] = [
        up, healthy, degraded, uptime, outboxPending, streamLastSeq, cpu, resident, database, wal, fsSize, fsAvailable, requests, refused,
        errors, latency, deadLetters, cursor, lagEvents, lagSeconds, heartbeatAge, consumerEvents, shed, authRefused, rateLimited, zap,
        replays, sightings, fixes, published, devices, sightingLatency, orderLatency, ordersOpen, ticketsOpen, kitchenLink, notifications,
        pushes, pushAttempts, pushCredentials, webhookOpen, busForwarded, busRefused, busSubscriptions, http, forwardInFlight, forwardFailures,
        edgeLimited, streamsOpened, streamEvents, other, scrape,
    ]

    /// The names a query may use: each family's, and a histogram's `_bucket`, `_sum` and `_count`.
    public static var exportedNames: Set<String> {
        Set(all.flatMap { $0.kind == .histogram ? [$0.name + "_bucket", $0.name + "_sum", $0.name + "_count"] : [$0.name] })
    }
}

extension PrometheusText {
    /// Adds one sample of `family`.
    mutating func add(_ family: MetricFamily, _ labels: [(String, String)], _ value: Double) {
        add(family.name, family.kind, help: family.help, labels: labels, value: value)
    }

    /// Adds one histogram of `family`.
    mutating func add(_ family: MetricFamily, _ labels: [(String, String)], histogram: LatencyBuckets) {
        add(family.name, help: family.help, labels: labels, histogram: histogram)
    }
}
