/// Every device's compact state, one slot each, found by device id through an open-addressing
/// index of slot numbers (`DeviceIndex`). A purged device's slot is reused, its generation bumped
/// so timer entries made for the device before are recognised as stale.
final class DeviceTable {
    private var index = DeviceIndex()
    private var states: [DeviceState] = []
    private var freeSlots: [UInt32] = []
    /// The slot `claim` gave last, -1 when none or freed since. beacon-ingest writes a report's
    /// sightings together, so the next claim is most often the same device: told by comparing
    /// its id, not by hashing it and probing (3 of a first-seen device's 4 sightings).
    private var lastClaimed = -1

    /// Devices with any state held.
    var count: Int { index.count }
    /// Slots ever made, free ones included: every slot is below this.
    var slotCount: Int { states.count }
    /// The slot of every device held, in no particular order.
    var occupiedSlots: DeviceIndex.Slots { index.slots }

    /// A device's slot; nil while nothing is held for it.
    func slot(_ deviceId: String) -> Int? {
        index.find(hash: deviceId.hashValue) { states[$0].id == deviceId }.slot
    }

    /// A device's slot, made (or a freed one reused) on first use; `isNew` then.
    func claim(_ deviceId: String) -> (slot: Int, isNew: Bool) {
        if lastClaimed >= 0, states[lastClaimed].id == deviceId { return (lastClaimed, false) }
        let hash = deviceId.hashValue
        let found = index.find(hash: hash) { states[$0].id == deviceId }
        if let slot = found.slot {
            lastClaimed = slot
            return (slot, false)
        }
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = Int(free)
            states[slot] = DeviceState(id: deviceId, generation: states[slot].generation)
        } else {
            slot = states.count
            states.append(DeviceState(id: deviceId))
        }
        index.insert(slot, hash: hash, bucket: found.bucket) { states[$0].id.hashValue }
        lastClaimed = slot
        return (slot, true)
    }

    /// Makes room for `count` devices at once (a restart knows how many it restores), so the
    /// index is not rebuilt and the states not copied again and again as they grow.
    func reserve(_ count: Int) {
        index.reserve(count) { states[$0].id.hashValue }
        states.reserveCapacity(count)
    }

    /// Drops everything held for a device and frees its slot. Returns the records it had; nil
    /// when nothing was held.
    func free(_ deviceId: String) -> [CompactRecord]? {
        let found = index.find(hash: deviceId.hashValue) { states[$0].id == deviceId }
        guard let slot = found.slot else { return nil }
        if slot == lastClaimed { lastClaimed = -1 }
        index.remove(at: found.bucket) { states[$0].id.hashValue }
        let records = Array(states[slot].records)
        states[slot] = DeviceState(id: "", generation: states[slot].generation &+ 1)
        freeSlots.append(UInt32(slot))
        return records
    }

    /// The state in a slot, read and changed in place (never copied out and back: its arrays
    /// would be copied on write).
    subscript(slot: Int) -> DeviceState {
        _read { yield states[slot] }
        _modify { yield &states[slot] }
    }

    /// Drops every device's record of a condition that is gone. Returns how many were dropped.
    func dropRecords(of entry: Int) -> Int {
        var removed = 0
        for slot in index.slots { removed += states[slot].dropRecords(of: entry) }
        return removed
    }

    /// Per beacon UUID index below `indexCount`: whether any device still refers to it (a heard
    /// beacon, its nearest beacon, a record's refinement), so it cannot be recycled.
    func referencedUUIDs(indexCount: Int) -> [Bool] {
        var referenced = [Bool](repeating: false, count: indexCount)
        for device in states {
            for heard in device.heard { referenced[Int(heard.beacon.uuid)] = true }
            if let nearest = device.nearest { referenced[Int(nearest.beacon.uuid)] = true }
            for record in device.records { if let refinement = record.refinement { referenced[Int(refinement.uuid)] = true } }
        }
        return referenced
    }
}
