import Foundation

extension TNetString {
    /// The canonical bytes of this value: each length prefix is exactly its data's byte count in
    /// decimal without leading zeros, integers are plain decimal, floats Swift's shortest
    /// round-trip text, dictionaries in member order. `TNetStringDecoder` reads them back to an
    /// equal value (a non-finite float, which has no decimal text, is written as null).
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        append(to: &out)
        return out
    }

    /// `encoded()` as Data.
    public var data: Data { Data(encoded()) }

    /// Appends the value's canonical bytes to `out`.
    public func append(to out: inout [UInt8]) {
        switch self {
        case .bytes(let bytes):
            Self.frame(bytes, tag: UInt8(ascii: ","), into: &out)
        case .integer(let value):
            Self.frame(Array(String(value).utf8), tag: UInt8(ascii: "#"), into: &out)
        case .float(let value):
            guard value.isFinite else {
                out.append(contentsOf: Array("0:~".utf8))
                return
            }
            Self.frame(Array("\(value)".utf8), tag: UInt8(ascii: "^"), into: &out)
        case .bool(let value):
            Self.frame(Array((value ? "true" : "false").utf8), tag: UInt8(ascii: "!"), into: &out)
        case .null:
            out.append(contentsOf: Array("0:~".utf8))
        case .list(let items):
            var inner: [UInt8] = []
            for item in items { item.append(to: &inner) }
            Self.frame(inner, tag: UInt8(ascii: "]"), into: &out)
        case .dictionary(let members):
            var inner: [UInt8] = []
            for member in members {
                Self.frame(Array(member.key.utf8), tag: UInt8(ascii: ","), into: &inner)
                member.value.append(to: &inner)
            }
            Self.frame(inner, tag: UInt8(ascii: "}"), into: &out)
        }
    }

    private static func frame(_ data: [UInt8], tag: UInt8, into out: inout [UInt8]) {
        out.append(contentsOf: Array(String(data.count).utf8))
        out.append(UInt8(ascii: ":"))
        out.append(contentsOf: data)
        out.append(tag)
    }
}
