import Foundation
import Messages
import Testing

/// The edge's fast read of a reply: `ok` and the span of `body`, or nil for the slow way.
struct ReplyLayoutTests {
    @Test("ok and the body's span, in any member order, with members it does not know skipped; a sliced frame's offsets are its own")
    func layout() throws {
        let frame = Data(#"{"id":"r1","body":{"a":[1,2,{"b":"}"}]},"ok":true}"#.utf8)
        let layout = try #require(Wire.replyLayout(frame))
        #expect(layout.ok)
        let span = try #require(layout.body)
        #expect(String(decoding: frame[span], as: UTF8.self) == #"{"a":[1,2,{"b":"}"}]}"#)
        let error = try #require(Wire.replyLayout(Data(#"{"ok":false,"error":{"code":"x","message":"y"}}"#.utf8)))
        #expect(!error.ok && error.body == nil)
        let padded = Data("xx".utf8) + Data(#" {"ok":true,"body":{}} "#.utf8)
        let slice = padded[padded.startIndex.advanced(by: 2)...]
        let sliced = try #require(Wire.replyLayout(slice))
        #expect(sliced.body.map { String(decoding: slice[(slice.startIndex + $0.lowerBound)..<(slice.startIndex + $0.upperBound)], as: UTF8.self) } == "{}")
    }

    @Test("anything but one valid object with a boolean ok is left to the slow read", arguments: [
        "", "[]", #"{"ok":1,"body":{}}"#, #"{"body":{}}"#, #"{"ok":true,"ok":true}"#, #"{"ok":true,"body":{},"body":{}}"#,
        #"{"ok":true,"body":{"a":1,"a":2}}"#, #"{"ok":true} x"#, #"{"ok":true,"body":{"a":"\u{1}"}}"#, #"{"ok":tru}"#,
    ])
    func refused(frame: String) {
        #expect(Wire.replyLayout(Data(frame.utf8)) == nil, "\(frame)")
    }

    @Test("a string that is not UTF-8 is left to the slow read, which refuses it")
    func notUTF8() {
        let frame = Data(#"{"ok":true,"body":{"code":"caf"#.utf8) + Data([0xFF]) + Data(#""}}"#.utf8)
        #expect(Wire.replyLayout(frame) == nil)
        #expect(Wire.replyLayout(Data(#"{"ok":true,"body":{"name":"Caffè Macs"}}"#.utf8)) != nil)
        // Surrogate escapes, paired or not, are Foundation's to judge.
        #expect(Wire.replyLayout(Data(#"{"ok":true,"body":{"c":"\udc00"}}"#.utf8)) == nil)
        #expect(Wire.replyLayout(Data(#"{"ok":true,"body":{"c":"\uD83D\uDE00"}}"#.utf8)) == nil)
        #expect(Wire.replyLayout(Data(#"{"ok":true,"body":{"c":"\u00e8\n\"\\"}}"#.utf8)) != nil)
        // An escape JSON does not have (found by the zhttp fuzz target: "\c202f").
        #expect(Wire.replyLayout(Data(#"{"ok":true,"body":{"c":"10:00\c202fAM"}}"#.utf8)) == nil)
        #expect(Wire.replyLayout(Data(#"{"ok":true,"body":{"c":"\u00g8"}}"#.utf8)) == nil)
        // Numbers Foundation may refuse (found by the zhttp fuzz target: 1e400), and any exponent.
        #expect(Wire.replyLayout(Data(#"{"ok":true,"body":{"n":1e400}}"#.utf8)) == nil)
        #expect(Wire.replyLayout(Data(#"{"ok":true,"body":{"n":123456789012345678}}"#.utf8)) == nil)
        #expect(Wire.replyLayout(Data(#"{"ok":true,"body":{"n":-12.5,"t":true,"f":false,"e":"1e400"}}"#.utf8)) != nil)
    }
}
