import BeaconIngestCore
import Messages
import Testing

@Suite("Beacon ingest: sighting batches bounded by bytes")
struct SightingBatchSplitterTests {
    static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"

    /// A sighting as beacon-ingest publishes it; `wide` gives every number its longest text and
    /// the device id its longest validated form.
    static func sighting(_ index: Int, wide: Bool = false) -> Sighting {
        let id = wide ? "d" + String(repeating: "x", count: 59) + String(format: "%04d", index % 10_000) : "dev-\(index)"
        return Sighting(deviceId: id, beacon: BeaconIdentity(uuid: uuid, major: wide ? 65_535 : 1, minor: index % 65_536), rssi: wide ? -127 : -64,
                        measuredPower: wide ? -127 : -59, accuracy: wide ? 1234.5678901234567 : 1.78, proximity: wide ? .immediate : .near,
                        observedAt: Timestamp(milliseconds: 1_790_000_000_000 + Int64(index)), meanRssi: wide ? -65.12345678901234 : -65.3,
                        readings: wide ? 1_000 : 17)
    }

    /// The frame beacon-ingest would send for `chunk`, numbered as its widest.
    static func frame(_ chunk: [Sighting]) -> Int {
        let seq = UInt64.max
        let envelope = Envelope(type: .sightingBatch, id: "zzzzzzzzzzzzz-sighting-\(seq)", source: "beacon-ingest", stream: "sighting", seq: seq,
                                time: Timestamp(milliseconds: 1_790_000_000_000), body: .sightings(SightingBatch(sightings: chunk)))
        return Wire.encode(envelope).count
    }

    @Test("every message stays within the byte budget and 256 sightings, and together they are every sighting in order",
          arguments: [1_024, 2_000, 8_192, 65_536, 262_144])
    func withinBudget(budget: Int) {
        let envelope = SightingBatchSplitter.envelopeBytes(source: "beacon-ingest", stream: "sighting")
        let splitter = SightingBatchSplitter(maxBytes: budget, envelopeBytes: envelope)
        for wide in [false, true] {
            let sightings = (0..<1_000).map { Self.sighting($0, wide: wide) }
            let ranges = splitter.ranges(of: sightings)
            #expect(ranges.map(\.count).reduce(0, +) == sightings.count)
            #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound }, "contiguous, in order")
            #expect(ranges.first?.lowerBound == 0)
            for range in ranges {
                let bytes = Self.frame(Array(sightings[range]))
                #expect(bytes <= budget, "\(range.count) sightings took \(bytes) B of \(budget)")
                #expect(range.count <= SightingBatch.maxCount)
            }
            // Not needlessly small: the bound charges a sighting at most its widest numbers.
            if budget >= 8_192, let first = ranges.first, ranges.count > 1 {
                #expect(Self.frame(Array(sightings[first])) > budget * 2 / 3 || first.count == SightingBatch.maxCount)
            }
        }
    }

    @Test("the default budget leaves batches at 256 sightings, as before")
    func defaultBudget() {
        let splitter = SightingBatchSplitter(maxBytes: Wire.defaultMaxFrameBytes,
                                             envelopeBytes: SightingBatchSplitter.envelopeBytes(source: "beacon-ingest", stream: "sighting"))
        #expect(splitter.ranges(of: (0..<600).map { Self.sighting($0) }) == [0..<256, 256..<512, 512..<600])
        #expect(splitter.ranges(of: []).isEmpty)
    }

    @Test("a bound is never below what a sighting encodes to, escapes included")
    func boundCoversEncoding() {
        var odd = Self.sighting(1, wide: true)
        odd.deviceId = "quote\"back\\slash\nline\u{01}"
        for sighting in [Self.sighting(7), Self.sighting(7, wide: true), odd] {
            let one = Self.frame([sighting]), none = Self.frame([])
            #expect(SightingBatchSplitter.bytesBound(of: sighting) >= one - none)
        }
    }

    @Test("the validated bound covers the widest sighting beacon-ingest accepts, so a request it says fits goes whole and within budget")
    func validatedBound() {
        let widest = Self.sighting(9_999, wide: true)
        #expect(widest.deviceId.utf8.count == 64)
        #expect(SightingBatchSplitter.validatedSightingBytes >= Self.frame([widest]) - Self.frame([]))
        let envelope = SightingBatchSplitter.envelopeBytes(source: "beacon-ingest", stream: "sighting")
        let fits = envelope + 200 * (SightingBatchSplitter.validatedSightingBytes + 1)
        let splitter = SightingBatchSplitter(maxBytes: fits, envelopeBytes: envelope)
        let sightings = (0..<200).map { Self.sighting($0, wide: true) }
        #expect(splitter.ranges(of: sightings) == [0..<200])
        #expect(Self.frame(sightings) <= fits)
    }

    @Test("a sighting too large for the budget on its own goes alone")
    func oversizeAlone() {
        let splitter = SightingBatchSplitter(maxBytes: 300, envelopeBytes: 250)
        #expect(splitter.ranges(of: (0..<3).map { Self.sighting($0) }) == [0..<1, 1..<2, 2..<3])
    }

    /// The compact frame beacon-ingest would send for `chunk`, numbered as its widest; nil when it writes JSON.
    static func compactFrame(_ chunk: [Sighting]) -> Int? {
        let seq = UInt64(Int64.max)
        let envelope = Envelope(type: .sightingBatch, id: "zzzzzzzzzzzzz-sighting-\(UInt64.max)", source: "beacon-ingest", stream: "sighting", seq: seq,
                                time: Timestamp(milliseconds: 1_790_000_000_000), body: .sightings(SightingBatch(sightings: chunk)))
        return CompactSightingBatch.encode(envelope)?.count
    }

    @Test("compact frames: each message's frame within the budget and 256 sightings, every sighting in order, and the budget filled",
          arguments: [1_024, 2_000, 8_192, 65_536])
    func compactWithinBudget(budget: Int) throws {
        let compact = try #require(SightingBatchSplitter.compactEnvelopeBytes(source: "beacon-ingest", stream: "sighting"))
        let splitter = SightingBatchSplitter(maxBytes: budget, envelopeBytes: SightingBatchSplitter.envelopeBytes(source: "beacon-ingest", stream: "sighting"),
                                             compactEnvelopeBytes: compact)
        for wide in [false, true] {
            // Some without evidence: a sighting's size depends on it.
            let sightings = (0..<1_000).map { index -> Sighting in
                var s = Self.sighting(index, wide: wide)
                if index % 3 == 0 { (s.meanRssi, s.readings) = (nil, nil) }
                return s
            }
            let ranges = splitter.ranges(of: sightings)
            #expect(ranges.map(\.count).reduce(0, +) == sightings.count)
            #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound }, "contiguous, in order")
            for range in ranges {
                let bytes = try #require(Self.compactFrame(Array(sightings[range])))
                #expect(bytes <= budget, "\(range.count) sightings took \(bytes) B of \(budget)")
                #expect(range.count <= SightingBatch.maxCount)
                // Measured, not bounded: the next sighting would not have fitted.
                if range.upperBound < sightings.count && range.count < SightingBatch.maxCount {
                    let more = try #require(Self.compactFrame(Array(sightings[range.lowerBound...range.upperBound])))
                    #expect(more > budget)
                }
            }
            // Compact frames carry about three times the sightings JSON does, unless 256 a message is what limits them.
            let json = SightingBatchSplitter(maxBytes: budget, envelopeBytes: SightingBatchSplitter.envelopeBytes(source: "beacon-ingest", stream: "sighting"))
            let countLimited = (sightings.count + SightingBatch.maxCount - 1) / SightingBatch.maxCount
            #expect(ranges.count * 2 <= json.ranges(of: sightings).count || ranges.count == countLimited, "\(ranges.count) compact messages")
        }
    }

    @Test("compact frames: a device id too long for one sends the request by the JSON bound, which JSON stays within")
    func compactLongString() throws {
        let budget = 4_096
        let envelope = SightingBatchSplitter.envelopeBytes(source: "beacon-ingest", stream: "sighting")
        let splitter = SightingBatchSplitter(maxBytes: budget, envelopeBytes: envelope,
                                             compactEnvelopeBytes: SightingBatchSplitter.compactEnvelopeBytes(source: "beacon-ingest", stream: "sighting"))
        var sightings = (0..<100).map { Self.sighting($0) }
        sightings[50].deviceId = String(repeating: "L", count: 300)
        let ranges = splitter.ranges(of: sightings)
        #expect(ranges == SightingBatchSplitter(maxBytes: budget, envelopeBytes: envelope).ranges(of: sightings))
        for range in ranges {
            let chunk = Array(sightings[range])
            #expect((Self.compactFrame(chunk) ?? Self.frame(chunk)) <= budget)
        }
        #expect(SightingBatchSplitter.compactEnvelopeBytes(source: String(repeating: "s", count: 256), stream: "sighting") == nil)
    }
}
