/// Device id → slot, as an open-addressing hash table of slot numbers (linear probing, at most
/// half full). Ids are not stored here: a bucket holds `slot + 1` (0: empty) and a probe compares
/// the id of the state in that slot, which the caller reads next anyway.
///
/// Why not `[String: Int]`: a Swift dictionary keeps the key (16 bytes) and value (8) in each
/// bucket, at most three quarters full and a power of two, so about 48–64 bytes per device
/// (63 at 10⁵ devices), against 8–16 here; the probe touches a table a sixth of the size.
struct DeviceIndex {
    /// A power of two, or empty while no device was ever held.
    private var buckets: [UInt32] = []
    /// Devices held.
    private(set) var count = 0

    /// Where a probe for an id ended: its slot when held, else the empty bucket it would go in.
    struct Found {
        var bucket: Int
        var slot: Int?
    }

    /// Finds the slot whose id has this `hash` (its `hashValue`) and for which `holds` is true
    /// (the id held in the slot is the one looked for).
    func find(hash: Int, holds: (Int) -> Bool) -> Found {
        guard !buckets.isEmpty else { return Found(bucket: 0, slot: nil) }
        let mask = buckets.count - 1
        var bucket = hash & mask
        while true {
            let entry = buckets[bucket]
            if entry == 0 { return Found(bucket: bucket, slot: nil) }
            let slot = Int(entry) - 1
            if holds(slot) { return Found(bucket: bucket, slot: slot) }
            bucket = (bucket + 1) & mask
        }
    }

    /// Adds a slot not held yet, in `bucket` as `find` just returned for it (found again after
    /// the table grows). `hashOf` gives the hash of the id in a slot, for regrowing.
    mutating func insert(_ slot: Int, hash: Int, bucket: Int, hashOf: (Int) -> Int) {
        precondition(slot < Int(UInt32.max), "device slots are UInt32")
        var bucket = bucket
        if (count + 1) * 2 > buckets.count {
            grow(to: count + 1, hashOf: hashOf)
            bucket = emptyBucket(for: hash)
        }
        buckets[bucket] = UInt32(slot + 1)
        count += 1
    }

    /// Sizes the table for `capacity` devices at once.
    mutating func reserve(_ capacity: Int, hashOf: (Int) -> Int) {
        if capacity * 2 > buckets.count { grow(to: capacity, hashOf: hashOf) }
    }

    /// Empties a bucket `find` returned a slot for, moving back the entries after it that would
    /// otherwise no longer be found (backward-shift deletion: no tombstones to clean up later).
    mutating func remove(at bucket: Int, hashOf: (Int) -> Int) {
        let mask = buckets.count - 1
        var hole = bucket, next = bucket
        while true {
            next = (next + 1) & mask
            let entry = buckets[next]
            if entry == 0 { break }
            let home = hashOf(Int(entry) - 1) & mask
            // The entry may fill the hole unless its home lies cyclically in (hole, next].
            let stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
            if stays { continue }
            buckets[hole] = entry
            hole = next
        }
        buckets[hole] = 0
        count -= 1
    }

    /// Every slot held, in no particular order.
    typealias Slots = LazyMapSequence<LazyFilterSequence<[UInt32]>, Int>
    var slots: Slots { buckets.lazy.filter { $0 != 0 }.map { Int($0) - 1 } }

    private func emptyBucket(for hash: Int) -> Int {
        let mask = buckets.count - 1
        var bucket = hash & mask
        while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
        return bucket
    }

    /// Rebuilds the table with room for `capacity` devices at most half full.
    private mutating func grow(to capacity: Int, hashOf: (Int) -> Int) {
        var size = max(buckets.count, 16)
        while size < capacity * 2 { size *= 2 }
        let old = buckets
        buckets = [UInt32](repeating: 0, count: size)
        for entry in old where entry != 0 {
            buckets[emptyBucket(for: hashOf(Int(entry) - 1))] = entry
        }
    }
}
