import Foundation
import Messages
import Policy
import ServiceRuntime
import Testing

/// The stream owner rule (issue 13): an event is applied only from the service its stream belongs to.
@Suite("Stream owners")
struct StreamOwnersTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let topic: String
        let type: EventType
        let stream: String
        let source: String
        let admitted: Bool
        var testDescription: String { "\(type.rawValue) on \(stream) from \(source) via \(topic)" }
    }

    /// Plain mode: the name alone decides.
    static let plainCases: [Case] = [
        Case(topic: "order.placed.macs.", type: .orderPlaced, stream: "order", source: "order-service", admitted: true),
        Case(topic: "order.placed.macs.", type: .orderPlaced, stream: "order", source: "order-service-a", admitted: true),
        Case(topic: "kitchen.ready.macs.", type: .kitchenReady, stream: "kitchen", source: "kitchen-display", admitted: true),
        Case(topic: "region.event.campus.", type: .regionEvent, stream: "region", source: "region-monitor-s1", admitted: true),
        Case(topic: "sighting.s0.", type: .sightingReported, stream: "sighting", source: "beacon-ingest-s0", admitted: true),
        Case(topic: "device.s1.", type: .deviceStatus, stream: "device", source: "beacon-ingest", admitted: true),
        Case(topic: "notify.delivery.d1.", type: .notifyDelivery, stream: "notify", source: "notification-service", admitted: true),
        // Another service, or nobody, publishing a stream that is not theirs.
        Case(topic: "kitchen.ready.macs.", type: .kitchenReady, stream: "kitchen", source: "mallory", admitted: false),
        Case(topic: "kitchen.ready.macs.", type: .kitchenReady, stream: "kitchen", source: "order-service", admitted: false),
        Case(topic: "order.ready.macs.", type: .orderReady, stream: "order", source: "kitchen-display", admitted: false),
        Case(topic: "order.ready.macs.", type: .orderReady, stream: "order", source: "order-servicex", admitted: false),
        Case(topic: "region.event.campus.", type: .regionEvent, stream: "region", source: "beacon-ingest", admitted: false),
        // A type on a stream that does not carry it, or a topic of another stream.
        Case(topic: "kitchen.ready.macs.", type: .orderReady, stream: "kitchen", source: "kitchen-display", admitted: false),
        Case(topic: "order.ready.macs.", type: .kitchenReady, stream: "kitchen", source: "kitchen-display", admitted: false),
        Case(topic: "order.ready.macs.", type: .orderReady, stream: "kitchen", source: "order-service", admitted: false),
        // Heartbeats and dead letters: any service, nobody else.
        Case(topic: "heartbeat.kitchen-display.", type: .heartbeat, stream: "heartbeat", source: "kitchen-display", admitted: true),
        Case(topic: "heartbeat.mallory.", type: .heartbeat, stream: "heartbeat", source: "mallory", admitted: false),
        Case(topic: "deadletter.bus.", type: .deadLetter, stream: "deadletter", source: "bus", admitted: true),
    ]

    static func envelope(_ c: Case) -> Envelope {
        let body: EventBody
        switch c.type {
        case .heartbeat: body = .heartbeat(Heartbeat(service: StreamOwners.plainService(of: c.source) ?? c.source, streams: [:], replayEndpoint: "tcp://127.0.0.1:1"))
        case .deadLetter: body = .deadLetter(DeadLetter(service: c.source, code: "c", message: "m", topic: "t", excerpt: ""))
        default: body = Samples.body(for: c.type)
        }
        return Envelope(type: c.type, source: c.source, stream: c.stream, seq: 1, time: Samples.time, body: body)
    }

    @Test("plain mode: the owning service's name or an instance of it", arguments: plainCases)
    func plain(_ c: Case) {
        let verdict = EventOrigins(serviceOf: StreamOwners.plainService(of:)).screen(topic: c.topic, envelope: Self.envelope(c))
        if case .admit = verdict { #expect(c.admitted) } else { #expect(!c.admitted, "\(verdict)") }
    }

    @Test("deployed mode: the registry's service key of that name, whatever its name says")
    func deployed() {
        // A service key named "mallory" that runs kitchen-display, and one named "kitchen-display" that runs beacon-ingest.
        let services = ["mallory": "kitchen-display", "kitchen-display": "beacon-ingest", "order-service": "order-service"]
        let origins = EventOrigins { services[$0] }
        let ready = Case(topic: "kitchen.ready.macs.", type: .kitchenReady, stream: "kitchen", source: "mallory", admitted: true)
        let readyEnvelope = Self.envelope(ready)
        #expect(origins.screen(topic: ready.topic, envelope: readyEnvelope) == .admit(readyEnvelope))
        let impostor = Case(topic: "kitchen.ready.macs.", type: .kitchenReady, stream: "kitchen", source: "kitchen-display", admitted: false)
        guard case .refuse(let error) = origins.screen(topic: impostor.topic, envelope: Self.envelope(impostor)) else {
            Issue.record("a beacon-ingest key named kitchen-display was admitted")
            return
        }
        #expect(error.code == "auth.forbidden" && error.message.contains("stream kitchen belongs to kitchen-display"), "\(error)")
        let unknown = Case(topic: "order.ready.macs.", type: .orderReady, stream: "order", source: "order-service-a", admitted: false)
        let unknownEnvelope = Self.envelope(unknown)
        #expect(origins.screen(topic: unknown.topic, envelope: unknownEnvelope) != .admit(unknownEnvelope), "no key of that name")
    }

    @Test("a heartbeat speaks for its own service's streams only, and only as that service")
    func heartbeatClaims() {
        let origins = EventOrigins(serviceOf: StreamOwners.plainService(of:))
        let claims = Heartbeat(service: "kitchen-display", streams: ["kitchen": 7, "order": 99], replayEndpoint: "tcp://127.0.0.1:1")
        let beat = Envelope(type: .heartbeat, source: "kitchen-display", stream: "heartbeat", seq: 1, time: Samples.time, body: .heartbeat(claims))
        guard case .admit(let admitted) = origins.screen(topic: "heartbeat.kitchen-display.", envelope: beat), case .heartbeat(let kept) = admitted.body else {
            Issue.record("kitchen-display's heartbeat was refused")
            return
        }
        #expect(kept.streams == ["kitchen": 7], "its claim about order-service's stream is dropped")
        var posing = claims
        posing.service = "order-service"
        let impostor = Envelope(type: .heartbeat, source: "kitchen-display", stream: "heartbeat", seq: 2, time: Samples.time, body: .heartbeat(posing))
        #expect(origins.screen(topic: "heartbeat.kitchen-display.", envelope: impostor) != .admit(impostor))
    }

    @Test("every event type has a stream, every stream but heartbeat and deadletter one owner, every owner is a service")
    func table() {
        for type in EventType.allCases {
            let stream = StreamOwners.stream(of: type)
            #expect(StreamOwners.owners[stream] != nil || StreamOwners.anyService.contains(stream), "\(type.rawValue)")
        }
        #expect(Set(StreamOwners.owners.values).isSubset(of: StreamOwners.services))
        #expect(StreamOwners.plainService(of: "region-monitor-s1") == "region-monitor")
        #expect(StreamOwners.plainService(of: "region-monitorx") == nil)
    }
}
