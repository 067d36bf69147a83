@testable import EdgeServer
import Foundation
import Messages
import Testing

/// Pushpin's Grip-Sig as Pushpin 1.36 wrote it (the captured request in EdgeCoreTests' fixtures,
/// with the default sig_key "changeme").
@Suite("Grip-Sig: Pushpin's HS256 signature on what it forwards")
struct GripSignatureTests {
    static let captured = "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJleHAiOjE3OTU3MDU0OTQsImlzcyI6InB1c2hwaW4ifQ.lpFze1LrMuFwZ-jXeW5E2lSdOLxuQ7F9O5raYodBSGY"
    static let beforeExpiry = Timestamp(milliseconds: 1_795_705_400_000)

    @Test("Pushpin's own signature verifies under its key until it expires; another key, a change or junk does not")
    func captured() {
        let grip = GripSignature(key: Array("changeme".utf8))
        #expect(grip.verifies(Self.captured, now: Self.beforeExpiry))
        #expect(!grip.verifies(Self.captured, now: Timestamp(milliseconds: 1_795_705_494_000)))
        #expect(!GripSignature(key: Array("another".utf8)).verifies(Self.captured, now: Self.beforeExpiry))
        var changed = Array(Self.captured.utf8)
        changed[40] = changed[40] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(!grip.verifies(String(decoding: changed, as: UTF8.self), now: Self.beforeExpiry))
        for junk in ["", "a.b", "a.b.c", "..", String(repeating: "a", count: 2_000), Self.captured + "="] {
            #expect(!grip.verifies(junk, now: Self.beforeExpiry))
        }
    }

    @Test("base64url decodes as Foundation's base64 does after the alphabet swap, for every length; junk and non-canonical tails are nil")
    func base64url() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<64 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(GripSignature.base64url(ArraySlice(encoded.utf8)) == bytes, "\(encoded)")
        }
        for junk in ["a", "ab=c", "a+bc", "a/bc", "ab c", "AB", "ABC"] {
            // "AB" and "ABC" leave bits set that a canonical encoder writes as zero.
            #expect(GripSignature.base64url(ArraySlice(junk.utf8)) == nil, "\(junk)")
        }
        #expect(GripSignature.base64url(ArraySlice("AA".utf8)) == [0] && GripSignature.base64url(ArraySlice("AAA".utf8)) == [0, 0])
    }

    @Test("the cache checks a token once: the same token again verifies until it expires, another is checked anew")
    func cache() {
        let cache = GripSignatureCache(GripSignature(key: Array("changeme".utf8)))
        #expect(cache.verifies(Self.captured, now: Self.beforeExpiry))
        #expect(cache.verifies(Self.captured, now: Self.beforeExpiry))
        #expect(!cache.verifies(Self.captured, now: Timestamp(milliseconds: 1_795_705_494_000)))
        #expect(!cache.verifies("a.b.c", now: Self.beforeExpiry))
        #expect(!GripSignatureCache(GripSignature(key: Array("another".utf8))).verifies(Self.captured, now: Self.beforeExpiry))
    }
}
