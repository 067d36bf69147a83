import Foundation
@testable import Messages
import ServiceRuntime
import Testing

/// The compact `sighting.batch` frame reads into exactly the envelope its JSON gives, has one
/// frame per value, and refuses anything else with `message.malformed` naming what is wrong.
@Suite("Compact sighting batch: the hot-path frame reads as its JSON does, and refuses the rest")
struct CompactSightingBatchTests {
    static let batches = SightingCodecTests.batchSamples()

    /// The frame of a one-sighting batch with the evidence, for refusals by byte.
    static func one(meanRssi: Double? = -63.4, readings: Int? = 12) -> (Envelope, Data) {
        let sighting = Sighting(deviceId: "phone-7", beacon: BeaconIdentity(uuid: "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30", major: 3, minor: 2), rssi: -61,
                                measuredPower: -59, accuracy: 1.41, proximity: .near, observedAt: Timestamp(milliseconds: 1_782_000_000_123),
                                meanRssi: meanRssi, readings: readings)
        let envelope = Envelope(type: .sightingBatch, id: "k3-sighting-9", source: "beacon-ingest", stream: "sighting", seq: 9,
                                time: Timestamp(milliseconds: 1_782_000_000_200), body: .sightings(SightingBatch(sightings: [sighting])))
        return (envelope, CompactSightingBatch.encode(envelope)!)
    }

    /// Where the one sighting's fields start in `one()`'s frame: magic 4, id 1+13, source 1+13,
    /// stream 1+8, seq 8, time 8, count 2; then deviceId 1+7 and uuid 1+36.
    static let sightingStart = 4 + 14 + 14 + 9 + 8 + 8 + 2
    static let majorAt = sightingStart + 8 + 37
    static let rssiAt = majorAt + 4
    static let proximityAt = rssiAt + 2 + 8
    static let evidenceAt = proximityAt + 1 + 8

    static func refusal(_ frame: Data) -> WireError? {
        do {
            _ = try Wire.decodeEnvelope(frame, maxBytes: .max)
            return nil
        } catch {
            return error
        }
    }

    @Test("every sample batch: the frame reads as the envelope, encodes again to the same bytes, and its JSON reads the same")
    func roundTrip() throws {
        for envelope in Self.batches {
            let frame = try #require(CompactSightingBatch.encode(envelope))
            #expect(frame.prefix(4) == Data(CompactSightingBatch.magic))
            let read = try Wire.decodeEnvelope(frame)
            #expect(read == envelope)
            #expect(CompactSightingBatch.encode(read) == frame)
            #expect(try Wire.decodeEnvelope(Wire.encode(envelope)) == read)
            var size = CompactSightingBatch.envelopeBytes(id: envelope.id, source: envelope.source, stream: envelope.stream)
            if case .sightings(let batch) = envelope.body { size += batch.sightings.map(CompactSightingBatch.bytes(of:)).reduce(0, +) }
            #expect(frame.count == size, "the sizes the splitter charges are the frame's")
            #expect(frame.count < Wire.encode(envelope).count / 2)
        }
    }

    @Test("a string over 255 bytes, a non-finite accuracy, a time past 9999 or another event type is left to JSON (nil)")
    func leftToJSON() {
        let (envelope, _) = Self.one()
        guard case .sightings(let batch) = envelope.body else { return }
        func with(_ change: (inout Sighting) -> Void) -> Envelope {
            var s = batch.sightings[0]
            change(&s)
            var e = envelope
            e.body = .sightings(SightingBatch(sightings: [s]))
            return e
        }
        #expect(CompactSightingBatch.encode(with { $0.deviceId = String(repeating: "d", count: 256) }) == nil)
        #expect(CompactSightingBatch.encode(with { $0.deviceId = String(repeating: "d", count: 255) }) != nil)
        #expect(CompactSightingBatch.encode(with { $0.accuracy = .infinity }) == nil)
        #expect(CompactSightingBatch.encode(with { $0.observedAt = Timestamp(milliseconds: 253_402_300_800_000) }) == nil)
        var longSource = envelope
        longSource.source = String(repeating: "s", count: 256)
        #expect(CompactSightingBatch.encode(longSource) == nil)
        let single = Envelope(type: .sightingReported, source: "beacon-ingest", stream: "sighting", seq: 1, time: envelope.time, body: .sighting(batch.sightings[0]))
        #expect(CompactSightingBatch.encode(single) == nil)
    }

    @Test("each field out of its range is refused as message.malformed naming it; nothing is read")
    func fieldRefusals() throws {
        let (_, frame) = Self.one()
        func changed(_ at: Int, _ bytes: [UInt8]) -> Data {
            var copy = frame
            copy.replaceSubrange(at..<(at + bytes.count), with: bytes)
            return copy
        }
        let cases: [(Data, String)] = [
            (changed(Self.rssiAt, [5]), "sightings[0].rssi 5 is not -127...0"),
            (changed(Self.rssiAt, [0x80]), "sightings[0].rssi -128 is not -127...0"),
            (changed(Self.rssiAt + 1, [0]), "sightings[0].measuredPower 0 is not -127...-1"),
            (changed(Self.rssiAt + 2, [0, 0, 0, 0, 0, 0, 0xF8, 0x7F]), "sightings[0].accuracy is not a finite number"),
            (changed(Self.proximityAt, [4]), "sightings[0].proximity 4 is not 0…3"),
            (changed(Self.proximityAt + 1, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]), "outside years 0000…9999"),
            (changed(Self.evidenceAt, [2]), "sightings[0].evidence 2 is not 0 or 1"),
            (changed(Self.evidenceAt + 9, [0, 0]), "sightings[0]: meanRssi"),
            (changed(Self.sightingStart + 1, [0xC3, 0x28]), "sightings[0].deviceId is not UTF-8"),
            (changed(Self.sightingStart - 2, [0, 0]), "count 0 is not 1…256"),
            (changed(Self.sightingStart - 2, [1, 1]), "count 257 is not 1…256"),
            (changed(Self.sightingStart - 2, [0, 1]), "count 256 is more sightings than the frame's"),
            (changed(Self.sightingStart - 18, [0, 0, 0, 0, 0, 0, 0, 0x80]), "seq 9223372036854775808 is over 9223372036854775807"),
            (frame + Data([0]), "1 bytes after the last sighting"),
            (changed(1, [0x54]), "not a compact frame (magic)"),
        ]
        for (bad, message) in cases {
            let error = try #require(Self.refusal(bad), "\(message)")
            #expect(error.code == .messageMalformed && error.message.hasPrefix("compact sighting batch: ") && error.message.contains(message),
                    "\(error.message) should say \(message)")
        }
        let version = try #require(Self.refusal(changed(3, [2])))
        #expect(version.code == .unsupportedVersion)
        #expect(throws: WireError.self) { try Wire.decodeEnvelope(frame, maxBytes: frame.count - 1) }
        do {
            _ = try Wire.decodeEnvelope(frame, maxBytes: frame.count - 1)
        } catch {
            #expect(error.code == .messageTooLarge)
        }
    }

    @Test("every truncation of a frame is refused, naming the field it ends in (or the count it cannot hold); none reads")
    func truncations() throws {
        let (_, frame) = Self.one()
        for length in 1..<frame.count {
            let error = try #require(Self.refusal(frame.prefix(length)), "\(length) bytes")
            #expect(error.code == .messageMalformed && (error.message.contains("the frame ends inside") || error.message.contains("more sightings than")),
                    "\(length): \(error.message)")
        }
    }

    @Test("a sighting without evidence reads without it; non-ASCII text reads as UTF-8")
    func variants() throws {
        let (plain, frame) = Self.one(meanRssi: nil, readings: nil)
        #expect(try Wire.decodeEnvelope(frame) == plain)
        var text = plain
        guard case .sightings(var batch) = text.body else { return }
        batch.sightings[0].deviceId = "téléphone-\u{1F600}"
        text.body = .sightings(SightingBatch(sightings: [batch.sightings[0], batch.sightings[0]]))
        let encoded = try #require(CompactSightingBatch.encode(text))
        #expect(try Wire.decodeEnvelope(encoded) == text)
    }

    @Test("the bus reads a compact frame's source from its head; a head that does not read gives nil")
    func source() {
        let (envelope, frame) = Self.one()
        #expect(EnvelopeSource.read(frame) == envelope.source)
        #expect(EnvelopeSource.read(frame.prefix(4 + 14 + 5)) == nil)
        #expect(EnvelopeSource.read(Data([0, 0x53, 0x42, 0x01])) == nil)
    }

    @Test("a dead letter quotes a compact frame in hex, not as broken text")
    func deadLetterExcerpt() {
        let (_, frame) = Self.one()
        let letter = DeadLetters.letter(service: "region-monitor", topic: "sighting.s0.", raw: frame, error: WireError(.messageMalformed, "x"))
        #expect(letter.excerpt.hasPrefix("compact frame of \(frame.count) bytes, hex: 00534201"))
        #expect(letter.excerpt.count == "compact frame of \(frame.count) bytes, hex: ".count + 2 * frame.count)
    }

    @Test("PROTOCOL.md's compact frame is the sighting.batch example's envelope, byte for byte, with the sizes it states")
    func documentedFrame() throws {
        let document = try ProtocolDocumentTests.document()
        let lines = document.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "```hex compact"))
        let end = try #require(lines[start...].firstIndex(of: "```"))
        var bytes: [UInt8] = []
        for line in lines[(start + 1)..<end] {
            let hex = line.split(separator: "#", maxSplits: 1).first ?? ""
            for pair in hex.split(separator: " ") { bytes.append(try #require(UInt8(pair, radix: 16), "\(pair)")) }
        }
        let frame = Data(bytes)
        let example = try #require(try ProtocolDocumentTests.examples().first { $0.kind == "envelope" && (try? Wire.decodeEnvelope($0.json).type) == .sightingBatch })
        let envelope = try Wire.decodeEnvelope(example.json)
        #expect(try Wire.decodeEnvelope(frame) == envelope)
        #expect(CompactSightingBatch.encode(envelope) == frame)
        let stated = "as a compact frame (\(frame.count) bytes; its JSON is \(Wire.encode(envelope).count))"
        let says = document.contains(stated)
        #expect(says, "PROTOCOL.md should say \(stated)")
    }
}
