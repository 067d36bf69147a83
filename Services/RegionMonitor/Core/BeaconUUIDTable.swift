/// The beacon UUIDs conditions name, each stored once under a small index (`CompactBeacon.uuid`).
///
/// Only a condition puts a UUID here: a sighting's UUID is looked up, never added, so phones
/// (which choose what they report) cannot grow the table. A UUID no condition names any more is
/// retired: sightings of it are no longer looked up, but its text stays while heard beacons or
/// nearest answers may still refer to its index, and it is recycled only when the table is full
/// and the engine has checked that nothing refers to it.
struct BeaconUUIDTable {
    /// Indices are `Int16`: 0…32767.
    static let capacity = Int(Int16.max) + 1

    private var texts: [String] = []
    private var indices: [String: Int16] = [:]
    /// Per index: how many conditions name it; 0 retired, -1 free for reuse.
    private var names: [Int32] = []
    private var free: [Int16] = []

    /// Indices ever handed out, free ones included (the size of `recycle`'s `referenced`).
    var indexCount: Int { texts.count }
    /// UUIDs held: named by conditions or retired.
    var count: Int { texts.count - free.count }

    /// The index of a UUID some condition names; nil for any other (nothing is added).
    func lookup(_ text: String) -> Int16? {
        guard let index = indices[text], names[Int(index)] > 0 else { return nil }
        return index
    }

    /// The UUID of an index taken from a `CompactBeacon`.
    func text(_ index: Int16) -> String { texts[Int(index)] }

    /// One more condition names `text`: its index, reusing a retired or free one when it can;
    /// nil when the table is full (the caller may `recycle` and try again).
    mutating func name(_ text: String) -> Int16? {
        if let index = indices[text] {
            names[Int(index)] += 1
            return index
        }
        let index: Int16
        if let reused = free.popLast() {
            index = reused
            texts[Int(index)] = text
            names[Int(index)] = 1
        } else {
            guard texts.count < Self.capacity else { return nil }
            index = Int16(texts.count)
            texts.append(text)
            names.append(1)
        }
        indices[text] = index
        return index
    }

    /// One condition naming `index` is gone; at zero the UUID is retired.
    mutating func unname(_ index: Int16) {
        names[Int(index)] -= 1
    }

    /// Frees every retired index nothing refers to any more (`referenced[i]` false). Returns how many.
    mutating func recycle(referenced: [Bool]) -> Int {
        var freed = 0
        for i in texts.indices where names[i] == 0 && !referenced[i] {
            indices[texts[i]] = nil
            texts[i] = ""
            names[i] = -1
            free.append(Int16(i))
            freed += 1
        }
        return freed
    }
}
