import Messages

/// Which service may publish each stream, and so whose events a consumer may apply (issue 13).
///
/// A consumer applies an event only from the publisher its stream belongs to. The rule has three
/// parts, all checked before anything is applied:
///
/// - the event's type belongs to its `stream` (an `order.ready` travels on `order`, never on
///   `kitchen`), and the topic's first part is that stream (`order.ready.macs.`);
/// - the stream belongs to the `source`'s service (`owners`); heartbeats and dead letters may come
///   from any service, and a heartbeat speaks for its own service only (its `service` field);
/// - who the source is: in deployed mode the key registry's principal of that name, which must be
///   a service key (the bus has already checked that the publishing connection holds that key);
///   in plain mode, nothing can tell, so the name alone: the service's name or `<service>-…`
///   (an instance: `region-monitor-s1`).
public enum StreamOwners {
    /// Every service of the platform, as `service=` scopes in the key registry name them.
    public static let services: Set<String> = ["bus", "beacon-ingest", "region-monitor", "order-service", "kitchen-display", "notification-service"]

    /// The one service that publishes each stream.
    public static let owners: [String: String] = [
        "sighting": "beacon-ingest",
        "location": "beacon-ingest",
        "device": "beacon-ingest",
        "region": "region-monitor",
        "order": "order-service",
        "menu": "order-service",
        "kitchen": "kitchen-display",
        "notify": "notification-service",
    ]

    /// Streams every service publishes (each about itself).
    public static let anyService: Set<String> = ["heartbeat", "deadletter"]

    /// The stream an event type travels on.
    public static func stream(of type: EventType) -> String {
        switch type {
        case .sightingReported, .sightingBatch: "sighting"
        case .locationFix: "location"
        case .deviceStatus: "device"
        case .regionEvent, .regionNearest, .regionPurged: "region"
        case .orderPlaced, .orderAccepted, .orderPreparing, .orderReady, .orderPickedUp, .orderCancelled, .orderNoShow, .orderArrived, .orderClaimed,
             .orderApproaching, .orderOverdue: "order"
        case .menuAvailability: "menu"
        case .kitchenStarted, .kitchenBumped, .kitchenReady, .kitchenRecalled, .kitchenPaced: "kitchen"
        case .notifyDelivery, .notifyUndeliverable: "notify"
        case .heartbeat: "heartbeat"
        case .deadLetter: "deadletter"
        }
    }

    /// Whether `service` may publish `stream`.
    public static func may(_ service: String, publish stream: String) -> Bool {
        anyService.contains(stream) ? services.contains(service) : owners[stream] == service
    }

    /// The service a source name stands for in plain mode: the service itself or an instance of it
    /// (`region-monitor-s1`); nil for any other name.
    public static func plainService(of source: String) -> String? {
        if services.contains(source) { return source }
        // Longest first, so no service name that prefixes another could take its instances.
        return services.sorted { $0.count > $1.count }.first { source.hasPrefix($0 + "-") }
    }

    /// Why a consumer must not apply an event; nil when it may. `service` is the service the
    /// source is known to run (from the key registry, or `plainService` in plain mode); nil when
    /// the source is no service at all. `heartbeatService` is a heartbeat body's `service`.
    public static func refusal(topic: String, type: EventType, stream: String, source: String, service: String?,
                               heartbeatService: String? = nil) -> String? {
        let expected = Self.stream(of: type)
        if stream != expected { return "a \(type.rawValue) event travels on stream \(expected), not \(Quoting.quoted(stream))" }
        let firstPart = topic.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        if firstPart != stream { return "a \(stream) event travels on a \(stream).… topic, not \(Quoting.quoted(topic))" }
        guard let service else { return "source \(Quoting.quoted(source)) is not a service of the platform" }
        if !may(service, publish: stream) {
            return "source \(Quoting.quoted(source)) runs \(service); stream \(stream) belongs to \(owners[stream] ?? "any service")"
        }
        if let heartbeatService, heartbeatService != service {
            return "source \(Quoting.quoted(source)) runs \(service) and may not beat for \(Quoting.quoted(heartbeatService))"
        }
        return nil
    }

    /// The streams of a heartbeat whose positions `service` may announce: its own.
    public static func ownClaims(_ heartbeat: Heartbeat, of service: String) -> [String: UInt64] {
        heartbeat.streams.filter { owners[$0.key] == service }
    }
}
