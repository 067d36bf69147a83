import BeaconIngestCore
import Messages
import Testing

@Suite("Beacon ingest: shard ownership")
struct IngestShardTests {
    static func device(inShard shard: Int, of count: Int) -> String {
        (0...).lazy.map { "dev-\($0)" }.first { Topic.shard(of: $0, count: count) == shard }!
    }

    @Test("an instance of every shard serves every device, in the shard its topics carry")
    func everyShard() throws {
        let ownership = ShardOwnership(shards: 4, ownedShard: nil)
        for shard in 0..<4 { #expect(try ownership.shard(of: Self.device(inShard: shard, of: 4)) == shard) }
        #expect(ShardOwnership(shards: 0, ownedShard: nil).shards == 1, "fewer than one shard is one shard")
    }

    @Test("an instance of one shard refuses another shard's device with ingest.wrongShard, saying which shard it belongs to")
    func oneShard() throws {
        let ownership = ShardOwnership(shards: 2, ownedShard: 1)
        #expect(try ownership.shard(of: Self.device(inShard: 1, of: 2)) == 1)
        let other = Self.device(inShard: 0, of: 2)
        #expect(errorCode { () throws(ServiceError) in try ownership.shard(of: other) } == "ingest.wrongShard")
        do {
            _ = try ownership.shard(of: other)
        } catch {
            #expect(error.message == "device \(other) belongs to shard 0 of 2; this instance serves shard 1")
        }
    }
}
