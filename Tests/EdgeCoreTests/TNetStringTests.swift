import EdgeCore
import Foundation
import Testing

@Suite("tnetstring codec")
struct TNetStringTests {
    static let roomy = TNetStringLimits(maxBytes: 1 << 20, maxDepth: 16, maxElements: 10_000, maxStringBytes: 1 << 20)

    func decode(_ text: String, limits: TNetStringLimits = roomy) throws -> TNetString {
        try TNetStringDecoder(limits: limits).decode(Array(text.utf8))
    }

    func refusal(_ text: String, limits: TNetStringLimits = roomy) -> TNetStringError.Code? {
        do {
            _ = try TNetStringDecoder(limits: limits).decode(Array(text.utf8))
            return nil
        } catch {
            return error.code
        }
    }

    @Test("tnetstrings.info's examples read, and write back to the same bytes", arguments: [
        ("11:hello world,", TNetString.text("hello world")),
        ("0:,", .bytes([])),
        ("3:123#", .integer(123)),
        ("2:-7#", .integer(-7)),
        ("1:0#", .integer(0)),
        ("4:true!", .bool(true)),
        ("5:false!", .bool(false)),
        ("0:~", .null),
        ("3:1.5^", .float(1.5)),
        ("0:]", .list([])),
        ("0:}", .dictionary([])),
        ("16:5:hello,5:12345#]", .list([.text("hello"), .integer(12345)])),
        ("23:5:hello,11:5:12345#0:~]}", .dictionary([("hello", .list([.integer(12345), .null]))])),
        ("19:9223372036854775807#", .integer(Int64.max)),
        ("20:-9223372036854775808#", .integer(Int64.min)),
    ])
    func roundTrip(_ text: String, _ value: TNetString) throws {
        #expect(try decode(text) == value)
        #expect(String(decoding: value.encoded(), as: UTF8.self) == text)
    }

    @Test("strings are bytes: NUL, non-UTF-8 and separators inside survive")
    func binaryStrings() throws {
        let bytes: [UInt8] = [0, 0xFF, UInt8(ascii: ":"), UInt8(ascii: ","), UInt8(ascii: "}"), 0xC3]
        let value = TNetString.bytes(bytes)
        #expect(try TNetStringDecoder(limits: Self.roomy).decode(value.encoded()) == value)
    }

    @Test("a dictionary keeps its members' order, so what was read writes back byte for byte")
    func memberOrder() throws {
        let text = "23:1:b,1:1#1:a,1:2#1:c,0:~}"
        let value = try decode(text)
        guard case .dictionary(let members) = value else { Issue.record("not a dictionary"); return }
        #expect(members.map(\.key) == ["b", "a", "c"])
        #expect(String(decoding: value.encoded(), as: UTF8.self) == text)
        #expect(value["a"] == .integer(2) && value["z"] == nil)
    }

    @Test("floats read back equal, whatever decimal form they came in")
    func floats() throws {
        for (text, expected) in [("4:1e-7^", 1e-7), ("5:1e+16^", 1e16), ("4:-0.0^", -0.0), ("4:2.50^", 2.5), ("5:1e-07^", 1e-7)] {
            let value = try decode(text)
            #expect(value == .float(expected), "\(text)")
            #expect(try TNetStringDecoder(limits: Self.roomy).decode(value.encoded()) == value, "\(text)")
        }
        #expect(TNetString.float(.nan).encoded() == Array("0:~".utf8), "no decimal text for NaN: written as null")
    }

    @Test("malformed input gets a typed code, never a trap", arguments: [
        ("", TNetStringError.Code.truncated),
        ("5", .truncated),
        ("5:abc,", .truncated),
        ("3:abc", .truncated),
        ("3:abc?", .malformed),
        (":abc,", .malformed),
        ("x:abc,", .malformed),
        ("-1:a,", .malformed),
        ("03:abc,", .malformed),
        ("3:abc,x", .malformed),
        ("1:x~", .malformed),
        ("2:12:", .malformed),
        ("3:1.5#", .invalidScalar),
        ("2:01#", .invalidScalar),
        ("2:-0#", .invalidScalar),
        ("1:-#", .invalidScalar),
        ("19:9223372036854775808#", .invalidScalar),
        ("3:nan^", .invalidScalar),
        ("3:inf^", .invalidScalar),
        ("5:1e999^", .invalidScalar),
        ("4:True!", .invalidScalar),
        ("1:1!", .invalidScalar),
        ("4:1:a,}", .malformed),
        ("8:1:1#1:2#}", .invalidKey),
        ("14:1:a,0:~1:a,0:~}", .invalidKey),
        ("8:2:\u{FF}x,0:~}", .malformed),
        ("5:3:abc,]", .malformed),
        ("7:3:abc,]", .truncated),
        ("99999999999999999999999:a,", .truncated),
        ("9999999999999999999:a,", .truncated),
    ])
    func malformed(_ text: String, _ code: TNetStringError.Code) {
        #expect(refusal(text) == code, "\(text.debugDescription)")
    }

    @Test("a key that is not UTF-8 is refused")
    func keyNotText() throws {
        let input = Array("8:2:".utf8) + [0xFF, 0xFE] + Array(",0:~}".utf8)
        #expect(throws: TNetStringError.self) { try TNetStringDecoder(limits: Self.roomy).decode(input) }
        do {
            _ = try TNetStringDecoder(limits: Self.roomy).decode(input)
        } catch {
            #expect(error.code == .invalidKey)
        }
    }

    @Test("each limit refuses with its own code, at the bound and not below it")
    func limits() {
        let string = String(repeating: "a", count: 100)
        let encoded = "100:\(string),"
        #expect(refusal(encoded, limits: TNetStringLimits(maxBytes: encoded.utf8.count - 1, maxDepth: 4, maxElements: 10, maxStringBytes: 1000)) == .tooLarge)
        #expect(refusal(encoded, limits: TNetStringLimits(maxBytes: encoded.utf8.count, maxDepth: 4, maxElements: 10, maxStringBytes: 100)) == nil)
        #expect(refusal(encoded, limits: TNetStringLimits(maxBytes: 1000, maxDepth: 4, maxElements: 10, maxStringBytes: 99)) == .stringTooLong)

        let nested = "9:6:3:0:]]]]"
        #expect(refusal(nested, limits: TNetStringLimits(maxBytes: 100, maxDepth: 4, maxElements: 10, maxStringBytes: 10)) == nil)
        #expect(refusal(nested, limits: TNetStringLimits(maxBytes: 100, maxDepth: 3, maxElements: 10, maxStringBytes: 10)) == .tooDeep)

        let list = "12:1:1#1:2#1:3#]"
        #expect(refusal(list, limits: TNetStringLimits(maxBytes: 100, maxDepth: 4, maxElements: 4, maxStringBytes: 10)) == nil)
        #expect(refusal(list, limits: TNetStringLimits(maxBytes: 100, maxDepth: 4, maxElements: 3, maxStringBytes: 10)) == .tooManyElements)

        #expect(refusal("5:12345#", limits: TNetStringLimits(maxBytes: 100, maxDepth: 4, maxElements: 3, maxStringBytes: 10, maxNumberBytes: 4)) == .numberTooLong)
        #expect(refusal("4:1234#", limits: TNetStringLimits(maxBytes: 100, maxDepth: 4, maxElements: 3, maxStringBytes: 10, maxNumberBytes: 4)) == nil)
    }

    @Test("a deep nest far past the limit is refused without recursing into it")
    func hostileDepth() {
        var value = "0:]"
        for _ in 0..<2_000 { value = "\(value.utf8.count):\(value)]" }
        #expect(refusal(value, limits: TNetStringLimits(maxBytes: 1 << 20, maxDepth: 8, maxElements: 100_000, maxStringBytes: 10)) == .tooDeep)
    }

    @Test("a length that lies past its container is refused, not read from the next value")
    func lyingLength() {
        #expect(refusal("10:5:abc,1:x,]") == .malformed)
    }
}
