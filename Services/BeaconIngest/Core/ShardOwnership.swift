import Messages

/// Which device shards an instance serves: every one, or a single shard when beacon-ingest is
/// scaled out. The shard is part of every topic a device's data goes out on, so a device served by
/// the wrong instance would reach region-monitor's other shard: refused instead.
public struct ShardOwnership: Sendable, Equatable {
    /// Device shards in sighting/location/device topics (the same on every instance); at least 1.
    public let shards: Int
    /// The one shard this instance serves, or nil for all.
    public let ownedShard: Int?

    /// `shards` below 1 means one shard; `ownedShard` nil serves them all.
    public init(shards: Int, ownedShard: Int?) {
        self.shards = max(1, shards)
        self.ownedShard = ownedShard
    }

    /// The device's shard, or `ingest.wrongShard` when another instance serves it.
    public func shard(of deviceId: String) throws(ServiceError) -> Int {
        let shard = Topic.shard(of: deviceId, count: shards)
        if let ownedShard, shard != ownedShard {
            throw ServiceError(.wrongShard, "device \(deviceId.prefix(64)) belongs to shard \(shard) of \(shards); this instance serves shard \(ownedShard)")
        }
        return shard
    }
}
