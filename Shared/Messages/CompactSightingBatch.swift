import Foundation

/// The compact frame of a `sighting.batch` envelope: the one hot-path encoding DESIGN §3 allows
/// beside JSON. beacon-ingest writes it (`--sighting-encoding compact`, the default) and every
/// consumer's `Wire.decodeEnvelope` reads it into the same `Envelope` the JSON gives; `cafectl
/// tail` prints it as that JSON, and `--sighting-encoding json` puts JSON back on the wire for a
/// tool that reads raw frames. JSON costs about 4,000 instructions a sighting to write and as
/// many to read, and about 280 bytes; this frame about 80 bytes, and a fraction of the work.
///
/// Little-endian, fixed layout (PROTOCOL.md, "The compact sighting batch"):
///
///     magic    00 53 42 01           "\0SB", format 1 (a JSON frame never starts with 00)
///     id       u8 length, UTF-8      then source and stream the same way
///     seq      u64                   0…2⁶³−1 (`Envelope.seqRange`)
///     time     i64 milliseconds      0000-01-01T00:00:00.000Z … 9999-12-31T23:59:59.999Z
///     count    u16                   1…256
///     count sightings, each:
///       deviceId, uuid               u8 length, UTF-8
///       major, minor                 u16 each
///       rssi, measuredPower          i8 each, in `Sighting.rssiRange` / `measuredPowerRange`
///       accuracy                     f64, finite
///       proximity                    u8: 0 immediate, 1 near, 2 far, 3 unknown
///       observedAt                   i64 milliseconds, as time
///       evidence                     u8: 0 none; 1 then meanRssi f64 and readings u16 (`validEvidence`)
///
/// Nothing may follow the last sighting. Every value has exactly one frame: decoding and
/// encoding again gives the same bytes (the fuzz target `compact` holds the reader to that and
/// to JSON's reading of the same envelope).
public enum CompactSightingBatch {
    /// The first four bytes of every compact frame.
    public static let magic: [UInt8] = [0x00, 0x53, 0x42, 0x01]

    /// The most bytes a string field takes (its length is one byte).
    public static let maxStringBytes = 255

    /// The times a compact frame can carry: those RFC 3339 writes with a four-digit year.
    public static let timeRange: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999

    /// Whether `frame` claims to be compact (its first byte could not begin JSON).
    @inline(__always)
    public static func isCompact(_ frame: Data) -> Bool { frame.first == 0x00 }

    /// The bytes of a frame without the sightings: magic, seq, time, count and the three lengths.
    static let fixedEnvelopeBytes = 4 + 3 + 8 + 8 + 2
    /// The bytes of a sighting without its two strings' bytes (their length bytes counted) or its evidence.
    static let fixedSightingBytes = 2 + 4 + 2 + 8 + 1 + 8 + 1
    static let evidenceBytes = 10

    /// The frame of `envelope`, or nil when it is not a `sighting.batch` this format carries (a
    /// string over 255 bytes, a non-finite number, a time outside `timeRange`, no sightings or
    /// more than 256, or a version other than 1): the caller writes JSON then.
    public static func encode(_ envelope: Envelope) -> Data? {
        guard envelope.type == .sightingBatch, envelope.v == 1, case .sightings(let batch) = envelope.body,
              (1...SightingBatch.maxCount).contains(batch.sightings.count), Envelope.seqRange.contains(envelope.seq),
              timeRange.contains(envelope.time.milliseconds)
        else { return nil }
        var size = fixedEnvelopeBytes + envelope.id.utf8.count + envelope.source.utf8.count + envelope.stream.utf8.count
        for s in batch.sightings {
            guard s.accuracy.isFinite, Sighting.rssiRange.contains(s.rssi), Sighting.measuredPowerRange.contains(s.measuredPower),
                  BeaconIdentity.numberRange.contains(s.beacon.major), BeaconIdentity.numberRange.contains(s.beacon.minor),
                  timeRange.contains(s.observedAt.milliseconds), Sighting.validEvidence(s.meanRssi, s.readings)
            else { return nil }
            size += bytes(of: s)
        }
        var out = Writer(capacity: size)
        out.bytes(magic)
        guard out.string(envelope.id), out.string(envelope.source), out.string(envelope.stream) else { return nil }
        out.integer(envelope.seq)
        out.integer(UInt64(bitPattern: envelope.time.milliseconds))
        out.integer(UInt16(batch.sightings.count))
        for s in batch.sightings {
            guard out.string(s.deviceId), out.string(s.beacon.uuid) else { return nil }
            out.integer(UInt16(s.beacon.major))
            out.integer(UInt16(s.beacon.minor))
            out.byte(UInt8(bitPattern: Int8(s.rssi)))
            out.byte(UInt8(bitPattern: Int8(s.measuredPower)))
            out.integer(s.accuracy.bitPattern)
            out.byte(code(of: s.proximity))
            out.integer(UInt64(bitPattern: s.observedAt.milliseconds))
            if let mean = s.meanRssi, let readings = s.readings {
                out.byte(1)
                out.integer(mean.bitPattern)
                out.integer(UInt16(readings))
            } else {
                out.byte(0)
            }
        }
        return out.data
    }

    /// The bytes `sighting` takes in a frame (its strings within 255 bytes).
    public static func bytes(of sighting: Sighting) -> Int {
        fixedSightingBytes + sighting.deviceId.utf8.count + sighting.beacon.uuid.utf8.count + (sighting.meanRssi == nil ? 0 : evidenceBytes)
    }

    /// The bytes of a frame's envelope around its sightings, for these strings.
    public static func envelopeBytes(id: String, source: String, stream: String) -> Int {
        fixedEnvelopeBytes + id.utf8.count + source.utf8.count + stream.utf8.count
    }

    /// Whether `sighting`'s strings fit a frame.
    public static func fits(_ sighting: Sighting) -> Bool {
        sighting.deviceId.utf8.count <= maxStringBytes && sighting.beacon.uuid.utf8.count <= maxStringBytes
    }

    /// The envelope in a compact frame, or the reason it is refused (`message.malformed`): a
    /// wrong magic or format, a length past the end, text that is not UTF-8, a number out of its
    /// range, a count outside 1…256, bytes after the last sighting.
    public static func decode(_ frame: Data) throws(WireError) -> Envelope {
        let result: Result<Envelope, WireError> = frame.withUnsafeBytes { raw in
            var reader = Reader(raw)
            do throws(WireError) {
                return .success(try reader.envelope())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The `source` of a compact frame without reading its sightings (the bus's publication
    /// gate); nil when its head is malformed.
    public static func source(_ frame: UnsafeRawBufferPointer) -> String? {
        var reader = Reader(frame)
        guard (try? reader.magic()) != nil, (try? reader.string("id")) != nil else { return nil }
        return try? reader.string("source")
    }

    static func code(of proximity: Proximity) -> UInt8 {
        switch proximity {
        case .immediate: 0
        case .near: 1
        case .far: 2
        case .unknown: 3
        }
    }

    static func proximity(code: UInt8) -> Proximity? {
        switch code {
        case 0: .immediate
        case 1: .near
        case 2: .far
        case 3: .unknown
        default: nil
        }
    }

    /// Appends to a buffer sized once.
    struct Writer {
        private(set) var buffer: [UInt8]

        init(capacity: Int) {
            buffer = []
            buffer.reserveCapacity(capacity)
        }

        var data: Data { Data(buffer) }

        mutating func byte(_ value: UInt8) { buffer.append(value) }
        mutating func bytes(_ values: [UInt8]) { buffer.append(contentsOf: values) }

        mutating func integer<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { buffer.append(contentsOf: $0) }
        }

        /// Its length byte and UTF-8; false when it is over 255 bytes.
        mutating func string(_ text: String) -> Bool {
            var text = text
            return text.withUTF8 { utf8 in
                guard utf8.count <= CompactSightingBatch.maxStringBytes else { return false }
                buffer.append(UInt8(utf8.count))
                buffer.append(contentsOf: utf8)
                return true
            }
        }
    }

    /// Reads a frame front to back, each read bounded by the bytes left.
    struct Reader {
        let bytes: UnsafeRawBufferPointer
        var position = 0
        /// The last long string read (over 15 bytes, so a heap block): every sighting of a
        /// campus names the same UUID, handed out again instead of allocated.
        var recentLong: String?

        init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        static func refuse(_ why: String) -> WireError { WireError(.messageMalformed, "compact sighting batch: \(why)") }

        mutating func take(_ count: Int, _ field: @autoclosure () -> String) throws(WireError) -> Int {
            guard bytes.count - position >= count else { throw Self.refuse("the frame ends inside \(field())") }
            defer { position += count }
            return position
        }

        mutating func magic() throws(WireError) {
            let at = try take(4, "its magic")
            guard bytes[at] == 0, bytes[at + 1] == 0x53, bytes[at + 2] == 0x42 else { throw Self.refuse("not a compact frame (magic)") }
            guard bytes[at + 3] == 1 else { throw WireError(.unsupportedVersion, "compact sighting batch format \(bytes[at + 3]) is not supported (this build reads 1)") }
        }

        mutating func integer<T: FixedWidthInteger>(_ type: T.Type, _ field: @autoclosure () -> String) throws(WireError) -> T {
            let at = try take(MemoryLayout<T>.size, field())
            return T(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: T.self))
        }

        mutating func string(_ field: @autoclosure () -> String) throws(WireError) -> String {
            let length = Int(bytes[try take(1, field())])
            let at = try take(length, field())
            let slice = UnsafeRawBufferPointer(rebasing: bytes[at..<(at + length)])
            var ascii = true
            for byte in slice where byte >= 0x80 { ascii = false; break }
            guard ascii else {
                guard let text = String(validating: slice, as: UTF8.self) else { throw Self.refuse("\(field()) is not UTF-8") }
                return text
            }
            guard length > 15 else { return String(decoding: slice, as: UTF8.self) }
            if let recentLong, recentLong.utf8.count == length,
               recentLong.utf8.withContiguousStorageIfAvailable({ memcmp($0.baseAddress!, slice.baseAddress!, length) == 0 }) == true {
                return recentLong
            }
            let text = String(decoding: slice, as: UTF8.self)
            recentLong = text
            return text
        }

        mutating func time(_ field: @autoclosure () -> String) throws(WireError) -> Timestamp {
            let ms = Int64(bitPattern: try integer(UInt64.self, field()))
            guard CompactSightingBatch.timeRange.contains(ms) else { throw Self.refuse("\(field()) \(ms) ms is outside years 0000…9999") }
            return Timestamp(milliseconds: ms)
        }

        mutating func envelope() throws(WireError) -> Envelope {
            try magic()
            let id = try string("id"), source = try string("source"), stream = try string("stream")
            let seq = try integer(UInt64.self, "seq")
            guard Envelope.seqRange.contains(seq) else { throw Self.refuse("seq \(seq) is over \(Envelope.seqRange.upperBound)") }
            let time = try time("time")
            let count = Int(try integer(UInt16.self, "count"))
            guard (1...SightingBatch.maxCount).contains(count) else { throw Self.refuse("count \(count) is not 1…\(SightingBatch.maxCount)") }
            // Each sighting takes at least its fixed bytes: a count the frame cannot hold is refused before anything is allocated for it.
            guard (bytes.count - position) / CompactSightingBatch.fixedSightingBytes >= count else {
                throw Self.refuse("count \(count) is more sightings than the frame's \(bytes.count) bytes hold")
            }
            var sightings: [Sighting] = []
            sightings.reserveCapacity(count)
            for index in 0..<count {
                sightings.append(try sighting(index))
            }
            guard position == bytes.count else { throw Self.refuse("\(bytes.count - position) bytes after the last sighting") }
            return Envelope(type: .sightingBatch, id: id, source: source, stream: stream, seq: seq, time: time,
                            body: .sightings(SightingBatch(sightings: sightings)))
        }

        mutating func sighting(_ index: Int) throws(WireError) -> Sighting {
            let deviceId = try string("sightings[\(index)].deviceId"), uuid = try string("sightings[\(index)].beacon.uuid")
            let major = Int(try integer(UInt16.self, "sightings[\(index)].beacon.major")), minor = Int(try integer(UInt16.self, "sightings[\(index)].beacon.minor"))
            let rssi = Int(Int8(bitPattern: try integer(UInt8.self, "sightings[\(index)].rssi")))
            guard Sighting.rssiRange.contains(rssi) else { throw Self.refuse("sightings[\(index)].rssi \(rssi) is not \(Sighting.rssiRange)") }
            let power = Int(Int8(bitPattern: try integer(UInt8.self, "sightings[\(index)].measuredPower")))
            guard Sighting.measuredPowerRange.contains(power) else { throw Self.refuse("sightings[\(index)].measuredPower \(power) is not \(Sighting.measuredPowerRange)") }
            let accuracy = Double(bitPattern: try integer(UInt64.self, "sightings[\(index)].accuracy"))
            guard accuracy.isFinite else { throw Self.refuse("sightings[\(index)].accuracy is not a finite number") }
            let code = try integer(UInt8.self, "sightings[\(index)].proximity")
            guard let proximity = CompactSightingBatch.proximity(code: code) else { throw Self.refuse("sightings[\(index)].proximity \(code) is not 0…3") }
            let observed = try time("sightings[\(index)].observedAt")
            var mean: Double?, readings: Int?
            switch try integer(UInt8.self, "sightings[\(index)].evidence") {
            case 0: break
            case 1:
                mean = Double(bitPattern: try integer(UInt64.self, "sightings[\(index)].meanRssi"))
                readings = Int(try integer(UInt16.self, "sightings[\(index)].readings"))
                guard Sighting.validEvidence(mean, readings) else {
                    throw Self.refuse("sightings[\(index)]: meanRssi (\(Sighting.rssiRange.lowerBound)…0) of \(Sighting.readingsRange) readings, not \(mean!) of \(readings!)")
                }
            case let other: throw Self.refuse("sightings[\(index)].evidence \(other) is not 0 or 1")
            }
            return Sighting(deviceId: deviceId, beacon: BeaconIdentity(uuid: uuid, major: major, minor: minor), rssi: rssi, measuredPower: power,
                            accuracy: accuracy, proximity: proximity, observedAt: observed, meanRssi: mean, readings: readings)
        }
    }
}

/// How beacon-ingest writes `sighting.batch` messages (`--sighting-encoding`).
public enum SightingEncoding: String, Sendable, CaseIterable {
    /// `CompactSightingBatch`'s frame: what consumers read fastest.
    case compact
    /// The envelope's JSON, for a tool that reads raw frames off the bus.
    case json
}
