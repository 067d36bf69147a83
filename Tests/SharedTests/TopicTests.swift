import Foundation
import Messages
import Testing

@Suite("Topics")
struct TopicTests {
    @Test("every builder gives a dotted topic ending in a dot", arguments: [
        (Topic.sighting(shard: 3), "sighting.s3."),
        (Topic.location(shard: 0), "location.s0."),
        (Topic.device(shard: 15), "device.s15."),
        (Topic.regionEvent(monitor: "cafes"), "region.event.cafes."),
        (Topic.regionNearest, "region.nearest."),
        (Topic.regionPurged, "region.purged."),
        (Topic.order(state: "ready", cafe: "macs"), "order.ready.macs."),
        (Topic.order(state: "placed", cafe: "macs-park"), "order.placed.macs-park."),
        (Topic.kitchen(event: "ready", cafe: "macs"), "kitchen.ready.macs."),
        (Topic.notifyDelivery(device: "dev-9"), "notify.delivery.dev-9."),
        (Topic.notifyUndeliverable, "notify.undeliverable."),
        (Topic.heartbeat(source: "order-service"), "heartbeat.order-service."),
        (Topic.deadLetter(service: "kitchen-display"), "deadletter.kitchen-display."),
        (Topic.make("a"), "a."),
        (Topic.make(["x", "y", "z"]), "x.y.z."),
    ])
    func builders(topic: String, expected: String) {
        #expect(topic == expected)
        #expect(topic.hasSuffix("."))
        #expect(!topic.contains(".."))
    }

    @Test("the trailing dot stops a café's prefix matching a longer sibling café")
    func siblingsDoNotCollide() {
        let macs = Topic.order(state: "ready", cafe: "macs")
        let park = Topic.order(state: "ready", cafe: "macs-park")
        #expect(!park.hasPrefix(macs), "\(park) must not match a subscription to \(macs)")
        #expect(!macs.hasPrefix(park))
        #expect(park.hasPrefix("order.ready."))
        #expect(macs.hasPrefix("order."))
        // Without the dot the sibling would match: this is why every topic ends in one.
        #expect(park.hasPrefix(String(macs.dropLast())))
    }

    @Test("shard assignment is a fixed FNV-1a hash: the same in every process and release", arguments: [
        ("dev-9", 4, 2), ("dev-9", 8, 6), ("dev-9", 16, 14),
        ("device-1", 4, 1), ("device-2", 4, 0), ("device-2", 16, 8),
        ("A1B2C3D4-0000-4000-8000-000000000001", 16, 10),
        ("", 8, 5), ("ü", 4, 2),
    ])
    func shardIsStable(device: String, count: Int, shard: Int) {
        #expect(Topic.shard(of: device, count: count) == shard)
    }

    @Test("shards are in range and spread devices evenly")
    func shardSpread() {
        let count = 8
        var perShard = [Int](repeating: 0, count: count)
        for index in 0..<16_000 {
            let shard = Topic.shard(of: "device-\(index)", count: count)
            #expect((0..<count).contains(shard))
            perShard[shard] += 1
        }
        // 2,000 each on average; a usable hash stays well within ±20 %.
        #expect(perShard.allSatisfy { (1_600...2_400).contains($0) }, "\(perShard)")
    }

    @Test("a shard count below one means a single shard", arguments: [0, 1, -3])
    func degenerateCounts(_ count: Int) {
        #expect(Topic.shard(of: "dev-9", count: count) == 0)
    }

    @Test("a topic part with a dot is a programming error")
    func dottedPartTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = Topic.make("order", "ready.macs")
        }
    }
}
