import Foundation
import Identity
import Testing

@Suite("Base64url: canonical, unpadded, URL-safe")
struct Base64URLTests {
    @Test("encodes as Foundation's base64 with the URL-safe alphabet and no padding, and reads it back")
    func roundTrip() {
        var generator = SystemRandomNumberGenerator()
        for count in 0..<70 {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let expected = OpenSSLIssuer.base64url(Data(bytes))
            #expect(Base64URL.encode(bytes) == expected)
            #expect(Base64URL.decode(expected) == bytes)
        }
    }

    @Test("refuses padding, the standard alphabet, whitespace, a lone last character and stray low bits",
          arguments: ["YQ==", "YQ=", "a+b/", "YW Jj", "YWJjZ", "YR", "YWJjZB", "\u{00E9}", "YWJj\n"])
    func refusals(_ text: String) {
        #expect(Base64URL.decode(text) == nil, "\(text)")
    }

    @Test("the empty text is the empty byte string")
    func empty() {
        #expect(Base64URL.decode("") == [])
        #expect(Base64URL.encode([UInt8]()) == "")
    }
}
