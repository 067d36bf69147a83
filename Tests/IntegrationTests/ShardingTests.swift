import Foundation
import Messages
import ServiceRuntime
import Testing
import ZeroMQ

/// Two beacon-ingest shards and two region-monitor shards, as docker-compose runs them, as real
/// processes: each device is served by the shard FNV-1a(deviceId) mod 2 names, and by no other.
/// One platform serves all four checks (the suite's `ShardedPlatform.Scope` starts it before the
/// first and stops it after the last): five processes started once, not four times, keep the load
/// on the machine (and on the timing-sensitive tests running beside these) down. The checks run
/// one at a time, each with devices of its own, so none depends on another having run.
@Suite(.serialized, ShardedPlatform.Scope())
struct ShardingTests {
    static let uuid = "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30"
    static let shards = 2

    /// The first id of the form `<prefix><n>` that falls in `shard`.
    static func deviceID(_ prefix: String, inShard shard: Int) -> String {
        (0...).lazy.map { "\(prefix)\($0)" }.first { Topic.shard(of: $0, count: shards) == shard }!
    }

    @Test("a device sent to the other shard's beacon-ingest is refused with ingest.wrongShard; its own shard takes it")
    func wrongShard() throws {
        let platform = try ShardedPlatform.running()
        let context = try Context()
        for shard in 0..<Self.shards {
            let device = Self.deviceID("wrong-shard-phone-", inShard: shard)
            let other = "beacon-ingest-s\((shard + 1) % Self.shards)"
            let client = RequestClient(context: context, endpoint: platform.endpoint(other))
            defer { client.close() }
            do {
                let result = try client.call(Op.ingestReport, IngestReport(deviceId: device, status: DeviceStatusReport(authorization: .whenInUse, foreground: true)), as: IngestResult.self)
                Issue.record("\(other) accepted \(device) of shard \(shard): \(result)")
            } catch let error as ServiceError {
                #expect(error.code == "ingest.wrongShard")
                #expect(error.message.contains("shard \(shard) of \(Self.shards)"), "\(error.message)")
            }
            // Its own shard takes it.
            let own = RequestClient(context: context, endpoint: platform.endpoint("beacon-ingest-s\(shard)"))
            defer { own.close() }
            let accepted = try own.call(Op.ingestReport, IngestReport(deviceId: device, status: DeviceStatusReport(authorization: .whenInUse, foreground: true)), as: IngestResult.self)
            #expect(accepted.rejected == 0)
        }
    }

    @Test("sightings on a device's own shard become region events from that shard's region-monitor only")
    func regionEventsComeFromTheOwningShard() throws {
        let platform = try ShardedPlatform.running()
        let context = try Context()
        let watcher = try BusWatcher(context: context, endpoint: platform.endpoint("bus-xpub"), prefixes: ["sighting.", "region.", "deadletter."], probe: platform.endpoint("bus-xsub"))
        defer { watcher.close() }
        try watcher.pump(milliseconds: 300)

        let devices = (0..<Self.shards).map { Self.deviceID("sharded-phone-", inShard: $0) }
        for (shard, device) in devices.enumerated() {
            let ingest = RequestClient(context: context, endpoint: platform.endpoint("beacon-ingest-s\(shard)"))
            defer { ingest.close() }
            _ = try ingest.call(Op.ingestReport, IngestReport(deviceId: device, status: DeviceStatusReport(authorization: .whenInUse, foreground: true)), as: IngestResult.self)
            // Sightings are best effort: one sent before region-monitor's subscription reached the
            // bus is gone, so send again until the event shows.
            let event = try eventually("region event for \(device)", timeout: 20) { () -> BusWatcher.Message? in
                let now = Timestamp(Date())
                let sightings = (0..<3).map { RangingReport(uuid: Self.uuid, major: 1, minor: 1, rssi: -62, measuredPower: -59, timestamp: now.adding(seconds: Double($0) * 0.2 - 0.6)) }
                let result = try ingest.call(Op.ingestReport, IngestReport(deviceId: device, sightings: sightings), as: IngestResult.self)
                #expect(result.accepted == 3, "\(result)")
                return try? watcher.waitFor("region.event.", timeout: 1) {
                    if case .region(let e) = $0.envelope.body { return e.deviceId == device && e.state == .satisfied }
                    return false
                }
            }
            #expect(event.envelope.source == "region-monitor-s\(shard)")
            #expect(event.envelope.stream == "region")
        }

        // Nothing about a device came from, or went through, another shard.
        try watcher.pump(milliseconds: 500)
        for (shard, device) in devices.enumerated() {
            let sightings = watcher.all("sighting.").filter {
                switch $0.envelope.body {
                case .sighting(let s): s.deviceId == device
                case .sightings(let batch): batch.sightings.contains { $0.deviceId == device }
                default: false
                }
            }
            #expect(!sightings.isEmpty)
            #expect(sightings.allSatisfy { $0.topic == "sighting.s\(shard)." && $0.envelope.source == "beacon-ingest-s\(shard)" })
            let events = watcher.all("region.event.").filter { if case .region(let e) = $0.envelope.body { e.deviceId == device } else { false } }
            #expect(Set(events.map(\.envelope.source)) == ["region-monitor-s\(shard)"])
        }
        #expect(watcher.all("deadletter.").isEmpty, "\(watcher.all("deadletter.").map(\.envelope.body))")
    }

    @Test("ingest.batch judges each report alone: counts for a good one, an error for a malformed or foreign one")
    func batch() throws {
        let platform = try ShardedPlatform.running()
        let context = try Context()
        let ingest = RequestClient(context: context, endpoint: platform.endpoint("beacon-ingest-s0"))
        defer { ingest.close() }

        let good = Self.deviceID("batch-phone-", inShard: 0)
        let foreign = Self.deviceID("batch-phone-", inShard: 1)
        // Not a valid device id; one that hashes to shard 0, so validation (not routing) refuses it.
        let malformed = Self.deviceID("bad id!", inShard: 0)
        let now = Timestamp(Date())
        let sighting = RangingReport(uuid: Self.uuid, major: 1, minor: 1, rssi: -62, measuredPower: -59, timestamp: now)
        let status = DeviceStatusReport(authorization: .whenInUse, foreground: true)
        let reply = try ingest.call(Op.ingestBatch, IngestBatch(reports: [
            IngestReport(deviceId: good, status: status, sightings: [sighting, sighting]),
            IngestReport(deviceId: malformed, status: status, sightings: [sighting]),
            IngestReport(deviceId: foreign, status: status, sightings: [sighting]),
        ]), as: IngestBatchResult.self)

        #expect(reply.results.map(\.deviceId) == [good, malformed, foreign])
        let (first, second, third) = (reply.results[0], reply.results[1], reply.results[2])
        #expect(first.error == nil)
        #expect(first.accepted == 3 && first.rejected == 0, "\(first)")
        #expect(second.error?.code == "request.invalidField", "\(second)")
        #expect(second.accepted == 0 && second.rejected == 0)
        #expect(third.error?.code == "ingest.wrongShard", "\(third)")
        #expect(reply.accepted == first.accepted && reply.rejected == 0)
    }

    /// Each region-monitor shard follows its own beacon-ingest shard's device stream and never
    /// catches up on the other's (issue 16): the heartbeat names its shard, whose topics this
    /// consumer does not subscribe to.
    @Test("each region-monitor shard follows its own beacon-ingest shard's device stream, and never catches up on the other's")
    func noCrossShardCatchUp() throws {
        let platform = try ShardedPlatform.running()
        let context = try Context()
        let watcher = try BusWatcher(context: context, endpoint: platform.endpoint("bus-xpub"), prefixes: ["heartbeat."], probe: platform.endpoint("bus-xsub"))
        defer { watcher.close() }
        // A device event on each shard, applied by that shard's region-monitor.
        var published: [Int: UInt64] = [:]
        for shard in 0..<Self.shards {
            let ingest = RequestClient(context: context, endpoint: platform.endpoint("beacon-ingest-s\(shard)"))
            defer { ingest.close() }
            let device = Self.deviceID("catch-up-phone-", inShard: shard)
            _ = try ingest.call(Op.ingestReport, IngestReport(deviceId: device, status: DeviceStatusReport(authorization: .whenInUse, foreground: true)), as: IngestResult.self)
            let seq = try #require(try platform.health("beacon-ingest-s\(shard)", context).streams["device"])
            published[shard] = seq
            _ = try eventually("region-monitor-s\(shard) applies its shard's device event") {
                try platform.health("region-monitor-s\(shard)", context).details["cursor.beacon-ingest-s\(shard)/device"] == "\(seq)" ? true : nil
            }
        }
        // Every region-monitor hears the other shard's heartbeats naming that event: two of them
        // from each shard (a second apart), so each consumer has had the first in hand a second.
        for shard in 0..<Self.shards {
            let source = "beacon-ingest-s\(shard)", seq = published[shard]!
            _ = try eventually("two heartbeats of \(source) naming device seq \(seq)") { () -> Bool? in
                try watcher.pump()
                let naming = watcher.all("heartbeat.").filter {
                    if $0.envelope.source == source, case .heartbeat(let h) = $0.envelope.body { (h.streams["device"] ?? 0) >= seq } else { false }
                }
                return naming.count >= 2 ? true : nil
            }
        }
        for shard in 0..<Self.shards {
            let other = (shard + 1) % Self.shards
            let details = try platform.health("region-monitor-s\(shard)", context).details
            #expect(details["cursor.beacon-ingest-s\(shard)/device"] != nil, "\(details)")
            #expect(details["cursor.beacon-ingest-s\(other)/device"] == nil, "region-monitor-s\(shard) follows shard \(other): \(details)")
            #expect(details["reasons"] == nil, "\(details)")
        }
    }
}
