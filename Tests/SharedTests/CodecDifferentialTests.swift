import Foundation
@testable import Messages
import Testing

/// Every hand-written reader (`FastJSONDecodable`) against Foundation's route, on one table of
/// valid and invalid frames: the service's route must give the same value as Foundation's or the
/// same error code, and whatever a reader reads must be exactly what Foundation's route reads.
@Suite("Codec differential: every fast reader agrees with Foundation's route")
struct CodecDifferentialTests {
    /// What the table says of a frame, for the route it was written for.
    enum Expect: Sendable {
        /// The hand-written reader reads it.
        case fast
        /// The reader gives up; Foundation's route reads it.
        case foundation
        /// Both routes refuse it.
        case refused
        /// A member name is given twice: refused on every route, the request's head included.
        case repeated
    }

    enum Kind: String, Sendable { case report, batch, envelope, regionEvent, nearest, status, order, kitchen, paced, notification, reserve, place, bump }

    struct Row: Sendable, CustomTestStringConvertible {
        let label: String
        let kind: Kind
        let text: String
        let expect: Expect
        var testDescription: String { "\(kind.rawValue): \(label)" }
    }

    static let uuid = "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30"
    static let sighting = #"{"uuid":"UUID","major":1,"minor":2,"rssi":-61,"measuredPower":-59,"timestamp":"2026-01-01T00:00:00.000Z","proximity":"near","accuracy":1.5}"#
    static let fix = #"{"latitude":37.3349,"longitude":-122.009,"horizontalAccuracy":12.5,"precise":true,"timestamp":"2026-01-01T00:00:00.000Z"}"#
    static let status = #"{"authorization":"whenInUse","foreground":true,"precise":true,"monitoringAvailable":true,"rangingAvailable":true}"#
    static let report = #"{"deviceId":"phone-1","status":STATUS,"sightings":[SIGHTING],"fixes":[FIX]}"#
    static let envelope = #"{"body":{"accuracy":1.41,"beacon":{"major":1,"minor":2,"uuid":"UUID"},"deviceId":"phone-1","measuredPower":-59,"observedAt":"2026-01-01T00:00:00.000Z","proximity":"near","rssi":-61},"id":"e1","seq":7,"source":"beacon-ingest","stream":"sighting","time":"2026-01-01T00:00:00.000Z","type":"sighting.reported","v":1}"#

    static let date = "2026-01-01T00:00:00.000Z"
    static let head = #","id":"e1","seq":7,"source":"SOURCE","stream":"STREAM","time":"2026-01-01T00:00:00.000Z","type":"TYPE","v":1}"#
    static func envelope(_ body: String, type: String, source: String, stream: String) -> String {
        #"{"body":"# + body + head.replacingOccurrences(of: "SOURCE", with: source).replacingOccurrences(of: "STREAM", with: stream)
            .replacingOccurrences(of: "TYPE", with: type)
    }
    static let regionEvent = envelope(#"{"date":"\#(date)","deviceId":"phone-1","flags":[],"identifier":"caffe-macs","monitor":"campus","refinement":{"major":1,"minor":2,"uuid":"UUID"},"state":"satisfied"}"#,
                                      type: "region.event", source: "region-monitor", stream: "region")
    static let nearest = envelope(#"{"beacon":{"major":1,"minor":2,"uuid":"UUID"},"date":"\#(date)","deviceId":"phone-1","proximity":"near"}"#,
                                  type: "region.nearest", source: "region-monitor", stream: "region")
    static let statusEnvelope = envelope(#"{"authorization":"always","changedAt":"\#(date)","deviceId":"phone-1","foreground":false,"monitoringAvailable":true,"precise":true,"rangingAvailable":true}"#,
                                 type: "device.status", source: "beacon-ingest", stream: "device")

    // The order flow's bodies (`Envelope+OrderBodies`), "D" standing for a time.
    static let orderEvent = envelope(#"{"at":"D","order":{"cafeId":"caffe-macs","cafeName":"Caff\u00e8 Macs","channel":"app","currency":"USD","customerHere":false,"deviceId":"phone-1","lines":[{"itemId":"latte","lineTotal":950,"modifiers":["oat-milk"],"name":"Latte","prepSeconds":240,"quantity":2,"station":"coffee","unitPrice":475}],"orderId":"ord-1","pickupEnd":"D","pickupStart":"D","placedAt":"D","state":"placed","timeZone":"America/Los_Angeles","total":950,"userId":"ann"}}"#,
                                     type: "order.placed", source: "order-service", stream: "order")
    static let kitchenEvent = envelope(#"{"at":"D","cafeId":"caffe-macs","orderId":"ord-1","station":"coffee","ticketId":"ord-1:coffee"}"#,
                                       type: "kitchen.bumped", source: "kitchen-display", stream: "kitchen")
    static let pacedEvent = envelope(#"{"at":"D","cafeId":"caffe-macs","fires":[{"fireAt":"D","station":"coffee","ticketId":"ord-1:coffee"}],"orderId":"ord-1","reason":"window","target":"D"}"#,
                                     type: "kitchen.paced", source: "kitchen-display", stream: "kitchen")
    static let notificationEvent = envelope(#"{"body":"Pick it up","collapseId":"ord-1","createdAt":"D","deviceId":"phone-1","kind":"orderReady","language":"en","notificationId":"n1","orderId":"ord-1","title":"Ready"}"#,
                                            type: "notify.delivery", source: "notification-service", stream: "notify")

    // The order flow's requests.
    static let reserveRequest = #"{"op":"window.reserve","id":"q1","body":{"cafeId":"caffe-macs","start":"D","userId":"ann","locale":"en_US"}}"#
    static let placeRequest = #"{"op":"order.place","id":"q2","body":{"idempotencyKey":"key-0001","channel":"app","userId":"ann","deviceId":"phone-1","cafeId":"caffe-macs","reservationId":"res-1","items":[{"itemId":"latte","quantity":2,"modifiers":["oat-milk"]}],"paymentToken":"tok_4242","locale":"en_US"}}"#
    static let bumpRequest = #"{"op":"kds.bump","id":"q3","body":{"ticketId":"ord-1:coffee"}}"#

    /// The template of `kind` with `replace` applied, each pattern required to be present.
    static func text(_ kind: Kind, _ replace: [(String, String)] = []) -> String {
        let body = report.replacingOccurrences(of: "STATUS", with: status).replacingOccurrences(of: "SIGHTING", with: sighting)
            .replacingOccurrences(of: "FIX", with: fix)
        var text = switch kind {
        case .report: #"{"op":"ingest.report","id":"r1","body":"# + body + "}"
        case .batch: #"{"op":"ingest.batch","id":"b1","body":{"reports":["# + body + #",{"deviceId":"phone-2"}]}}"#
        case .envelope: envelope
        case .regionEvent: regionEvent
        case .nearest: nearest
        case .status: statusEnvelope
        case .order: orderEvent.replacingOccurrences(of: #""D""#, with: "\"\(date)\"")
        case .kitchen: kitchenEvent.replacingOccurrences(of: #""D""#, with: "\"\(date)\"")
        case .paced: pacedEvent.replacingOccurrences(of: #""D""#, with: "\"\(date)\"")
        case .notification: notificationEvent.replacingOccurrences(of: #""D""#, with: "\"\(date)\"")
        case .reserve: reserveRequest.replacingOccurrences(of: #""D""#, with: "\"\(date)\"")
        case .place: placeRequest
        case .bump: bumpRequest
        }
        for (old, new) in replace {
            precondition(text.contains(old), "the \(kind) template has no \(old)")
            text = text.replacingOccurrences(of: old, with: new)
        }
        return text.replacingOccurrences(of: "UUID", with: uuid)
    }

    static func row(_ label: String, _ kind: Kind, _ expect: Expect, _ replace: [(String, String)] = []) -> Row {
        Row(label: label, kind: kind, text: text(kind, replace), expect: expect)
    }

    /// Spaces, tabs, carriage returns and newlines after every token: all the whitespace JSON allows.
    static func spaced(_ text: String) -> String {
        var out = " \t"
        var inString = false, escaped = false
        for c in text {
            out.append(c)
            if inString {
                if escaped {
                    escaped = false
                } else if c == "\\" {
                    escaped = true
                } else if c == "\"" {
                    inString = false
                    out += " \r\n"
                }
            } else if c == "\"" {
                inString = true
            } else if "{}[],:".contains(c) {
                out += "\n\t "
            }
        }
        return out + "\r\n"
    }

    static func nested(_ depth: Int) -> String { String(repeating: "[", count: depth) + String(repeating: "]", count: depth) }

    /// Objects `depth` deep, each closed by a name written with an escape: skipping must stay
    /// linear however names are written (re-reading an object on meeting one would double the work
    /// per level).
    static func escapedNames(_ depth: Int) -> String {
        (0..<depth).reduce("{}") { inner, _ in #"{"a":"# + inner + #","\u0062":1}"# }
    }

    static let rows: [Row] = [
        // Valid frames the readers take.
        row("the template", .report, .fast),
        row("the template", .batch, .fast),
        row("the template", .envelope, .fast),
        Row(label: "whitespace everywhere", kind: .report, text: spaced(text(.report)), expect: .fast),
        Row(label: "whitespace everywhere", kind: .envelope, text: spaced(text(.envelope)), expect: .fast),
        row("unicode and escapes in a string", .report, .fast, [("phone-1", #"ph\u006Fne-\u00e9-\ud83d\ude00-\"q\"-\\-\/"#)]),
        row("text beyond ASCII", .report, .fast, [("phone-1", "gr\u{00FC}\u{00DF}e-\u{1F600}")]),
        row("an escaped member name", .report, .fast, [(#""deviceId""#, #""\u0064eviceId""#)]),
        row("unknown members at every level", .report, .fast, [(#""id":"r1""#, #""id":"r1","extra":{"a":[1,-2.5e3,{"b":null}],"c":"x"}"#),
                                                             (#""deviceId""#, #""later":[true,false],"deviceId""#), (#""rssi""#, #""note":"","rssi""#)]),
        row("an unknown member named with a surrogate pair", .report, .fast, [(#""deviceId""#, #""\ud83d\ude00":1,"deviceId""#)]),
        row("an unknown member 60 deep", .report, .fast, [(#""deviceId""#, #""deep":"# + nested(60) + #","deviceId""#)]),
        row("objects 40 deep, each with an escaped name", .report, .fast, [(#""deviceId""#, #""deep":"# + escapedNames(40) + #","deviceId""#)]),
        row("no optional members", .report, .fast, [(#""status":"# + status + ",", ""), (#","sightings":["# + sighting + "]", ""), (#","fixes":["# + fix + "]", "")]),
        row("empty lists", .report, .fast, [("[" + sighting + "]", "[]"), ("[" + fix + "]", "[]")]),
        row("an unknown proximity, kept for the validator", .report, .fast, [(#""near""#, #""close""#)]),
        row("unknown members", .envelope, .fast, [(#""v":1"#, #""v":1,"extra":[1,{"a":null}]"#)]),
        // The body reader gives up at a member no sighting body has, so another type's body is not scanned to its end.
        row("an unknown member in the body", .envelope, .foundation, [(#""rssi":-61"#, #""rssi":-61,"more":true"#)]),
        // Valid frames the readers leave to Foundation.
        row("null optional members", .report, .foundation, [(#""id":"r1""#, #""id":null"#), (#""status":"# + status, #""status":null"#)]),
        row("whole numbers written with an exponent or a fraction", .report, .foundation, [(#""major":1"#, #""major":1e0"#), (#""rssi":-61"#, #""rssi":-61.0"#)]),
        row("a byte order mark", .report, .foundation, [(#"{"op""#, "\u{FEFF}" + #"{"op""#)]),
        row("what Foundation tolerates in a value it skips", .report, .foundation, [(#""deviceId""#, "\"junk\":[01,1.,\"tab\there\"],\"deviceId\"")]),
        // Times are read in place only when written plainly.
        row("a time written with an escape", .envelope, .foundation, [(#""time":"2026-01-01T00:00:00.000Z""#, #""time":"2026-01-01T00:00:00\u002e000Z""#)]),
        row("a sighting's time written with an escape", .envelope, .foundation,
            [(#""observedAt":"2026-01-01T00:00:00.000Z""#, #""observedAt":"2026\u002d01-01T00:00:00.000Z""#)]),
        row("another event type", .envelope, .foundation, [(#""sighting.reported""#, #""heartbeat""#), (#"{"body":{"accuracy""#, #"{"body":{"service":"s","streams":{},"replayEndpoint":"tcp://x:1","accuracy""#)]),
        // The request object, its body and 62 arrays: 64 levels, the most any frame may nest.
        row("an unknown member nested to the limit", .report, .fast, [(#""deviceId""#, #""deep":"# + nested(62) + #","deviceId""#)]),
        row("a name twice 60 deep", .report, .repeated, [(#""deviceId""#, #""deep":"# + String(repeating: "[", count: 59) + #"{"a":1,"a":2}"# + String(repeating: "]", count: 59) + #","deviceId""#)]),
        row("a sequence number at Int64.max", .envelope, .fast, [(#""seq":7"#, #""seq":9223372036854775807"#)]),
        row("a frame beyond the reader's limit", .envelope, .foundation, [(#""v":1"#, #""v":1,"pad":""# + String(repeating: "x", count: 128 * 1024) + "\"")]),
        // Foundation delimits a skipped string's \u escape as the four bytes after it, whatever they
        // are: here the quote after "\uabc\" ends the string (found by the requests fuzz target).
        row("a \\u escape taking a backslash in a skipped value", .report, .fast, [(#""deviceId""#, #""junk":"\uabc\","deviceId""#)]),
        row("a \\u escape taking a backslash in an unknown envelope member", .envelope, .fast, [(#""v":1"#, #""v":1,"junk":["\u\\\\"]"#)]),
        // Invalid frames: both routes refuse, with the same code.
        row("a \\u escape cut short by the closing quote in a skipped value", .report, .refused, [(#""deviceId""#, #""junk":"lunch-app\ud00","deviceId""#)]),
        row("a \\u escape holding a quote in a skipped value", .report, .refused, [(#""deviceId""#, #""junk":"\u1"ab","deviceId""#)]),
        row("nesting past the limit after a \\u escape taking a backslash", .report, .refused, [(#""deviceId""#, #""junk":"\uabc\","deep":"# + nested(63) + #","deviceId""#)]),
        row("a name twice after a \\u escape taking a backslash", .report, .repeated, [(#""deviceId""#, #""junk":"\uabc\","deviceId":"x","deviceId""#)]),
        row("a device id of the wrong type", .report, .refused, [(#""phone-1""#, "7")]),
        row("an rssi of the wrong type", .report, .refused, [("-61", #""loud""#)]),
        row("sightings as an object", .report, .refused, [("[" + sighting + "]", sighting)]),
        row("a boolean as text", .report, .refused, [(#""precise":true,"timestamp""#, #""precise":"true","timestamp""#)]),
        row("an unknown authorization", .report, .refused, [("whenInUse", "sometimes")]),
        row("a time that is not RFC 3339", .report, .refused, [(#""horizontalAccuracy":12.5,"precise":true,"timestamp":"2026-01-01T00:00:00.000Z""#, #""horizontalAccuracy":12.5,"precise":true,"timestamp":"yesterday""#)]),
        row("no op", .report, .refused, [(#""op":"ingest.report","#, "")]),
        row("no body", .report, .refused, [(#","body":"#, #","bodies":"#)]),
        // A phone may leave its own device out: the service takes it from its key (a gateway's batch is refused without one).
        row("no device id", .report, .fast, [(#""deviceId":"phone-1","#, "")]),
        // The principal the HTTP edge acts for, read by the head's reader and the whole request's.
        row("on behalf of a phone", .report, .fast, [(#""op":"ingest.report","#, #""op":"ingest.report","onBehalfOf":{"role":"phone","name":"s.1","userId":"ann","deviceId":"phone-1"},"#)]),
        row("on behalf of a guest, userId null", .report, .foundation, [(#""op":"ingest.report","#, #""op":"ingest.report","onBehalfOf":{"role":"phone","name":"s","userId":null,"deviceId":"phone-1"},"#)]),
        row("on behalf of, without a name", .report, .refused, [(#""op":"ingest.report","#, #""op":"ingest.report","onBehalfOf":{"role":"kiosk","cafeId":"caffe-macs"},"#)]),
        row("on behalf of, a role of the wrong type", .report, .refused, [(#""op":"ingest.report","#, #""op":"ingest.report","onBehalfOf":{"role":7,"name":"s"},"#)]),
        row("on behalf of, as text", .report, .refused, [(#""op":"ingest.report","#, #""op":"ingest.report","onBehalfOf":"phone-1","#)]),
        row("on behalf of, a name twice", .report, .repeated, [(#""op":"ingest.report","#, #""op":"ingest.report","onBehalfOf":{"role":"phone","name":"a","name":"b"},"#)]),
        row("a sighting without rssi", .report, .refused, [(#""rssi":-61,"#, "")]),
        row("a huge rssi", .report, .refused, [("-61", "1e30")]),
        row("an rssi beyond Int64", .report, .refused, [("-61", "99999999999999999999")]),
        row("a fractional major", .report, .refused, [(#""major":1"#, #""major":1.5"#)]),
        row("a latitude beyond a Double", .report, .refused, [("37.3349", "1e400")]),
        row("a lone surrogate", .report, .refused, [("phone-1", #"\ud800"#)]),
        row("an escape JSON does not have", .report, .refused, [("phone-1", #"\x"#)]),
        row("an unknown member one level past the limit", .report, .refused, [(#""deviceId""#, #""deep":"# + nested(63) + #","deviceId""#)]),
        row("an unknown member 500 deep", .report, .refused, [(#""deviceId""#, #""deep":"# + nested(500) + #","deviceId""#)]),
        row("a name twice 500 deep", .report, .refused, [(#""deviceId""#, #""deep":"# + String(repeating: "[", count: 499) + #"{"a":1,"a":2}"# + String(repeating: "]", count: 499) + #","deviceId""#)]),
        row("an unknown member 600 deep", .report, .refused, [(#""deviceId""#, #""deep":"# + nested(600) + #","deviceId""#)]),
        row("an unknown member 100 000 deep", .report, .refused, [(#""deviceId""#, #""deep":"# + nested(100_000) + #","deviceId""#)]),
        row("trailing garbage", .report, .refused, [(#"}]}}"#, #"}]}} x"#)]),
        row("a second report of the wrong type", .batch, .refused, [(#"{"deviceId":"phone-2"}"#, "7")]),
        row("an unsupported version", .envelope, .refused, [(#""v":1"#, #""v":2"#)]),
        row("an unknown event type", .envelope, .refused, [(#""sighting.reported""#, #""sighting.teleported""#)]),
        row("a negative sequence number", .envelope, .refused, [(#""seq":7"#, #""seq":-1"#)]),
        row("a sequence number beyond Int64", .envelope, .refused, [(#""seq":7"#, #""seq":9223372036854775808"#)]),
        row("a sequence number beyond UInt64", .envelope, .refused, [(#""seq":7"#, #""seq":18446744073709551616"#)]),
        row("a major beyond 16 bits", .envelope, .refused, [(#""major":1"#, #""major":65536"#)]),
        row("a negative minor", .envelope, .refused, [(#""minor":2"#, #""minor":-1"#)]),
        row("an rssi above 0", .envelope, .refused, [("-61", "1")]),
        row("a measured power of 0", .envelope, .refused, [("-59", "0")]),
        row("an envelope nested 100 000 deep", .envelope, .refused, [(#""v":1"#, #""v":1,"deep":"# + nested(100_000))]),
        row("an unknown proximity", .envelope, .refused, [(#""near""#, #""close""#)]),
        row("a huge rssi", .envelope, .refused, [("-61", "1e30")]),
        // Region events, nearest answers and device statuses: read by their type, after the body.
        row("the template", .regionEvent, .fast),
        row("the template", .nearest, .fast),
        row("the template", .status, .fast),
        Row(label: "whitespace everywhere", kind: .regionEvent, text: spaced(text(.regionEvent)), expect: .fast),
        Row(label: "whitespace everywhere", kind: .status, text: spaced(text(.status)), expect: .fast),
        row("flags", .regionEvent, .fast, [(#""flags":[]"#, #""flags":["accuracyLimited","authorizationDenied"]"#)]),
        row("no refinement", .regionEvent, .fast, [(#","refinement":{"major":1,"minor":2,"uuid":"UUID"}"#, ""), ("satisfied", "unsatisfied")]),
        row("the type before the body", .regionEvent, .fast, [(#"{"body""#, #"{"type":"region.event","body""#), (#","type":"region.event","v""#, #","v""#)]),
        row("unknown members in the body", .regionEvent, .fast, [(#""state""#, #""later":{"x":[1,2]},"state""#)]),
        row("a null refinement", .regionEvent, .foundation, [(#"{"major":1,"minor":2,"uuid":"UUID"}"#, "null")]),
        row("an unknown flag", .regionEvent, .refused, [(#""flags":[]"#, #""flags":["teleported"]"#)]),
        row("an unknown state", .regionEvent, .refused, [("satisfied", "happy")]),
        row("no flags", .regionEvent, .refused, [(#""flags":[],"#, "")]),
        row("a refinement's major beyond 16 bits", .regionEvent, .refused, [(#""major":1"#, #""major":65536"#)]),
        row("a region event's body named a nearest answer", .regionEvent, .fast, [(#""type":"region.event""#, #""type":"region.nearest""#)]),
        row("a nearest answer's body named a region event", .nearest, .refused, [(#""type":"region.nearest""#, #""type":"region.event""#)]),
        row("a cleared answer with candidates", .nearest, .fast, [(#""beacon":{"major":1,"minor":2,"uuid":"UUID"}"#, #""candidates":["# + Array(repeating: #"{"major":1,"minor":2,"uuid":"UUID"}"#, count: 8).joined(separator: ",") + "]")]),
        row("nine candidates", .nearest, .refused, [(#""beacon":{"major":1,"minor":2,"uuid":"UUID"}"#, #""candidates":["# + Array(repeating: #"{"major":1,"minor":2,"uuid":"UUID"}"#, count: 9).joined(separator: ",") + "]")]),
        row("a null beacon", .nearest, .foundation, [(#"{"major":1,"minor":2,"uuid":"UUID"}"#, "null")]),
        row("no date", .nearest, .refused, [(#""date":"\#(date)","#, "")]),
        row("an unknown authorization", .status, .refused, [("always", "sometimes")]),
        row("a boolean as text", .status, .refused, [(#""foreground":false"#, #""foreground":"false""#)]),
        row("no change time", .status, .refused, [(#""changedAt":"\#(date)","#, "")]),
        row("a time that is not RFC 3339", .status, .refused, [(date + #"","deviceId""#, #"today","deviceId""#)]),
        row("a status member twice", .status, .repeated, [(#""precise":true"#, #""precise":true,"precise":false"#)]),
        row("body twice", .status, .repeated, [(#","id":"e1""#, #","body":{},"id":"e1""#)]),
        row("a region event member twice", .regionEvent, .repeated, [(#""monitor":"campus""#, #""monitor":"campus","monitor":"x""#)]),
        // The order flow's events: read by their type, after the body.
        row("the template", .order, .fast),
        row("the template", .kitchen, .fast),
        row("the template", .paced, .fast),
        row("the template", .notification, .fast),
        Row(label: "whitespace everywhere", kind: .order, text: spaced(text(.order)), expect: .fast),
        Row(label: "whitespace everywhere", kind: .paced, text: spaced(text(.paced)), expect: .fast),
        row("every optional member", .order, .fast, [(#""order":{"cafeId""#, #""order":{"approachedAt":"\#(date)","awayAt":"\#(date)","awayWalkSeconds":120,"clipCode":"https://x/c","expectedArrivalAt":"\#(date)","noShowAt":"\#(date)","overdueAt":"\#(date)","paced":true,"recalls":1,"cafeId""#),
                                                      (#"{"at""#, #"{"previous":"ready","reason":"r","at""#)]),
        row("no optional member", .order, .fast, [(#""deviceId":"phone-1","#, ""), (#","userId":"ann""#, ""), (#""prepSeconds":240,"#, "")]),
        row("no lines, no modifiers", .order, .fast, [(#"{"itemId":"latte","lineTotal":950,"modifiers":["oat-milk"],"name":"Latte","prepSeconds":240,"quantity":2,"station":"coffee","unitPrice":475}"#, "")]),
        row("unknown members in the order and a line", .order, .fast, [(#""total":950"#, #""total":950,"tip":{"a":[1]}"#), (#""quantity":2"#, #""quantity":2,"note":null"#)]),
        row("a null user", .order, .foundation, [(#""userId":"ann""#, #""userId":null"#)]),
        row("a null prep time", .order, .foundation, [(#""prepSeconds":240"#, #""prepSeconds":null"#)]),
        row("a null previous state", .order, .foundation, [(#"{"at""#, #"{"previous":null,"at""#)]),
        row("a quantity of 0", .order, .refused, [(#""quantity":2"#, #""quantity":0"#)]),
        row("a quantity past 1000", .order, .refused, [(#""quantity":2"#, #""quantity":1001"#)]),
        row("a prep time past two hours", .order, .refused, [(#""prepSeconds":240"#, #""prepSeconds":7201"#)]),
        row("a total beyond Int64", .order, .refused, [(#""total":950"#, #""total":9223372036854775808"#)]),
        row("an unknown state", .order, .refused, [(#""state":"placed""#, #""state":"eaten""#)]),
        row("an unknown channel", .order, .refused, [(#""channel":"app""#, #""channel":"fax""#)]),
        row("no lines", .order, .refused, [(#""lines":["#, #""lined":["#)]),
        row("a null modifier", .order, .refused, [(#"["oat-milk"]"#, #"["oat-milk",null]"#)]),
        row("a customer here as text", .order, .refused, [(#""customerHere":false"#, #""customerHere":"no""#)]),
        row("a line member twice", .order, .repeated, [(#""quantity":2"#, #""quantity":2,"quantity":3"#)]),
        row("an order member twice", .order, .repeated, [(#""orderId":"ord-1""#, #""orderId":"ord-1","orderId":"ord-2""#)]),
        row("a whole-order event", .kitchen, .fast, [(#","station":"coffee","ticketId":"ord-1:coffee""#, "")]),
        row("a null station", .kitchen, .foundation, [(#""station":"coffee""#, #""station":null"#)]),
        row("no café", .kitchen, .refused, [(#""cafeId":"caffe-macs","#, "")]),
        row("a kitchen member twice", .kitchen, .repeated, [(#""at":"\#(date)""#, #""at":"\#(date)","at":"\#(date)""#)]),
        row("a previous target and an arrival", .paced, .fast, [(#""reason":"window""#, #""previousTarget":"\#(date)","expectedArrival":"\#(date)","reason":"approach""#)]),
        row("no fires", .paced, .fast, [(#"{"fireAt":"\#(date)","station":"coffee","ticketId":"ord-1:coffee"}"#, "")]),
        row("an unknown pacing reason", .paced, .refused, [(#""reason":"window""#, #""reason":"whim""#)]),
        row("a fire without its station", .paced, .refused, [(#""station":"coffee","#, "")]),
        row("null fires", .paced, .refused, [(#"[{"fireAt":"\#(date)","station":"coffee","ticketId":"ord-1:coffee"}]"#, "null")]),
        row("undeliverable, with every optional member", .notification, .fast, [(#""title":"Ready""#, #""title":"Ready","undeliverableReason":"device.denied","requestedLanguage":"pt","reminderId":"r1","cafeId":"caffe-macs","expiresAt":"\#(date)""#)]),
        row("a null order", .notification, .foundation, [(#""orderId":"ord-1""#, #""orderId":null"#)]),
        row("an unknown kind", .notification, .refused, [(#""kind":"orderReady""#, #""kind":"gossip""#)]),
        row("no title", .notification, .refused, [(#","title":"Ready""#, "")]),
        row("a notification member twice", .notification, .repeated, [(#""language":"en""#, #""language":"en","language":"de""#)]),
        row("the template", .reserve, .fast),
        row("the template", .place, .fast),
        row("the template", .bump, .fast),
        Row(label: "whitespace everywhere", kind: .place, text: spaced(text(.place)), expect: .fast),
        row("the next window, anonymous", .reserve, .fast, [(#""start":"\#(date)","userId":"ann","#, "")]),
        row("a null start", .reserve, .foundation, [(#""start":"\#(date)""#, #""start":null"#)]),
        row("no locale", .reserve, .refused, [(#","locale":"en_US""#, "")]),
        row("a kiosk guest, no modifiers", .place, .fast, [(#""channel":"app","userId":"ann","deviceId":"phone-1","#, #""channel":"kiosk","#),
                                                            (#","modifiers":["oat-milk"]"#, ""), (#""paymentToken":"tok_4242","#, "")]),
        row("an App Clip's launch", .place, .foundation, [(#""locale":"en_US""#, #""locale":"en_US","clip":{"url":"https://x/c","invocation":"qrCode","acquiredAt":"\#(date)"}"#)]),
        row("a null payment token", .place, .foundation, [(#""paymentToken":"tok_4242""#, #""paymentToken":null"#)]),
        row("an unknown channel", .place, .refused, [(#""channel":"app""#, #""channel":"fax""#)]),
        row("a quantity as text", .place, .refused, [(#""quantity":2"#, #""quantity":"2""#)]),
        row("no items", .place, .refused, [(#""items":["#, #""itemz":["#)]),
        row("an item member twice", .place, .repeated, [(#""quantity":2"#, #""quantity":2,"quantity":3"#)]),
        row("a ticket id as a number", .bump, .refused, [(#""ord-1:coffee""#, "7")]),
        row("a ticket id twice", .bump, .repeated, [(#""ticketId":"ord-1:coffee""#, #""ticketId":"ord-1:coffee","ticketId":"x""#)]),
        // A member name given twice, anywhere: refused on every route.
        row("op twice", .report, .repeated, [(#""op":"ingest.report""#, #""op":"ingest.report","op":"health""#)]),
        row("id twice", .report, .repeated, [(#""id":"r1""#, #""id":"r1","id":"r2""#)]),
        row("body twice", .report, .repeated, [(#""id":"r1","#, #""id":"r1","body":{"deviceId":"x"},"#)]),
        row("device id twice", .report, .repeated, [(#""deviceId":"phone-1""#, #""deviceId":"phone-1","deviceId":"phone-2""#)]),
        row("a name and its escaped spelling", .report, .repeated, [(#""deviceId":"phone-1""#, #""deviceId":"phone-1","\u0064eviceId":"phone-2""#)]),
        row("a status member twice", .report, .repeated, [(#""foreground":true"#, #""foreground":true,"foreground":false"#)]),
        row("rssi twice", .report, .repeated, [(#""rssi":-61"#, #""rssi":-61,"rssi":-90"#)]),
        row("a fix member twice", .report, .repeated, [(#""latitude":37.3349"#, #""latitude":37.3349,"latitude":1"#)]),
        row("an unknown member twice", .report, .repeated, [(#""id":"r1""#, #""id":"r1","x":1,"x":1"#)]),
        row("canonically equal unknown names", .report, .repeated, [(#""deviceId""#, #""caf\u00e9":1,"cafe\u0301":2,"deviceId""#)]),
        row("a name twice inside a skipped value", .report, .repeated, [(#""deviceId""#, #""extra":[{"a":1},{"b":1,"b":2}],"deviceId""#)]),
        row("a name twice beside Foundation-tolerated junk", .report, .repeated, [(#""deviceId""#, "\"junk\":[01,],\"deviceId\":\"x\",\"deviceId\"")]),
        row("a name twice in the second report", .batch, .repeated, [(#"{"deviceId":"phone-2"}"#, #"{"deviceId":"phone-2","deviceId":"phone-3"}"#)]),
        row("reports twice", .batch, .repeated, [(#"{"reports":["#, #"{"reports":[],"reports":["#)]),
        row("v twice", .envelope, .repeated, [(#""v":1"#, #""v":1,"v":2"#)]),
        row("a beacon member twice", .envelope, .repeated, [(#""major":1"#, #""major":1,"major":1"#)]),
        row("an unknown member twice", .envelope, .repeated, [(#""v":1"#, #""v":1,"x":{},"x":{}"#)]),
        row("a name twice in another event type", .envelope, .repeated, [(#""sighting.reported""#, #""heartbeat""#),
                                                                          (#"{"body":{"accuracy""#, #"{"body":{"service":"s","service":"t","streams":{},"replayEndpoint":"tcp://x:1","accuracy""#)]),
    ]

    /// What a route made of a frame.
    enum Outcome<Value> {
        case value(Value)
        case refused(WireError)

        init(_ decode: () throws(WireError) -> Value) {
            do { self = .value(try decode()) } catch { self = .refused(error) }
        }

        var value: Value? { if case .value(let v) = self { v } else { nil } }
        var error: WireError? { if case .refused(let e) = self { e } else { nil } }
    }

    /// Feeds `frame` to `T`'s reader (chosen by conformance, as `Wire` chooses it), to Foundation's
    /// route and to the service's route; checks they agree and what the row expects.
    func compare<T: Decodable>(_ type: T.Type, _ row: Row, _ expect: Expect?, malformed: ErrorCode, same: (T, T) -> Bool) {
        let frame = Data(row.text.utf8)
        let fast = Wire.fastDecode(T.self, from: frame)
        let generic = Outcome { () throws(WireError) in try Wire.decodeGeneric(T.self, from: frame, malformed: malformed) }
        let service = Outcome { () throws(WireError) in try Wire.decode(T.self, from: frame, maxBytes: Wire.defaultMaxFrameBytes, tooLarge: .tooLarge, malformed: malformed) }
        let name = "\(T.self) \(row.testDescription)"
        if let fast {
            #expect(generic.value.map { same(fast, $0) } == true, "\(name): the reader read what Foundation's route did not: \(generic)")
        }
        switch (service, generic) {
        case (.value(let a), .value(let b)): #expect(same(a, b), "\(name): different values")
        case (.refused(let a), .refused(let b)): #expect(a.code == b.code, "\(name): \(a) against \(b)")
        default: Issue.record("\(name): the service's route says \(service), Foundation's \(generic)")
        }
        switch expect {
        case .fast?: #expect(fast != nil, "\(name): the reader gave up")
        case .foundation?:
            #expect(fast == nil, "\(name): the reader read it")
            #expect(generic.value != nil, "\(name): refused: \(generic)")
        case .refused?: #expect(generic.error != nil, "\(name): read")
        case .repeated?:
            #expect(fast == nil, "\(name): the reader read it")
            #expect(generic.error?.code == malformed && generic.error?.message.hasSuffix("is given more than once") == true, "\(name): \(generic)")
        case nil: break
        }
    }

    @Test("each reader gives Foundation's value or Foundation's error code", arguments: rows)
    func differential(_ row: Row) {
        switch row.kind {
        case .report:
            compare(Request<IngestReport>.self, row, row.expect, malformed: .invalidField) { $0.op == $1.op && $0.id == $1.id && $0.onBehalfOf == $1.onBehalfOf && $0.body == $1.body }
        case .batch:
            compare(Request<IngestBatch>.self, row, row.expect, malformed: .invalidField) { $0.op == $1.op && $0.id == $1.id && $0.onBehalfOf == $1.onBehalfOf && $0.body == $1.body }
        case .reserve:
            compare(Request<ReserveRequest>.self, row, row.expect, malformed: .invalidField) { $0.op == $1.op && $0.id == $1.id && $0.body == $1.body }
        case .place:
            compare(Request<PlaceOrderRequest>.self, row, row.expect, malformed: .invalidField) { $0.op == $1.op && $0.id == $1.id && $0.body == $1.body }
        case .bump:
            compare(Request<TicketCommand>.self, row, row.expect, malformed: .invalidField) { $0.op == $1.op && $0.id == $1.id && $0.body == $1.body }
        case .envelope, .regionEvent, .nearest, .status, .order, .kitchen, .paced, .notification:
            compare(Envelope.self, row, row.expect, malformed: .messageMalformed, same: ==)
            return
        }
        // Every request frame also goes to the head reader: it reads what a valid frame holds and
        // refuses a repeated name anywhere, the body included, as Foundation's route does.
        let head: Expect? = switch row.expect {
        case .fast: .fast
        case .repeated: .repeated
        default: nil
        }
        compare(RequestHead.self, row, head, malformed: .malformed) { $0.op == $1.op && $0.id == $1.id && $0.onBehalfOf == $1.onBehalfOf }
    }

    @Test("a repeated name is named by its path")
    func repeatedPath() {
        let frame = Data(Self.text(.batch, [(#"{"deviceId":"phone-2"}"#, #"{"deviceId":"phone-2","deviceId":"phone-3"}"#)]).utf8)
        #expect(throws: WireError(.invalidField, "field body.reports[1].deviceId is given more than once")) {
            try Wire.decodeRequest(frame, body: IngestBatch.self)
        }
        #expect(throws: WireError(.malformed, "field body.reports[1].deviceId is given more than once")) { try Wire.decodeRequestHead(frame) }
    }

    @Test("the readers are chosen by conformance: a type without one goes to Foundation")
    func chosenByConformance() {
        let frame = Data(#"{"op":"health","id":"h"}"#.utf8)
        #expect(Wire.fastDecode(Request<Empty>.self, from: frame) == nil)
        #expect(Wire.fastDecode(RequestHead.self, from: frame)?.op == "health")
        #expect((try? Wire.decodeRequest(frame, body: Empty.self))?.op == "health")
    }
}
