import Foundation
import Messages
import Testing

@Suite("Text rules")
struct TextRulesTests {
    /// The rule as written: 8-4-4-4-12 hex digits, upper-cased.
    static func reference(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return nil }
        for (index, byte) in bytes.enumerated() {
            let hex = "0123456789abcdefABCDEF".utf8.contains(byte)
            guard [8, 13, 18, 23].contains(index) ? byte == UInt8(ascii: "-") : hex else { return nil }
        }
        return text.uppercased()
    }

    static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"

    @Test("a beacon UUID is canonical upper case, every byte at every position checked as the rule says")
    func canonicalUUID() {
        #expect(TextRules.canonicalUUID(Self.uuid) == Self.uuid)
        #expect(TextRules.canonicalUUID(Self.uuid.lowercased()) == Self.uuid)
        #expect(TextRules.canonicalUUID("e2C56db5-DFFB-48d2-B060-D0F5A71096E0") == Self.uuid)
        var checked = 0
        for index in 0..<36 {
            for byte in UInt8(0)...UInt8(0x7F) {
                var bytes = Array(Self.uuid.utf8)
                bytes[index] = byte
                let text = String(decoding: bytes, as: UTF8.self)
                #expect(TextRules.canonicalUUID(text) == Self.reference(text), "\(text)")
                checked += 1
            }
        }
        #expect(checked == 36 * 128)
        // Wrong lengths, and 36 bytes that are not 36 ASCII characters.
        for text in ["", String(Self.uuid.dropLast()), Self.uuid + "0", "{" + Self.uuid.dropFirst().dropLast() + "}", String(Self.uuid.dropLast(2)) + "é",
                     Self.uuid.replacingOccurrences(of: "-", with: "0"), String(repeating: "-", count: 36)] {
            #expect(TextRules.canonicalUUID(text) == nil, "\(text)")
        }
        // A UUID that is a slice of a longer string reads the same.
        let long = "beacon " + Self.uuid.lowercased() + " heard"
        let inner = String(long.dropFirst(7).prefix(36))
        #expect(TextRules.canonicalUUID(inner) == Self.uuid)
    }
}
