import Foundation
import Messages
import Policy
import Testing

/// What the bus lets a key publish and subscribe to (issue 13), and the one-pass reader of an
/// envelope's source it checks publications with.
@Suite("Bus access")
struct BusAccessTests {
    static let key = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"
    static func principal(_ name: String, _ role: Role, device: String? = nil) -> Principal {
        Principal(name: name, role: role, publicKey: key, service: role == .service ? "order-service" : nil,
                  deviceId: device, userId: device == nil ? nil : "u1", cafeId: role == .kiosk || role == .kitchen ? "macs" : nil)
    }

    @Test("publishing: a service key under its own name only")
    func publishing() {
        let service = Self.principal("order-service", .service)
        #expect(BusAccess.publicationRefusal(principal: service, source: "order-service") == nil)
        #expect(BusAccess.publicationRefusal(principal: service, source: "kitchen-display") == .sourceMismatch)
        #expect(BusAccess.publicationRefusal(principal: service, source: nil) == .malformed)
        #expect(BusAccess.publicationRefusal(principal: nil, source: "order-service") == .unknownKey)
        for role in [Role.phone, .kiosk, .kitchen, .gateway, .operator] {
            let p = Self.principal("someone", role, device: role == .phone ? "d1" : nil)
            #expect(BusAccess.publicationRefusal(principal: p, source: "someone") == .notService, "\(role)")
        }
    }

    @Test("subscribing: services and operators anything, a phone its own notifications, nobody else anything")
    func subscribing() {
        let phone = Self.principal("phone-1", .phone, device: "d1")
        let cases: [(Principal, String, Bool)] = [
            (Self.principal("order-service", .service), "", true),
            (Self.principal("order-service", .service), "order.", true),
            (Self.principal("operator", .operator), "", true),
            (phone, "notify.delivery.d1.", true),
            (phone, "notify.delivery.d1.extra", true),
            (phone, "notify.delivery.d1", false),
            (phone, "notify.delivery.d10.", false),
            (phone, "notify.delivery.", false),
            (phone, "notify.", false),
            (phone, "order.", false),
            (phone, "region.", false),
            (phone, "", false),
            (Self.principal("phone-dot", .phone, device: "d1.x"), "notify.delivery.d1.x.", false),
            (Self.principal("kiosk-macs", .kiosk), "order.", false),
            (Self.principal("kitchen-macs", .kitchen), "kitchen.", false),
            (Self.principal("gateway-1", .gateway), "sighting.", false),
            (Self.principal("edge", .edge), "order.", true),
            (Self.principal("edge", .edge), "order.ready.", true),
            (Self.principal("edge", .edge), "notify.", true),
            (Self.principal("edge", .edge), "heartbeat.", true),
            (Self.principal("edge", .edge), "order", false),
            (Self.principal("edge", .edge), "", false),
            (Self.principal("edge", .edge), "region.", false),
            (Self.principal("edge", .edge), "device.", false),
            (Self.principal("edge", .edge), "sighting.", false),
            (Self.principal("edge", .edge), "kitchen.", true),
            (Self.principal("edge", .edge), "menu.availability.", true),
            (Self.principal("edge", .edge), "kitchen", false),
        ]
        for (principal, prefix, allowed) in cases {
            #expect(BusAccess.maySubscribe(principal, to: Array(prefix.utf8)) == allowed, "\(principal.name) → \(prefix)")
        }
    }

    @Test("the source reader reads what a consumer's decoder reads, or nothing")
    func sourceReader() {
        let envelope = Samples.envelope(.orderPlaced, source: "order-service")
        #expect(EnvelopeSource.read(Wire.encode(envelope)) == "order-service", "body first, as our encoder writes it")
        let cases: [(String, String?)] = [
            (#"{"source":"a","body":{"source":"b"}}"#, "a"),
            (#"{"body":{"source":"b"},"v":1,"source":"a"}"#, "a"),
            (#" { "source" : "a" } "#, "a"),
            (#"{"sou\u0072ce":"a"}"#, "a"),
            (#"{"source":"a\u002db"}"#, "a-b"),
            (#"{"source":"a","source":"b"}"#, nil),
            (#"{"source":"a","sou\u0072ce":"b"}"#, nil),
            (#"{"body":{"x":1,"x":2},"source":"a"}"#, nil),
            (#"{"source":1}"#, nil),
            (#"{"source":null}"#, nil),
            (#"{"body":{}}"#, nil),
            (#"{"source":"a"} trailing"#, nil),
            (#"["source","a"]"#, nil),
            (#"{"source":"a""#, nil),
            ("", nil),
        ]
        for (frame, expected) in cases {
            #expect(EnvelopeSource.read(Data(frame.utf8)) == expected, "\(frame)")
            // Where the bus reads a source, a consumer decoding the envelope finds the same one.
            if let expected, let decoded = try? Wire.decodeEnvelope(Data(frame.utf8)) { #expect(decoded.source == expected) }
        }
        let deep = String(repeating: #"{"a":"#, count: 100) + "1" + String(repeating: "}", count: 100)
        #expect(EnvelopeSource.read(Data(#"{"source":"a","body":\#(deep)}"#.utf8)) == nil, "nested deeper than consumers read")
    }
}
