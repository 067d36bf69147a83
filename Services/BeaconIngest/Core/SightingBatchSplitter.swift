import Messages

/// Cuts a shard's sightings into `sighting.batch` messages that each stay within a count and an
/// encoded-byte budget, in the order they were taken.
///
/// The bytes are a bound, not a measurement: each sighting is charged the longest JSON its field
/// values could give (numbers at their widest, its device id and UUID at their quoted length), so
/// no sighting is encoded twice on the hot path and no message can come out over the budget. The
/// consumers refuse a frame over their `--max-message-bytes` and dead-letter it whole; a budget
/// set to theirs means every message gets through.
public struct SightingBatchSplitter: Sendable {
    /// The most encoded bytes one message may have (envelope included).
    public let maxBytes: Int
    /// The most sightings one message may carry.
    public let maxCount: Int
    /// What the envelope around the sightings may take: `{"body":{"sightings":[]},…}` with the
    /// longest id, sequence number and time this process writes.
    public let envelopeBytes: Int
    /// The same for the compact frame (`CompactSightingBatch`) when the publisher writes it; nil
    /// when it writes JSON.
    public let compactEnvelopeBytes: Int?

    /// A splitter for messages of at most `maxBytes` and `maxCount`, around an envelope of at most
    /// `envelopeBytes` (JSON) or `compactEnvelopeBytes` (compact frames, when given).
    public init(maxBytes: Int, maxCount: Int = SightingBatch.maxCount, envelopeBytes: Int, compactEnvelopeBytes: Int? = nil) {
        precondition(maxCount > 0, "a batch carries at least one sighting")
        self.maxBytes = maxBytes
        self.maxCount = maxCount
        self.envelopeBytes = envelopeBytes
        self.compactEnvelopeBytes = compactEnvelopeBytes
    }

    /// The compact envelope bound for `source`'s sighting batches, the widest id as in
    /// `envelopeBytes`; nil when its strings do not fit a compact frame (the publisher writes JSON).
    public static func compactEnvelopeBytes(source: String, stream: String) -> Int? {
        let id = widestId(stream: stream)
        guard [id, source, stream].allSatisfy({ $0.utf8.count <= CompactSightingBatch.maxStringBytes }) else { return nil }
        return CompactSightingBatch.envelopeBytes(id: id, source: source, stream: stream)
    }

    /// The envelope bound for `source`'s best-effort sighting batches: an empty batch's envelope
    /// with the widest id (a 13-character random prefix, the stream, the largest sequence number)
    /// and time it can carry.
    public static func envelopeBytes(source: String, stream: String) -> Int {
        let widest = Envelope(type: .sightingBatch, id: widestId(stream: stream), source: source,
                              stream: stream, seq: UInt64.max, time: Timestamp(milliseconds: 253_402_300_799_999), body: .sightings(SightingBatch(sightings: [])))
        return Wire.encode(widest).count
    }

    /// The longest best-effort id `stream` gets (`BestEffortNumbering`): a 13-character random
    /// prefix, the stream and the largest sequence number.
    static func widestId(stream: String) -> String {
        String(repeating: "z", count: 13) + "-" + stream + "-" + String(UInt64.max)
    }

    /// The most bytes a sighting beacon-ingest accepted can take: its device id is 1–64 token
    /// characters (`TextRules.requireToken`, none escaped) and its UUID canonical (36).
    public static let validatedSightingBytes = widestWithoutStrings + (64 + 2) + (36 + 2)

    /// The ranges of `sightings` that go as one message each. A sighting too large for the budget
    /// on its own goes alone (its consumer decides): with beacon-ingest's validated fields one
    /// fits in 1,024 bytes. When the count and the validated bound say the whole request fits
    /// (always, at the default budget), no sighting is measured: this is the sighting path. That
    /// bound takes a device id of at most 64 bytes to be a token, as beacon-ingest validated it.
    ///
    /// Compact frames are measured exactly (a sighting's size is its strings' lengths and whether
    /// it carries evidence), unless a string is too long for one: then the publisher writes
    /// that message's JSON, and the JSON bound cuts all of them.
    public func ranges(of sightings: [Sighting]) -> [Range<Int>] {
        if let compactEnvelopeBytes, sightings.allSatisfy(CompactSightingBatch.fits) {
            return cut(sightings, envelope: compactEnvelopeBytes, separator: 0, cost: CompactSightingBatch.bytes(of:))
        }
        if !sightings.isEmpty && sightings.count <= maxCount && envelopeBytes + sightings.count * (Self.validatedSightingBytes + 1) <= maxBytes,
           sightings.allSatisfy({ $0.deviceId.utf8.count <= 64 && $0.beacon.uuid.utf8.count == 36 }) {
            return [sightings.indices]
        }
        // One comma between elements.
        return cut(sightings, envelope: envelopeBytes, separator: 1, cost: Self.bytesBound(of:))
    }

    /// The ranges when each sighting costs `cost` and `separator` more between two, around `envelope`.
    private func cut(_ sightings: [Sighting], envelope: Int, separator: Int, cost: (Sighting) -> Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        var bytes = envelope
        for index in sightings.indices {
            let added = cost(sightings[index]) + (index > start ? separator : 0)
            if index > start && (bytes + added > maxBytes || index - start >= maxCount) {
                ranges.append(start..<index)
                start = index
                bytes = envelope + cost(sightings[index])
            } else {
                bytes += added
            }
        }
        if start < sightings.count { ranges.append(start..<sightings.count) }
        return ranges
    }

    /// At most the bytes of `sighting`'s JSON: the fixed members at their widest, plus its strings quoted.
    public static func bytesBound(of sighting: Sighting) -> Int {
        widestWithoutStrings + quotedLength(sighting.deviceId) + quotedLength(sighting.beacon.uuid)
    }

    /// A sighting with empty strings and every number at its widest (the longest `Double` text is
    /// 24 characters, as "-2.2250738585072014e-308"), less its two empty quoted strings.
    static let widestWithoutStrings: Int = {
        let wide = -2.2250738585072014e-308
        let sighting = Sighting(deviceId: "", beacon: BeaconIdentity(uuid: "", major: 65_535, minor: 65_535), rssi: -127, measuredPower: -127,
                                accuracy: wide, proximity: .immediate, observedAt: Timestamp(milliseconds: 253_402_300_799_999),
                                meanRssi: wide, readings: Sighting.readingsRange.upperBound)
        let probe = Envelope(type: .sightingBatch, id: "i", source: "s", stream: "s", seq: 1, time: Timestamp(milliseconds: 0), body: .sightings(SightingBatch(sightings: [sighting])))
        let empty = Envelope(type: .sightingBatch, id: "i", source: "s", stream: "s", seq: 1, time: Timestamp(milliseconds: 0), body: .sightings(SightingBatch(sightings: [])))
        return Wire.encode(probe).count - Wire.encode(empty).count - 4
    }()

    /// The bytes `text` takes as a JSON string: its quotes, and an escape for every quote,
    /// backslash and control character (six for those without a short form).
    static func quotedLength(_ text: String) -> Int {
        var length = 2
        for byte in text.utf8 {
            switch byte {
            case 0x22, 0x5C, 0x0A, 0x0D, 0x09: length += 2
            case 0..<0x20: length += 6
            default: length += 1
            }
        }
        return length
    }
}
