import Messages
@testable import RegionMonitorCore
import Testing

/// The device table's memory layout (issue 31: ≤ 350 B per tracked device in region-monitor) and
/// the parts it is built of: the id index (open addressing, backward-shift removal) and the
/// lists whose first element is kept in place.
@Suite("Region engine: the device table's compact layout")
struct DeviceTableTests {
    /// A deterministic generator (SplitMix64), so a failing sequence of operations repeats.
    struct Steps {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    @Test("a device's state is 176 bytes a slot with its first record and first heard beacon in place; a timer entry 16")
    func layout() {
        #expect(MemoryLayout<DeviceState>.stride <= 176)
        #expect(MemoryLayout<DeadlineHeap.Entry>.stride == 16)
    }

    @Test("claims, lookups and frees agree with a dictionary over 20,000 random operations, slots reused")
    func indexAgreesWithDictionary() {
        let table = DeviceTable()
        var model: [String: Int] = [:]
        var steps = Steps(state: 31)
        var previous = "device-0"
        for _ in 0..<20_000 {
            // A third of the time the device just used again: a report's sightings come together.
            let id = steps.next(3) == 0 ? previous : "device-\(steps.next(3_000))"
            previous = id
            switch steps.next(3) {
            case 0:
                let (slot, isNew) = table.claim(id)
                #expect(isNew == (model[id] == nil))
                if let known = model[id] { #expect(slot == known) }
                model[id] = slot
                #expect(table[slot].id == id)
            case 1:
                let freed = table.free(id)
                #expect((freed != nil) == (model.removeValue(forKey: id) != nil))
            default:
                #expect(table.slot(id) == model[id])
            }
        }
        #expect(table.count == model.count)
        #expect(Set(table.occupiedSlots) == Set(model.values))
        #expect(table.slotCount <= 3_000)
        for (id, slot) in model { #expect(table.slot(id) == slot) }
    }

    @Test("the device claimed last is found again without the index, and not once it is freed, its slot reused or not")
    func lastClaimed() {
        let table = DeviceTable()
        let (a, aNew) = table.claim("phone-a")
        #expect(aNew)
        for _ in 0..<3 { #expect(table.claim("phone-a") == (a, false)) }
        #expect(table.free("phone-a") != nil)
        #expect(table.claim("phone-a").isNew, "freed: claimed anew, not the stale slot")
        #expect(table.free("phone-a") != nil)
        let (b, bNew) = table.claim("phone-b")
        #expect(bNew && b == a, "phone-a's slot reused")
        let (again, isNew) = table.claim("phone-a")
        #expect(isNew && again != b)
        #expect(table.claim("phone-b") == (b, false))
        #expect(table[b].id == "phone-b" && table[again].id == "phone-a")
    }

    @Test("a table reserved ahead holds what is claimed after it, and a freed slot comes back with its generation bumped")
    func reserveAndReuse() {
        let table = DeviceTable()
        table.reserve(1_000)
        for i in 0..<1_000 { _ = table.claim("phone-\(i)") }
        let slot = table.slot("phone-7")!
        #expect(table.free("phone-7") != nil)
        #expect(table.slot("phone-7") == nil)
        #expect(table.free("phone-7") == nil)
        let (again, isNew) = table.claim("phone-1000")
        #expect(isNew && again == slot)
        #expect(table[again].generation == 1)
        for i in 0..<1_000 where i != 7 { #expect(table.slot("phone-\(i)") != nil) }
    }

    @Test("storage numbers are given in increasing order, once each; adopted ones are never given again; a freed device's goes with it")
    func storageNumbers() {
        let table = DeviceTable()
        let slots = (0..<5).map { table.claim("phone-\($0)").slot }
        #expect(slots.map { table.storageNumber($0) } == [1, 2, 3, 4, 5])
        #expect(table.storageNumber(slots[2]) == 3, "kept")
        #expect(table.free("phone-4")?.number == 5)
        let (reused, _) = table.claim("phone-9")
        #expect(reused == slots[4] && table[reused].number == 0, "a reused slot starts without a number")
        #expect(table.storageNumber(reused) == 6, "a freed device's number is not given again while numbers remain")

        let restored = DeviceTable()
        restored.numbersGiven(upTo: 40)
        let a = restored.claim("phone-a").slot, b = restored.claim("phone-b").slot
        #expect(restored.adopt(17, slot: a) && restored[a].number == 17)
        #expect(restored.adopt(17, slot: a), "the same number again is no conflict")
        #expect(!restored.adopt(23, slot: a) && restored[a].number == 17, "a device keeps the first number it adopted")
        #expect(restored.storageNumber(b) == 41, "above every number storage holds")
        #expect(restored.adopt(90, slot: restored.claim("phone-c").slot))
        #expect(restored.storageNumber(restored.claim("phone-d").slot) == 91)
    }

    @Test("once every number has been given, the ones no device holds are given again, lowest first")
    func storageNumbersRunOut() {
        let max = UInt32.max
        let table = DeviceTable(firstNumber: UInt64(max) - 2)
        let held = (0..<3).map { table.storageNumber(table.claim("phone-\($0)").slot) }
        #expect(held == [max - 2, max - 1, max])
        // Devices holding 1, 2 and 4 (a restore), and the one holding max - 1 purged.
        for (i, number) in [UInt32(1), 2, 4].enumerated() { #expect(table.adopt(number, slot: table.claim("old-\(i)").slot)) }
        #expect(table.free("phone-1")?.number == max - 1)
        let next = (0..<3).map { table.storageNumber(table.claim("new-\($0)").slot) }
        #expect(next == [3, 5, 6])
        var seen = Set<UInt32>()
        for slot in table.occupiedSlots { #expect(seen.insert(table[slot].number).inserted, "no number held twice") }
    }

    /// The lists' shared code, on integers.
    struct IntList: InlineFirstList {
        typealias Element = Int
        var head: Int?
        var rest: [Int] = []
    }

    @Test("a list with its first element in place keeps order through appends, changes and removals")
    func inlineFirstList() {
        var list = IntList()
        #expect(list.isEmpty && list.count == 0)
        for i in 1...5 { list.append(i) }
        list[0] += 10
        list[3] += 10
        #expect(Array(list) == [11, 2, 3, 14, 5])
        list.removeAll { $0 > 10 }
        #expect(Array(list) == [2, 3, 5])
        list.removeAll { $0 == 99 }
        #expect(Array(list) == [2, 3, 5])
        list.removeAll { $0 < 5 }
        #expect(Array(list) == [5] && list.first == 5)
        list.removeAll { _ in true }
        #expect(list.isEmpty && Array(list).isEmpty)
        list.append(8)
        #expect(Array(list) == [8])
    }

    @Test("a purged device's records come back from the table and it holds nothing after")
    func purgeReturnsRecords() {
        let engine = RegionEngineTests.engine()
        _ = engine.sighting(RegionEngineTests.sighting(RegionEngineTests.macsSalad, device: "phone-a", at: 0))
        _ = engine.sighting(RegionEngineTests.sighting(RegionEngineTests.coffeeBar, device: "phone-a", at: 1))
        let effects = engine.purge(deviceId: "phone-a", at: .at(2))
        #expect(effects.events.map(\.identifier) == ["macs", "coffee"])
        #expect(engine.trackedDevices == 0)
        #expect(engine.record(deviceId: "phone-a", identifier: "macs") == nil)
    }
}
