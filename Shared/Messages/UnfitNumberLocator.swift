import Foundation

/// Names the field of a number that does not fit it (1.5 or -1 for an unsigned integer, 1e30 for an
/// Int). Foundation reports one as "The given data was not valid JSON" with no coding path; decoding
/// the frame once more through decoders that forward every call and note the coding path of a
/// number that fails that way finds it. One more decode, on the error path only.
enum UnfitNumberLocator {
    /// The failing number's path (`body.order.lines[0].quantity`), or nil when no number failed.
    static func field<T: Decodable>(_ type: T.Type, in frame: Data) -> String? {
        do {
            _ = try JSONDecoder().decode(Probe<T>.self, from: frame)
        } catch let found as Found {
            return Wire.path(found.codingPath)
        } catch {}
        return nil
    }

    /// Where a number read failed.
    struct Found: Error {
        let codingPath: [any CodingKey]
    }

    private struct Probe<T: Decodable>: Decodable {
        init(from decoder: any Decoder) throws { _ = try T(from: Tracking(inner: decoder)) }
    }

    /// A value decoded through a tracking decoder; for the generic `decode<T>` of the containers.
    private struct Tracked<T: Decodable>: Decodable {
        let value: T
        init(from decoder: any Decoder) throws { value = try T(from: Tracking(inner: decoder)) }
    }

    /// Foundation throws a DecodingError for a missing or mistyped value; any other error from a
    /// number read is its unfit-number error, which then loses its path.
    static func number<N>(at path: @autoclosure () -> [any CodingKey], _ read: () throws -> N) throws -> N {
        do {
            return try read()
        } catch let error as DecodingError {
            throw error
        } catch {
            throw Found(codingPath: path())
        }
    }

    private struct Tracking: Decoder {
        let inner: any Decoder
        var codingPath: [any CodingKey] { inner.codingPath }
        var userInfo: [CodingUserInfoKey: Any] { inner.userInfo }
        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            KeyedDecodingContainer(Keyed(inner: try inner.container(keyedBy: type)))
        }
        func unkeyedContainer() throws -> any UnkeyedDecodingContainer { Unkeyed(inner: try inner.unkeyedContainer()) }
        func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(inner: try inner.singleValueContainer()) }
    }

    private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let inner: KeyedDecodingContainer<Key>
        var codingPath: [any CodingKey] { inner.codingPath }
        var allKeys: [Key] { inner.allKeys }
        func contains(_ key: Key) -> Bool { inner.contains(key) }
        func decodeNil(forKey key: Key) throws -> Bool { try inner.decodeNil(forKey: key) }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try inner.decode(type, forKey: key) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try inner.decode(type, forKey: key) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try n(key) { try inner.decode(type, forKey: key) } }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try n(key) { try inner.decode(type, forKey: key) } }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try n(key) { try inner.decode(type, forKey: key) } }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try n(key) { try inner.decode(type, forKey: key) } }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try n(key) { try inner.decode(type, forKey: key) } }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try n(key) { try inner.decode(type, forKey: key) } }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try n(key) { try inner.decode(type, forKey: key) } }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try n(key) { try inner.decode(type, forKey: key) } }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try n(key) { try inner.decode(type, forKey: key) } }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try n(key) { try inner.decode(type, forKey: key) } }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try n(key) { try inner.decode(type, forKey: key) } }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try n(key) { try inner.decode(type, forKey: key) } }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try inner.decode(Tracked<T>.self, forKey: key).value }
        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            KeyedDecodingContainer(Keyed<NestedKey>(inner: try inner.nestedContainer(keyedBy: type, forKey: key)))
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { Unkeyed(inner: try inner.nestedUnkeyedContainer(forKey: key)) }
        func superDecoder() throws -> any Decoder { Tracking(inner: try inner.superDecoder()) }
        func superDecoder(forKey key: Key) throws -> any Decoder { Tracking(inner: try inner.superDecoder(forKey: key)) }
        private func n<N>(_ key: Key, _ read: () throws -> N) throws -> N { try number(at: codingPath + [key], read) }
    }

    private struct Unkeyed: UnkeyedDecodingContainer {
        var inner: any UnkeyedDecodingContainer
        var codingPath: [any CodingKey] { inner.codingPath }
        var count: Int? { inner.count }
        var isAtEnd: Bool { inner.isAtEnd }
        var currentIndex: Int { inner.currentIndex }
        mutating func decodeNil() throws -> Bool { try inner.decodeNil() }
        mutating func decode(_ type: Bool.Type) throws -> Bool { try inner.decode(type) }
        mutating func decode(_ type: String.Type) throws -> String { try inner.decode(type) }
        mutating func decode(_ type: Double.Type) throws -> Double { try n { try $0.decode(type) } }
        mutating func decode(_ type: Float.Type) throws -> Float { try n { try $0.decode(type) } }
        mutating func decode(_ type: Int.Type) throws -> Int { try n { try $0.decode(type) } }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try n { try $0.decode(type) } }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try n { try $0.decode(type) } }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try n { try $0.decode(type) } }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try n { try $0.decode(type) } }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try n { try $0.decode(type) } }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try n { try $0.decode(type) } }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try n { try $0.decode(type) } }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try n { try $0.decode(type) } }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try n { try $0.decode(type) } }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try inner.decode(Tracked<T>.self).value }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            KeyedDecodingContainer(Keyed<NestedKey>(inner: try inner.nestedContainer(keyedBy: type)))
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { Unkeyed(inner: try inner.nestedUnkeyedContainer()) }
        mutating func superDecoder() throws -> any Decoder { Tracking(inner: try inner.superDecoder()) }
        private mutating func n<N>(_ read: (inout any UnkeyedDecodingContainer) throws -> N) throws -> N {
            let path = codingPath + [Index(intValue: currentIndex)]
            return try number(at: path) { try read(&inner) }
        }
    }

    private struct Single: SingleValueDecodingContainer {
        let inner: any SingleValueDecodingContainer
        var codingPath: [any CodingKey] { inner.codingPath }
        func decodeNil() -> Bool { inner.decodeNil() }
        func decode(_ type: Bool.Type) throws -> Bool { try inner.decode(type) }
        func decode(_ type: String.Type) throws -> String { try inner.decode(type) }
        func decode(_ type: Double.Type) throws -> Double { try n { try inner.decode(type) } }
        func decode(_ type: Float.Type) throws -> Float { try n { try inner.decode(type) } }
        func decode(_ type: Int.Type) throws -> Int { try n { try inner.decode(type) } }
        func decode(_ type: Int8.Type) throws -> Int8 { try n { try inner.decode(type) } }
        func decode(_ type: Int16.Type) throws -> Int16 { try n { try inner.decode(type) } }
        func decode(_ type: Int32.Type) throws -> Int32 { try n { try inner.decode(type) } }
        func decode(_ type: Int64.Type) throws -> Int64 { try n { try inner.decode(type) } }
        func decode(_ type: UInt.Type) throws -> UInt { try n { try inner.decode(type) } }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try n { try inner.decode(type) } }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try n { try inner.decode(type) } }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try n { try inner.decode(type) } }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try n { try inner.decode(type) } }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try inner.decode(Tracked<T>.self).value }
        private func n<N>(_ read: () throws -> N) throws -> N { try number(at: codingPath, read) }
    }

    /// An array position as a coding key.
    private struct Index: CodingKey {
        let intValue: Int?
        var stringValue: String { "\(intValue ?? 0)" }
        init(intValue: Int) { self.intValue = intValue }
        init?(stringValue: String) { nil }
    }
}
