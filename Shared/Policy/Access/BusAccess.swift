import Messages

/// What a key may do on the bus in deployed mode (issue 13): the bus checks every publication and
/// every subscription against these rules, with the principal its connection authenticated as.
///
/// - Publish: only a `service` key, and only envelopes whose `source` is that key's own name.
///   Heartbeats and dead letters are publications like any other.
/// - Subscribe: services and operators to anything; a phone only to topics of its own device's
///   notifications (`notify.delivery.<its device>.`, or a longer prefix of it); the HTTP edge's
///   key to the streams it follows for its SSE clients (`order.`, `notify.`, and the heartbeats
///   that tell it what to catch up on), or longer prefixes of them; no other role.
///
/// Which streams a service may publish is the consumers' check (`StreamOwners`), not the bus's.
public enum BusAccess {
    /// Why the bus dropped a publication; the raw value names its health counter
    /// (`refused.publications.<reason>`).
    public enum PublicationRefusal: String, Sendable, CaseIterable {
        /// The connection's key is not (or no longer) in the key registry.
        case unknownKey
        /// The key is not a service key: phones, kiosks, kitchens, gateways and operators never publish.
        case notService
        /// The envelope's `source` is not the publishing key's name.
        case sourceMismatch
        /// Not `[topic][envelope]`, or no single readable `source` in the envelope.
        case malformed
    }

    /// Why `principal` may not publish an envelope whose `source` reads `source` (nil: unreadable);
    /// nil when it may. `principal` nil: the key is not in the registry.
    public static func publicationRefusal(principal: Principal?, source: String?) -> PublicationRefusal? {
        guard let principal else { return .unknownKey }
        guard principal.role == .service else { return .notService }
        guard let source else { return .malformed }
        return source == principal.name ? nil : .sourceMismatch
    }

    /// The dead letter's message for a refusal.
    public static func explanation(_ refusal: PublicationRefusal, principal: String?, role: Role?, source: String?) -> String {
        let who = principal.map { "\($0) (\(role?.rawValue ?? "unknown role"))" } ?? "a key not in the registry"
        switch refusal {
        case .unknownKey: return "\(who) may not publish: the key this connection authenticated with is no longer in the campus key registry"
        case .notService: return "\(who) may not publish: only service keys publish on the bus"
        case .sourceMismatch: return "\(who) may not publish as source \(Quoting.quoted(source ?? "")): a service publishes only under its own name"
        case .malformed: return "\(who) sent a message without one readable envelope source: expected [topic][envelope] with a string source"
        }
    }

    /// What the edge's key may subscribe to: order events and notifications for its clients'
    /// streams, kitchen and 86 events for the café screens, and heartbeats, whose stream positions
    /// its consumer catches up on.
    public static let edgePrefixes: [[UInt8]] = ["order.", "notify.", "kitchen.", "menu.", "heartbeat."].map { Array($0.utf8) }

    /// Whether `principal` may subscribe to topics starting with `prefix` (the raw bytes of the
    /// subscription, which need not be UTF-8).
    public static func maySubscribe(_ principal: Principal, to prefix: some Collection<UInt8>) -> Bool {
        switch principal.role {
        case .service, .operator:
            return true
        case .phone:
            // A device id with a dot is no topic part: its prefix would match another device's topics.
            guard let device = principal.deviceId, device.isTopicPart else { return false }
            let own = Array(Topic.notifyDelivery(device: device).utf8)
            return prefix.count >= own.count && prefix.starts(with: own)
        case .edge:
            return edgePrefixes.contains { own in prefix.count >= own.count && prefix.starts(with: own) }
        case .kiosk, .kitchen, .gateway:
            return false
        }
    }
}
