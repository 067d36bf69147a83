import Foundation
import Messages
import Policy

/// A consumer's check that an event comes from the publisher its stream belongs to
/// (`StreamOwners`), before anything of it is applied, a cursor moves or a replay endpoint is
/// learnt. Deployed mode knows the source from the key registry (the bus has checked that the
/// publishing connection holds that key); plain mode only from its name.
public struct EventOrigins {
    /// The service a source runs, or nil when it is no service of the platform.
    private let serviceOf: (String) -> String?

    public init(serviceOf: @escaping (String) -> String?) {
        self.serviceOf = serviceOf
    }

    /// The rule for `security`'s mode: the registry's service key of that name (deployed), or
    /// the service's name or an instance of it (plain).
    public init(security: SocketSecurity) {
        if security.mode == .deployed, let registry = security.registry {
            self.init { source in
                guard let principal = registry.current.principal(named: source), principal.role == .service else { return nil }
                return principal.service
            }
        } else {
            self.init(serviceOf: StreamOwners.plainService(of:))
        }
    }

    /// What a consumer may use of an event.
    public enum Verdict: Equatable {
        /// Apply it (a heartbeat keeps only the streams its source may announce).
        case admit(Envelope)
        case refuse(ServiceError)
    }

    /// Checks one event that arrived on `topic`.
    public func screen(topic: String, envelope: Envelope) -> Verdict {
        let service = serviceOf(envelope.source)
        var heartbeatService: String?
        if case .heartbeat(let heartbeat) = envelope.body { heartbeatService = heartbeat.service }
        if let reason = StreamOwners.refusal(topic: topic, type: envelope.type, stream: envelope.stream, source: envelope.source,
                                             service: service, heartbeatService: heartbeatService) {
            return .refuse(ServiceError(.forbidden, reason))
        }
        guard case .heartbeat(var heartbeat) = envelope.body, let service else { return .admit(envelope) }
        let own = StreamOwners.ownClaims(heartbeat, of: service)
        if own.count == heartbeat.streams.count { return .admit(envelope) }
        heartbeat.streams = own
        var trimmed = envelope
        trimmed.body = .heartbeat(heartbeat)
        return .admit(trimmed)
    }

    /// Whether an event a publisher's `replay` returned belongs there: that source, that stream,
    /// and a type of that stream (the topic is the publisher's own record of it).
    public func fromReplay(_ event: ReplayedEvent, source: String, stream: String) -> ServiceError? {
        guard event.envelope.source == source, event.envelope.stream == stream else {
            return ServiceError(.forbidden, "replay of \(Quoting.quoted(source))/\(stream) returned an event of \(Quoting.quoted(event.envelope.source))/\(Quoting.quoted(event.envelope.stream))")
        }
        if case .refuse(let error) = screen(topic: event.topic, envelope: event.envelope) { return error }
        return nil
    }
}
