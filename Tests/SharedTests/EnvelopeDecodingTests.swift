import Foundation
import Messages
import Testing
import TestSupport

@Suite("Envelope decoding")
struct EnvelopeDecodingTests {
    /// A valid envelope as a JSON object, for building broken variants.
    func validObject(_ type: EventType = .orderPlaced) throws -> [String: Any] {
        try jsonObject(Wire.encode(Samples.envelope(type)))
    }

    func decode(_ object: [String: Any]) throws(WireError) -> Envelope {
        let data: Data
        do { data = try jsonData(object) } catch { preconditionFailure("test JSON must serialize: \(error)") }
        return try Wire.decodeEnvelope(data)
    }

    @Test("every event type survives encode → decode unchanged", arguments: EventType.allCases)
    func roundTrip(_ type: EventType) throws {
        let envelope = Samples.envelope(type)
        let data = Wire.encode(envelope)
        let decoded = try Wire.decodeEnvelope(data)
        #expect(decoded == envelope)
        #expect(decoded.v == Envelope.currentVersion)
        let object = try jsonObject(data)
        #expect(object["type"] as? String == type.rawValue)
        #expect(object["time"] as? String == "2020-06-25T16:41:00.123Z")
        #expect(Set(object.keys) == ["v", "type", "id", "source", "stream", "seq", "time", "body"])
    }

    @Test("each body case is accepted by exactly the types that carry it")
    func bodyMatchesType() {
        for type in EventType.allCases {
            let decoded = try? Wire.decodeEnvelope(Wire.encode(Samples.envelope(type)))
            #expect(decoded?.type == type)
        }
        #expect(EventType.order(.ready) == .orderReady)
        #expect(OrderState.allCases.map { EventType.order($0).rawValue } == ["order.placed", "order.accepted", "order.preparing", "order.ready", "order.pickedUp", "order.cancelled", "order.noShow"])
    }

    @Test("an unknown type is .unknownType naming it")
    func unknownType() throws {
        var object = try validObject()
        object["type"] = "order.teleported"
        let error = #expect(throws: WireError.self) { try decode(object) }
        #expect(error?.code == .unknownType)
        #expect(error?.code.rawValue == "message.unknownType")
        #expect(error?.message == "unknown event type \"order.teleported\"")
    }

    @Test("a body of another type's schema is refused, naming the missing field")
    func bodyOfWrongSchema() throws {
        var object = try validObject(.orderPlaced)
        object["body"] = try jsonObject(Wire.encode(Samples.envelope(.heartbeat)))["body"]
        let error = #expect(throws: WireError.self) { try decode(object) }
        #expect(error?.code == .messageMalformed)
        #expect(error?.message == "missing field body.order")
    }

    @Test("a missing field is .messageMalformed and the message names it", arguments: [
        ("v", "missing field v"),
        ("type", "missing field type"),
        ("id", "missing field id"),
        ("source", "missing field source"),
        ("stream", "missing field stream"),
        ("seq", "missing field seq"),
        ("time", "missing field time"),
        ("body", "missing field body"),
        ("body.order", "missing field body.order"),
        ("body.at", "missing field body.at"),
        ("body.order.orderId", "missing field body.order.orderId"),
        ("body.order.lines.0.station", "missing field body.order.lines[0].station"),
    ])
    func missingField(path: String, message: String) throws {
        var object = try validObject(.orderPlaced)
        object = removing(path.split(separator: ".").map(String.init), from: object)
        let error = #expect(throws: WireError.self) { try decode(object) }
        #expect(error?.code == .messageMalformed)
        #expect(error?.message == message)
    }

    /// `object` without the field at `path` (numeric parts index arrays).
    func removing(_ path: [String], from object: [String: Any]) -> [String: Any] {
        var copy = object
        guard let head = path.first else { return copy }
        if path.count == 1 {
            copy[head] = nil
        } else if let child = copy[head] as? [String: Any] {
            copy[head] = removing(Array(path.dropFirst()), from: child)
        } else if var array = copy[head] as? [[String: Any]], let index = Int(path[1]) {
            array[index] = removing(Array(path.dropFirst(2)), from: array[index])
            copy[head] = array
        }
        return copy
    }

    @Test("a mistyped field is .messageMalformed and the message names field and type", arguments: [
        ("seq", "7" as any Sendable, "field seq must be an integer"),
        ("id", 42 as any Sendable, "field id must be a string"),
        ("time", 1_593_103_260_123 as any Sendable, "field time must be a string"),
        ("body", "order" as any Sendable, "field body must be"),
        ("v", "1" as any Sendable, "field v must be an integer"),
    ])
    func mistypedField(field: String, value: any Sendable, message: String) throws {
        var object = try validObject()
        object[field] = value
        let error = #expect(throws: WireError.self) { try decode(object) }
        #expect(error?.code == .messageMalformed)
        #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "")")
    }

    @Test("mistyped and invalid values inside the body name their path")
    func bodyFieldProblems() throws {
        var sighting = try validObject(.sightingReported)
        var body = try #require(sighting["body"] as? [String: Any])
        body["rssi"] = "-63"
        sighting["body"] = body
        #expect(throws: WireError(.messageMalformed, "field body.rssi must be an integer")) { try decode(sighting) }

        body["rssi"] = -63
        body["proximity"] = "close"
        sighting["body"] = body
        let badEnum = #expect(throws: WireError.self) { try decode(sighting) }
        #expect(badEnum?.message.hasPrefix("field body.proximity:") == true, "\(badEnum?.message ?? "")")

        var order = try validObject(.orderPlaced)
        order["time"] = "2020-02-30T00:00:00Z"
        let badTime = #expect(throws: WireError.self) { try decode(order) }
        #expect(badTime?.message == "field time: not an RFC 3339 time: 2020-02-30T00:00:00Z")

        order = try validObject(.orderPlaced)
        order["id"] = NSNull()
        #expect(throws: WireError(.messageMalformed, "field id must be a string, not null")) { try decode(order) }
    }

    @Test("a number that does not fit its field (fraction, negative for unsigned, out of range) is named", arguments: [
        ("seq", -1 as any Sendable, "seq"),
        ("seq", 1.5 as any Sendable, "seq"),
        ("body.order.total", 9.5 as any Sendable, "body.order.total"),
        ("body.order.lines.0.quantity", 1e30 as any Sendable, "body.order.lines[0].quantity"),
    ])
    func unfitNumber(path: String, value: any Sendable, field: String) throws {
        let object = setting(path, to: value, in: try validObject(.orderPlaced))
        let error = #expect(throws: WireError.self) { try decode(object) }
        #expect(error?.code == .messageMalformed)
        #expect(error?.message == "field \(field) must be a number of its type (a whole number for an integer, not negative for an unsigned one, in range)")
    }

    @Test("a version other than the current one is .unsupportedVersion", arguments: [0, 2, 99])
    func unsupportedVersion(_ version: Int) throws {
        var object = try validObject()
        object["v"] = version
        let error = #expect(throws: WireError.self) { try decode(object) }
        #expect(error?.code == .unsupportedVersion)
        #expect(error?.message == "envelope version \(version) is not supported (this build reads 1)")
    }

    @Test("a frame above the limit is .messageTooLarge before any parsing")
    func oversize() throws {
        let valid = Wire.encode(Samples.envelope(.orderPlaced))
        #expect(try Wire.decodeEnvelope(valid, maxBytes: valid.count) == Samples.envelope(.orderPlaced))
        let error = #expect(throws: WireError.self) { try Wire.decodeEnvelope(valid, maxBytes: valid.count - 1) }
        #expect(error?.code == .messageTooLarge)
        #expect(error?.message == "frame of \(valid.count) bytes exceeds the limit of \(valid.count - 1)")

        // The default limit, with garbage that would not even parse.
        let huge = Data(repeating: UInt8(ascii: "x"), count: Wire.defaultMaxFrameBytes + 1)
        #expect(throws: WireError(.messageTooLarge, "frame of \(Wire.defaultMaxFrameBytes + 1) bytes exceeds the limit of \(Wire.defaultMaxFrameBytes)")) {
            try Wire.decodeEnvelope(huge)
        }
    }

    @Test("frames that are not a JSON object are .messageMalformed", arguments: [
        "", "not json", "{", "[]", "null", "42", "\"order.placed\"", "{\"v\":1,}",
    ])
    func notJSON(_ text: String) {
        let error = #expect(throws: WireError.self) { try Wire.decodeEnvelope(frame(text)) }
        #expect(error?.code == .messageMalformed)
        #expect(error?.message.isEmpty == false)
    }

    @Test("bytes that are not UTF-8 are refused, never a crash")
    func invalidUTF8() {
        let error = #expect(throws: WireError.self) { try Wire.decodeEnvelope(Data([0x7B, 0xFF, 0xFE, 0x7D])) }
        #expect(error?.code == .messageMalformed)
    }

    @Test("WireError converts to the reply error with the same code and message")
    func serviceError() {
        let error = WireError(.unknownType, "unknown event type \"x\"")
        #expect(error.serviceError == ServiceError(code: "message.unknownType", message: "unknown event type \"x\""))
        #expect(error.description == "message.unknownType: unknown event type \"x\"")
    }
}
