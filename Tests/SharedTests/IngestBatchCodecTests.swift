import Foundation
@testable import Messages
import Testing

/// The hand-written `ingest.batch` reader may only be faster than Foundation's, never more
/// lenient: whatever it decodes, Foundation decodes to the same value, and whatever Foundation
/// refuses, it leaves to Foundation (which then words the error).
@Suite("ingest.batch codec: the fast route is never more lenient than the generic one")
struct IngestBatchCodecTests {
    static let uuid = "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30"

    /// A batch of one report with one sighting and one fix; `replace` swaps pieces of its text.
    static func frame(_ replace: [(String, String)] = []) -> String {
        var text = #"{"op":"ingest.batch","id":"x","body":{"reports":[{"deviceId":"d1","sightings":[{"uuid":"UUID","major":1,"minor":2,"rssi":-61,"measuredPower":-59,"timestamp":"2026-01-01T00:00:00.000Z"}],"fixes":[{"latitude":37.3349,"longitude":-122.009,"horizontalAccuracy":12.5,"precise":true,"timestamp":"2026-01-01T00:00:00.000Z"}]}]}}"#
            .replacingOccurrences(of: "UUID", with: uuid)
        for (old, new) in replace {
            precondition(text.contains(old), "the template has no \(old)")
            text = text.replacingOccurrences(of: old, with: new)
        }
        return text
    }

    static func generic(_ frame: Data) -> IngestBatch? {
        try? JSONDecoder().decode(Request<IngestBatch>.self, from: frame).body
    }

    @Test("the template itself takes the fast route, and so does text beyond ASCII and escapes", arguments: [
        "d1", "gr\u{00FC}\u{00DF}e", "emoji-\u{1F600}", #"quote\"d"#, #"tab\tand\u00e9"#,
    ])
    func templateIsFast(deviceId: String) throws {
        let data = Data(Self.frame([(#""deviceId":"d1""#, #""deviceId":""# + deviceId + "\"")]).utf8)
        let fast = try #require(Request<IngestBatch>.fastDecode(data))
        #expect(fast.body == Self.generic(data))
    }

    @Test("a repeated member: the fast route gives up, and the service's route refuses it though Foundation alone would keep the first", arguments: [
        ("op twice", [(#""op":"ingest.batch""#, #""op":"ingest.batch","op":"health""#)]),
        ("body twice", [(#""body":{"reports":[{"#, #""body":{"reports":[]},"body":{"reports":[{"#)]),
        ("reports twice", [(#"{"reports":["#, #"{"reports":[],"reports":["#)]),
        ("deviceId twice", [(#""deviceId":"d1""#, #""deviceId":"d1","deviceId":"d2""#)]),
        ("rssi twice", [(#""rssi":-61"#, #""rssi":-61,"rssi":-90"#)]),
        ("latitude twice", [(#""latitude":37.3349"#, #""latitude":37.3349,"latitude":1"#)]),
        ("sightings twice", [(#""sightings":["#, #""sightings":[],"sightings":["#)]),
    ] as [(String, [(String, String)])])
    func repeatedMember(label: String, replace: [(String, String)]) throws {
        let data = Data(Self.frame(replace).utf8)
        #expect(Request<IngestBatch>.fastDecode(data) == nil, "\(label)")
        // Foundation keeps the first of a repeated member; a naive reader would keep the last.
        #expect(Self.generic(data) != nil, "\(label)")
        let error = #expect(throws: WireError.self, "\(label)") { try Wire.decodeRequest(data, body: IngestBatch.self) }
        #expect(error?.code == .invalidField, "\(label)")
        #expect(error?.message.hasSuffix("is given more than once") == true, "\(label)")
    }

    @Test("frames the fast route leaves to Foundation: numbers JSON does not allow, numbers that do not fit", arguments: [
        // Numbers JSON does not allow, which strtod would read.
        ("leading zero", [("37.3349", "037.3349")], false),
        ("bare zero then digit", [("-61", "-061")], false),
        ("no digit after the point", [("37.3349", "37.")], false),
        ("no digit before the point", [("37.3349", ".5")], false),
        ("plus sign", [("37.3349", "+37.3349")], false),
        ("integer with leading zero", [(#""major":1"#, #""major":01"#)], false),
        // Numbers that overflow or underflow a Double: Foundation refuses them.
        ("overflow", [("12.5", "1e400")], false),
        ("overflow without exponent", [("12.5", String(repeating: "9", count: 400))], false),
        ("underflow", [("12.5", "1e-400")], false),
        ("underflow without exponent", [("12.5", "0." + String(repeating: "0", count: 400) + "1")], false),
        // Foundation is erratic about a zero with an exponent: some it reads, some it refuses.
        ("zero with exponent, refused", [("12.5", "0e5")], false),
        ("negative zero with exponent, refused", [("12.5", "-0.0e5")], false),
        ("negative zero with exponent, read", [("12.5", "-0e5")], true),
        ("incomplete exponent", [("12.5", "1e")], false),
        ("exponent sign only", [("12.5", "1e+")], false),
        // A lone surrogate escape is not a character.
        ("lone surrogate", [(#""deviceId":"d1""#, #""deviceId":"\ud800""#)], false),
    ] as [(String, [(String, String)], Bool)])
    func leftToFoundation(label: String, replace: [(String, String)], foundationAccepts: Bool) throws {
        let data = Data(Self.frame(replace).utf8)
        #expect(Request<IngestBatch>.fastDecode(data) == nil, "\(label)")
        #expect((Self.generic(data) != nil) == foundationAccepts, "\(label)")
        // The service's route gives Foundation's answer, or Foundation's typed error.
        do {
            let decoded = try Wire.decodeRequest(data, body: IngestBatch.self)
            #expect(foundationAccepts, "\(label)")
            #expect(decoded.body == Self.generic(data), "\(label)")
        } catch {
            #expect(!foundationAccepts, "\(label)")
            #expect(error.code == .invalidField, "\(label)")
        }
    }

    @Test("bytes that are not UTF-8 in a string are left to Foundation, which refuses them")
    func invalidUTF8() {
        // The device id "d1" becomes two bytes that never occur in UTF-8.
        var bytes = Array(Self.frame().utf8)
        let marker = Array(#""d1""#.utf8)
        let start = (0...(bytes.count - marker.count)).first { Array(bytes[$0..<($0 + marker.count)]) == marker }!
        bytes.replaceSubrange((start + 1)..<(start + 3), with: [0xFF, 0xFE])
        let data = Data(bytes)
        #expect(Request<IngestBatch>.fastDecode(data) == nil)
        #expect(Self.generic(data) == nil)
        #expect(RequestHead.fastDecode(data) != nil, "op and id are still readable")
    }

    @Test("numbers the fast route reads are the numbers Foundation reads, to the last bit")
    func numbersMatch() throws {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 11
        }
        var texts: [String] = ["0", "-0", "0.0", "-0.000", "90", "-90", "180.0", "1", "0.1", "0.30000000000000004", "123456789012345678901234567890",
                               "0." + String(repeating: "0", count: 309) + "1", "4.9406564584124654e-324", "1e-07", "1.25E+2"]
        for _ in 0..<500 {
            // Any bit pattern: tiny, huge, subnormal, written with exponents.
            let value = Double(bitPattern: next() << 11)
            guard value.isFinite, value != 0 else { continue }
            texts.append("\(value)")
            texts.append(String(format: "%.\(next() % 17)f", (Double(next() % 360_000_000) / 1_000_000) - 180))
        }
        for text in texts {
            let data = Data(Self.frame([("-122.009", text)]).utf8)
            let fast = try #require(Request<IngestBatch>.fastDecode(data), "\(text)")
            let generic = try #require(Self.generic(data), "\(text)")
            #expect(fast.body == generic, "\(text)")
            #expect(fast.body.reports[0].fixes?[0].longitude.bitPattern == generic.reports[0].fixes?[0].longitude.bitPattern, "\(text)")
        }
    }

    @Test("the phone's proximity and accuracy: the same value by both routes, or left to Foundation", arguments: [
        (#","proximity":"near","accuracy":1.37"#, true, true),
        (#","accuracy":-1"#, true, true),
        (#","proximity":"unknown","accuracy":-1"#, true, true),
        (#","proximity":"immediate","accuracy":0"#, true, true),
        (#","accuracy":0.25,"proximity":"far""#, true, true),
        // A class this build does not know is kept as text, for the validator to refuse the one item.
        (#","proximity":"close""#, true, true),
        (#","proximity":"NEAR""#, true, true),
        // null is absent to Foundation; the fast route leaves it to Foundation.
        (#","proximity":null,"accuracy":null"#, false, true),
        (#","proximity":"near","proximity":"far""#, false, true),
        (#","proximity":3"#, false, false),
        (#","accuracy":"1.5""#, false, false),
        (#","accuracy":01.5"#, false, false),
    ] as [(String, Bool, Bool)])
    func phoneEstimate(members: String, fast: Bool, foundation: Bool) throws {
        let data = Data(Self.frame([(#""rssi":-61"#, #""rssi":-61"# + members)]).utf8)
        let decoded = Request<IngestBatch>.fastDecode(data)
        #expect((decoded != nil) == fast)
        #expect((Self.generic(data) != nil) == foundation)
        if let decoded { #expect(decoded.body == Self.generic(data)) }
    }

    @Test("an unknown proximity survives a round trip as sent, and setting a known one replaces it")
    func unknownProximityRoundTrip() throws {
        let data = Data(Self.frame([(#""rssi":-61"#, #""rssi":-61,"proximity":"close""#)]).utf8)
        var report = try #require(Request<IngestBatch>.fastDecode(data)?.body.reports.first?.sightings?.first)
        #expect(report.proximity == nil && report.unrecognizedProximity == "close")
        let again = try JSONDecoder().decode(RangingReport.self, from: Wire.encode(report))
        #expect(again == report)
        report.proximity = .far
        #expect(report.unrecognizedProximity == nil)
        #expect(try JSONDecoder().decode(RangingReport.self, from: Wire.encode(report)).proximity == .far)
    }
}
