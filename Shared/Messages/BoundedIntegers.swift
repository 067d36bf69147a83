/// Integer fields checked against their range where they are decoded, so that nothing downstream
/// converts, stores or adds up a number it cannot hold: a value outside is refused with the
/// field's path (`field body.fromSeq: must be 0…9223372036854775807, not 9223372036854775808`),
/// like a value of the wrong type, with the frame's code (`request.invalidField`, `message.malformed`).
extension KeyedDecodingContainer {
    /// An integer of `type` within `range`.
    func decode<N: FixedWidthInteger & Decodable>(_ type: N.Type, forKey key: Key, in range: ClosedRange<N>) throws -> N {
        let value = try decode(N.self, forKey: key)
        guard range.contains(value) else { throw outOfRange(value, range, key) }
        return value
    }

    /// An optional integer of `type` within `range` when present.
    func decodeIfPresent<N: FixedWidthInteger & Decodable>(_ type: N.Type, forKey key: Key, in range: ClosedRange<N>) throws -> N? {
        guard let value = try decodeIfPresent(N.self, forKey: key) else { return nil }
        guard range.contains(value) else { throw outOfRange(value, range, key) }
        return value
    }

    /// A map of names to integers of `type`, every one within `range`.
    func decode<N: FixedWidthInteger & Decodable>(_ type: [String: N].Type, forKey key: Key, in range: ClosedRange<N>) throws -> [String: N] {
        let values = try decode([String: N].self, forKey: key)
        for (name, value) in values where !range.contains(value) {
            throw DecodingError.dataCorruptedError(forKey: key, in: self,
                                                   debugDescription: "\(Quoting.quoted(name)) must be \(range.lowerBound)…\(range.upperBound), not \(value)")
        }
        return values
    }

    private func outOfRange<N: FixedWidthInteger>(_ value: N, _ range: ClosedRange<N>, _ key: Key) -> DecodingError {
        DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "must be \(range.lowerBound)…\(range.upperBound), not \(value)")
    }
}
