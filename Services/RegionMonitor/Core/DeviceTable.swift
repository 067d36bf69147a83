/// Every device's compact state, one slot each, found by device id through an open-addressing
/// index of slot numbers (`DeviceIndex`). A purged device's slot is reused, its generation bumped
/// so timer entries made for the device before are recognised as stale.
///
/// Each device stored also has a number its rows are keyed by (`storageNumber`), given in
/// increasing order: a first-seen device's record and nearest answer go at the end of their
/// tables, on the pages the devices before it were written to, instead of each at a random
/// page of a b-tree keyed by text (which at 10⁶ devices is mostly not in the page cache, and is
/// written to the log whole for the one row).
final class DeviceTable {
    private var index = DeviceIndex()
    private var states: [DeviceState] = []
    private var freeSlots: [UInt32] = []
    /// The slot `claim` gave last, -1 when none or freed since. beacon-ingest writes a report's
    /// sightings together, so the next claim is most often the same device: told by comparing
    /// its id, not by hashing it and probing (3 of a first-seen device's 4 sightings).
    private var lastClaimed = -1
    /// The lowest storage number never given (one past `UInt32.max` once every one was).
    private var nextNumber: UInt64
    /// Numbers no device holds, given once every number has been: ranges, the lowest last.
    private var spareNumbers: [ClosedRange<UInt32>] = []

    /// An empty table; its first storage number is `firstNumber` (tests start near the end).
    init(firstNumber: UInt64 = 1) {
        nextNumber = firstNumber
    }

    /// Devices with any state held.
    var count: Int { index.count }
    /// Slots ever made, free ones included: every slot is below this.
    var slotCount: Int { states.count }
    /// The slot of every device held, in no particular order.
    var occupiedSlots: DeviceIndex.Slots { index.slots }

    /// A device's slot; nil while nothing is held for it.
    func slot(_ deviceId: String) -> Int? {
        if lastClaimed >= 0, states[lastClaimed].id == deviceId { return lastClaimed }
        return index.find(hash: deviceId.hashValue) { states[$0].id == deviceId }.slot
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

    /// The number the device in `slot` has its rows stored under, given now if it has none.
    func storageNumber(_ slot: Int) -> UInt32 {
        if states[slot].number != 0 { return states[slot].number }
        let number = takeNumber()
        states[slot].number = number
        return number
    }

    /// A device's number as storage has it (a restore): kept, and never given to another device.
    /// False, and the device's number unchanged, when it already has a different one (rows of
    /// one device stored under two numbers: the caller moves them to the one it keeps).
    func adopt(_ number: UInt32, slot: Int) -> Bool {
        guard number != 0, states[slot].number != number else { return true }
        guard states[slot].number == 0 else { return false }
        states[slot].number = number
        nextNumber = max(nextNumber, UInt64(number) + 1)
        return true
    }

    /// Numbers up to `highest` are held in storage: none is given again.
    func numbersGiven(upTo highest: UInt32) {
        nextNumber = max(nextNumber, UInt64(highest) + 1)
    }

    private func takeNumber() -> UInt32 {
        if nextNumber <= UInt64(UInt32.max) {
            defer { nextNumber += 1 }
            return UInt32(nextNumber)
        }
        // Every number has been given once (4·10⁹ devices first seen, purged ones included):
        // those no device holds now are given again, lowest first.
        if spareNumbers.isEmpty { spareNumbers = unheldNumbers() }
        guard let range = spareNumbers.popLast() else { preconditionFailure("every storage number is held by a device") }
        if range.lowerBound < range.upperBound { spareNumbers.append(range.lowerBound + 1 ... range.upperBound) }
        return range.lowerBound
    }

    /// The numbers from 1 to `UInt32.max` no device holds, as ranges, the lowest last.
    private func unheldNumbers() -> [ClosedRange<UInt32>] {
        var held: [UInt32] = []
        for slot in index.slots where states[slot].number != 0 { held.append(states[slot].number) }
        held.sort()
        var ranges: [ClosedRange<UInt32>] = []
        var next: UInt64 = 1
        for number in held {
            if UInt64(number) > next { ranges.append(UInt32(next) ... number - 1) }
            next = UInt64(number) + 1
        }
        if next <= UInt64(UInt32.max) { ranges.append(UInt32(next) ... UInt32.max) }
        return ranges.reversed()
    }

    /// Drops everything held for a device and frees its slot. Returns the records it had and its
    /// storage number (0: none); nil when nothing was held.
    func free(_ deviceId: String) -> (records: [CompactRecord], number: UInt32)? {
        let found = index.find(hash: deviceId.hashValue) { states[$0].id == deviceId }
        guard let slot = found.slot else { return nil }
        if slot == lastClaimed { lastClaimed = -1 }
        index.remove(at: found.bucket) { states[$0].id.hashValue }
        let records = Array(states[slot].records), number = states[slot].number
        states[slot] = DeviceState(id: "", generation: states[slot].generation &+ 1)
        freeSlots.append(UInt32(slot))
        return (records, number)
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
