import Foundation
@testable import Messages
import SQLite
import Testing

/// What an outsider can put in a frame that used to stop a process: integers that do not fit
/// where they go, nesting deep enough to exhaust the stack, and values long enough to flood a
/// log. Each is refused where it is decoded, with a typed error naming the field, quoting at most
/// a little of what was sent.
@Suite("Hostile frames: integers in range, nesting bounded, echoes capped")
struct HostileFrameTests {
    static func nested(_ depth: Int) -> String { String(repeating: "[", count: depth) + String(repeating: "]", count: depth) }

    static func envelope(_ type: String, body: String, seq: String = "1") -> Data {
        Data(#"{"v":1,"type":"\#(type)","id":"e1","source":"intruder","stream":"s","seq":\#(seq),"time":"2026-01-01T00:00:00.000Z","body":\#(body)}"#.utf8)
    }

    static let sighting = #"{"deviceId":"d1","beacon":{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":MAJOR,"minor":2},"rssi":RSSI,"measuredPower":-59,"accuracy":1.5,"proximity":"near","observedAt":"2026-01-01T00:00:00.000Z"}"#

    static func sighting(major: String = "1", rssi: String = "-61") -> String {
        sighting.replacingOccurrences(of: "MAJOR", with: major).replacingOccurrences(of: "RSSI", with: rssi)
    }

    static func error<T>(_ decode: () throws(WireError) -> T) -> WireError? {
        do {
            _ = try decode()
            return nil
        } catch {
            return error
        }
    }

    // MARK: Item 1: integers

    @Test("replay's fromSeq beyond Int64 is request.invalidField naming body.fromSeq; Int64.max is read")
    func replayFromSeq() throws {
        func frame(_ seq: String) -> Data { Data(#"{"op":"replay","id":"c","body":{"stream":"order","fromSeq":\#(seq),"limit":3}}"#.utf8) }
        let beyond = Self.error { () throws(WireError) in try Wire.decodeRequest(frame("9223372036854775808"), body: ReplayRequest.self) }
        #expect(beyond == WireError(.invalidField, "field body.fromSeq: must be 0…9223372036854775807, not 9223372036854775808"))
        let huge = Self.error { () throws(WireError) in try Wire.decodeRequest(frame("18446744073709551616"), body: ReplayRequest.self) }
        #expect(huge?.code == .invalidField && huge?.message.hasPrefix("field body.fromSeq ") == true, "\(String(describing: huge))")
        let negative = Self.error { () throws(WireError) in try Wire.decodeRequest(frame("-1"), body: ReplayRequest.self) }
        #expect(negative?.code == .invalidField && negative?.message.contains("body.fromSeq") == true, "\(String(describing: negative))")
        #expect(try Wire.decodeRequest(frame("9223372036854775807"), body: ReplayRequest.self).body.fromSeq == UInt64(Int64.max))
    }

    @Test("a seq beyond Int64 is refused in an envelope, a heartbeat and a replay reply, naming the field")
    func sequenceNumbers() throws {
        let envelope = Self.error { () throws(WireError) in
            try Wire.decodeEnvelope(Self.envelope("heartbeat", body: #"{"service":"s","streams":{},"replayEndpoint":"tcp://x:1"}"#, seq: "9223372036854775808"))
        }
        #expect(envelope == WireError(.messageMalformed, "field seq: must be 0…9223372036854775807, not 9223372036854775808"))
        let heartbeat = Self.error { () throws(WireError) in
            try Wire.decodeEnvelope(Self.envelope("heartbeat", body: #"{"service":"s","streams":{"order":18446744073709551615},"replayEndpoint":"tcp://x:1"}"#))
        }
        #expect(heartbeat == WireError(.messageMalformed, "field body.streams: \"order\" must be 0…9223372036854775807, not 18446744073709551615"))
        let reply = Self.error { () throws(WireError) in
            try Wire.decodeReply(Data(#"{"ok":true,"body":{"stream":"order","lastSeq":9223372036854775808,"events":[]}}"#.utf8), body: ReplayReply.self)
        }
        #expect(reply?.code == .messageMalformed && reply?.message.hasPrefix("field body.lastSeq: must be 0…") == true, "\(String(describing: reply))")
    }

    @Test("beacon numbers, RSSI and measured power of a sighting event are held to their ranges on both routes")
    func sightingNumbers() throws {
        #expect(try Wire.decodeEnvelope(Self.envelope("sighting.reported", body: Self.sighting(major: "65535", rssi: "0"))).seq == 1)
        for (major, rssi, field) in [("65536", "-61", "body.beacon.major"), ("-1", "-61", "body.beacon.major"), ("1", "1", "body.rssi"), ("1", "-128", "body.rssi")] {
            let frame = Self.envelope("sighting.reported", body: Self.sighting(major: major, rssi: rssi))
            #expect(Envelope.fastDecode(frame) == nil, "the reader gives up on \(field)")
            let error = Self.error { () throws(WireError) in try Wire.decodeEnvelope(frame) }
            #expect(error?.code == .messageMalformed && error?.message.hasPrefix("field \(field): must be") == true, "\(String(describing: error))")
        }
    }

    @Test("an order event's quantity must be 1…1000: kitchen-display adds them up")
    func orderQuantity() throws {
        let line = #"{"itemId":"burger","name":"Burger","quantity":Q,"modifiers":[],"station":"grill","unitPrice":900,"lineTotal":900}"#
        let order = #"{"order":{"orderId":"o1","cafeId":"macs","cafeName":"Macs","timeZone":"UTC","currency":"USD","channel":"app","state":"placed","lines":[LINE],"total":900,"pickupStart":"2026-01-01T00:00:00.000Z","pickupEnd":"2026-01-01T00:10:00.000Z","placedAt":"2026-01-01T00:00:00.000Z","customerHere":false},"at":"2026-01-01T00:00:00.000Z"}"#
        func frame(_ quantity: String) -> Data {
            Self.envelope("order.placed", body: order.replacingOccurrences(of: "LINE", with: line.replacingOccurrences(of: "Q", with: quantity)))
        }
        #expect(throws: Never.self) { try Wire.decodeEnvelope(frame("1000")) }
        for quantity in ["0", "1001", "9223372036854775807"] {
            let error = Self.error { () throws(WireError) in try Wire.decodeEnvelope(frame(quantity)) }
            #expect(error == WireError(.messageMalformed, "field body.order.lines[0].quantity: must be 1…1000, not \(quantity)"))
        }
    }

    @Test("SQLite binds a UInt64 beyond Int64 without trapping, and compares it by value; a huge REAL reads as Int64.max")
    func sqliteBinding() throws {
        let db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE t (seq INTEGER)")
        try db.run("INSERT INTO t (seq) VALUES (?)", UInt64(Int64.max))
        #expect(try db.query("SELECT seq FROM t WHERE seq >= ?", UInt64(Int64.max) + 1).isEmpty)
        #expect(try db.query("SELECT seq FROM t WHERE seq < ?", UInt64.max).count == 1)
        #expect(try db.query("SELECT 1e300 AS big, -1e300 AS small, 2.9 AS cut").first.map { [$0.int64("big"), $0.int64("small"), $0.int64("cut")] } == [.max, .min, 2])
    }

    // MARK: Item 2: nesting

    @Test("nesting is counted outside strings only, escapes included, and refused one level past 64")
    func nestingCount() {
        #expect(!Wire.nestsTooDeep(Data(Self.nested(64).utf8)))
        #expect(Wire.nestsTooDeep(Data(Self.nested(65).utf8)))
        #expect(Wire.nestsTooDeep(Data(("{\"a\":" + Self.nested(64) + "}").utf8)))
        let inString = "[\"" + String(repeating: "[{", count: 100) + "\\\"\\\\\"]"
        #expect(!Wire.nestsTooDeep(Data(inString.utf8)), "brackets inside a string (after escaped quotes and backslashes) do not count")
        #expect(Wire.nestsTooDeep(Data(("[\"\\\\\"," + Self.nested(64) + "]").utf8)), "a string ending in an escaped backslash ends there")
        #expect(Wire.nestsTooDeep(Data(("[\"\\uabc\\\"," + Self.nested(64) + "]").utf8)), "\\u takes four bytes, a backslash among them, as Foundation delimits it")
    }

    @Test("100 000 levels are refused on every route before any parser recurses: a request, its head, an envelope, a reply")
    func deepFrames() throws {
        let deep = Self.nested(100_000)
        let request = Data(#"{"op":"health","id":"d","body":"#.utf8) + Data(deep.utf8) + Data("}".utf8)
        let refusal = "the document nests arrays and objects more than 64 levels deep"
        #expect(Self.error { () throws(WireError) in try Wire.decodeRequestHead(request) } == WireError(.invalidField, refusal))
        #expect(Self.error { () throws(WireError) in try Wire.decodeRequest(request, body: Empty.self) } == WireError(.invalidField, refusal))
        #expect(Self.error { () throws(WireError) in try Wire.decodeRequest(request, body: IngestBatch.self) } == WireError(.invalidField, refusal))
        #expect(Self.error { () throws(WireError) in try Wire.decodeEnvelope(Self.envelope("heartbeat", body: deep)) } == WireError(.messageMalformed, refusal))
        #expect(Self.error { () throws(WireError) in try Wire.decodeReply(Data(("{\"ok\":true,\"body\":" + deep + "}").utf8), body: ReplayReply.self) }
            == WireError(.messageMalformed, refusal))
        #expect(Self.error { () throws(WireError) in try Wire.decodeRequestHead(Data(Self.nested(100_000).utf8)) } == WireError(.invalidField, refusal))
    }

    // MARK: Item 6: what is quoted back

    @Test("a long value or name sent is quoted back at most 64 characters with its length, on every message that echoes one")
    func echoesCapped() throws {
        let long = String(repeating: "x", count: 100_000)
        let type = Self.error { () throws(WireError) in try Wire.decodeEnvelope(Self.envelope(long, body: "{}")) }
        #expect(type?.code == .unknownType && type?.message == "unknown event type \"\(String(repeating: "x", count: 64))…\" (100000 characters)")
        let time = Self.error { () throws(WireError) in
            try Wire.decodeEnvelope(Data(#"{"v":1,"type":"heartbeat","id":"e","source":"s","stream":"s","seq":1,"time":"\#(long)","body":{}}"#.utf8))
        }
        #expect(time?.message == "field time: not an RFC 3339 time: \(String(repeating: "x", count: 64))… (100000 characters)")
        let repeated = Self.error { () throws(WireError) in try Wire.decodeRequestHead(Data(#"{"op":"health","\#(long)":1,"\#(long)":2}"#.utf8)) }
        #expect(repeated?.code == .malformed && (repeated?.message.count ?? .max) < 200, "\(String(describing: repeated?.message.prefix(300)))")
        let kind = Self.error { () throws(WireError) in
            try Wire.decodeRequest(Data(#"{"op":"preference.set","id":"p","body":{"userId":"u","preference":{"kind":"\#(long)"}}}"#.utf8), body: PreferenceRequest.self)
        }
        #expect(kind?.code == .invalidField && (kind?.message.count ?? .max) < 300, "\(String(describing: kind?.message.prefix(300)))")
        let proximity = Self.error { () throws(WireError) in
            try Wire.decodeEnvelope(Self.envelope("sighting.reported", body: Self.sighting().replacingOccurrences(of: "\"near\"", with: "\"\(long)\"")))
        }
        #expect(proximity?.code == .messageMalformed && (proximity?.message.count ?? .max) < 300, "\(String(describing: proximity?.message.prefix(300)))")
        let key = Self.error { () throws(WireError) in
            try Wire.decodeEnvelope(Self.envelope("heartbeat", body: #"{"service":"s","streams":{"\#(long)":"x"},"replayEndpoint":"tcp://x:1"}"#))
        }
        #expect(key?.code == .messageMalformed && (key?.message.count ?? .max) < 300, "\(String(describing: key?.message.prefix(300)))")
    }
}
