import Foundation
import Messages

/// (d) JSON encode and decode rate of the envelope, on one core: a sighting and a sighting batch
/// (the hot path), and the batch's compact frame beside its JSON.
enum CodecBenchmark {
    struct Result {
        var name: String
        var bytes: Int
        var encodePerSecond: Double
        var decodePerSecond: Double
        /// Sightings per envelope: the rates are per sighting when more than one.
        var sightingsEach = 1
    }

    static func sampleSighting(_ i: Int) -> Envelope {
        Envelope(type: .sightingReported, source: "beacon-ingest", stream: "sighting", seq: UInt64(i + 1), time: Timestamp(milliseconds: 1_782_000_000_000 + Int64(i)),
                 body: .sighting(Sighting(deviceId: "device-\(i % 100_000)", beacon: BeaconIdentity(uuid: "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30", major: 1 + i % 6, minor: 1 + i % 3),
                                          rssi: -60 - i % 20, measuredPower: -59, accuracy: 1.41, proximity: .near,
                                          observedAt: Timestamp(milliseconds: 1_782_000_000_000 + Int64(i)))))
    }

    /// A `sighting.batch` as beacon-ingest publishes it: 256 sightings of different phones, one
    /// campus UUID, smoothed values with the evidence (accuracy to the centimetre, as
    /// `ProximityEstimator` gives it; the mean RSSI to 0.1 dBm).
    static func sampleBatch(_ k: Int) -> Envelope {
        let sightings = (0..<SightingBatch.maxCount).map { j -> Sighting in
            let i = k * SightingBatch.maxCount + j
            return Sighting(deviceId: "lt0a1b2c-p\(i % 100_000)", beacon: BeaconIdentity(uuid: "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30", major: 1 + i % 6, minor: 1 + i % 3),
                            rssi: -60 - i % 20, measuredPower: -59, accuracy: ((1.4125375446227544 + Double(i % 7) / 3) * 100).rounded() / 100, proximity: .near,
                            observedAt: Timestamp(milliseconds: 1_782_000_000_000 + Int64(i)), meanRssi: -63.4, readings: 12)
        }
        return Envelope(type: .sightingBatch, source: "beacon-ingest", stream: "sighting", seq: UInt64(k + 1), time: Timestamp(milliseconds: 1_782_000_000_000 + Int64(k)),
                        body: .sightings(SightingBatch(sightings: sightings)))
    }

    /// An `ingest.batch` request as a gateway sends it: 50 phones' reports of 2 beacons each,
    /// each ranging report laid out as JSONEncoder writes it with sorted keys.
    static func sampleIngestBatch(_ k: Int) -> Data {
        let reports = (0..<50).map { j -> IngestReport in
            let i = k * 50 + j
            let sightings = (0..<2).map { b in
                RangingReport(uuid: "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30", major: 1 + (i + b) % 6, minor: 1 + b, rssi: -60 - (i + b) % 20, measuredPower: -59,
                              timestamp: Timestamp(milliseconds: 1_782_000_000_000 + Int64(i)), proximity: b == 0 ? .near : nil, accuracy: b == 0 ? 1.41 : nil)
            }
            return IngestReport(deviceId: "lt0a1b2c-p\(i % 100_000)", status: nil, sightings: sightings, fixes: nil)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(Request(op: Op.ingestBatch, id: "b-\(k)", body: IngestBatch(reports: reports)))) ?? Data()
    }

    /// Decodes per second, of requests and of the ranging reports in them.
    static func measureIngestDecode(seconds: Double) -> (bytes: Int, requests: Double, reports: Double) {
        let frames = (0..<8).map(sampleIngestBatch)
        var decoded = 0
        let start = Bench.now()
        while Bench.now() - start < seconds {
            for frame in frames { _ = try? Wire.decodeRequest(frame, body: IngestBatch.self) }
            decoded += frames.count
        }
        let rate = Double(decoded) / (Bench.now() - start)
        return (frames.map(\.count).reduce(0, +) / frames.count, rate, rate * 100)
    }

    static func run(seconds: Double) -> [Result] {
        var results: [Result] = []
        let sightings = (0..<1000).map(sampleSighting)
        results.append(measure("sighting envelope", sightings, seconds: seconds))
        let batches = (0..<8).map(sampleBatch)
        var batch = measure("sighting.batch envelope", batches, seconds: seconds)
        batch.sightingsEach = SightingBatch.maxCount
        results.append(batch)
        // What beacon-ingest writes by default and region-monitor reads (`--sighting-encoding`).
        var compact = measure("sighting.batch compact frame", batches, seconds: seconds) { CompactSightingBatch.encode($0) ?? Data() }
        compact.sightingsEach = SightingBatch.maxCount
        results.append(compact)
        return results
    }

    static func measure(_ name: String, _ samples: [Envelope], seconds: Double, encode: (Envelope) -> Data = { Wire.encode($0) }) -> Result {
        let frames = samples.map(encode)
        var encoded = 0
        var start = Bench.now()
        while Bench.now() - start < seconds {
            for envelope in samples { _ = encode(envelope) }
            encoded += samples.count
        }
        let encodeRate = Double(encoded) / (Bench.now() - start)
        var decoded = 0
        start = Bench.now()
        while Bench.now() - start < seconds {
            for frame in frames { _ = try? Wire.decodeEnvelope(frame) }
            decoded += frames.count
        }
        let decodeRate = Double(decoded) / (Bench.now() - start)
        return Result(name: name, bytes: frames.map(\.count).reduce(0, +) / frames.count, encodePerSecond: encodeRate, decodePerSecond: decodeRate)
    }
}
