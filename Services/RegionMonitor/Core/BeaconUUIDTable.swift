import Messages

/// A beacon identity with the UUID interned: 6 bytes instead of a 36-character string.
struct CompactBeacon: Equatable {
    var uuid: Int16
    var major: UInt16
    var minor: UInt16

    /// Of the same place: the same UUID and major (a café; the minor is a station inside it).
    func samePlace(as other: CompactBeacon) -> Bool {
        uuid == other.uuid && major == other.major
    }
}

/// The beacon UUIDs conditions name, each stored once under a small index (`CompactBeacon.uuid`),
/// and beacon identities in and out of that compact form.
///
/// Only a condition puts a UUID here: a sighting's UUID is looked up, never added, so phones
/// (which choose what they report) cannot grow the table, and a beacon of any other UUID has no
/// compact form: it matches nothing, never becomes the nearest beacon and costs no memory. A UUID
/// no condition names any more is retired: sightings of it are no longer looked up, but its text
/// stays while heard beacons or nearest answers may still refer to its index, and it is recycled
/// only when the table is full and the engine has checked that nothing refers to it.
final class BeaconUUIDTable {
    /// Indices are `Int16`: 0…32767.
    static let capacity = Int(Int16.max) + 1

    private var texts: [String] = []
    private var indices: [String: Int16] = [:]
    /// Per index: how many conditions name it; 0 retired, -1 free for reuse.
    private var names: [Int32] = []
    private var free: [Int16] = []
    /// The last UUID `compact` found: a campus has one UUID, so that is nearly every sighting.
    private var last: (text: String, index: Int16)?

    /// Indices ever handed out, free ones included (the size of `recycle`'s `referenced`).
    var indexCount: Int { texts.count }
    /// UUIDs held: named by conditions or retired.
    var count: Int { texts.count - free.count }

    /// The compact form of a beacon whose UUID a condition names; nil for any other UUID, or a
    /// major or minor outside 0…65535 (never truncated into one a condition matches).
    func compact(_ beacon: BeaconIdentity) -> CompactBeacon? {
        guard let major = UInt16(exactly: beacon.major), let minor = UInt16(exactly: beacon.minor) else { return nil }
        if let last, last.text == beacon.uuid { return CompactBeacon(uuid: last.index, major: major, minor: minor) }
        guard let index = indices[beacon.uuid], names[Int(index)] > 0 else { return nil }
        last = (beacon.uuid, index)
        return CompactBeacon(uuid: index, major: major, minor: minor)
    }

    /// The full identity of a compact beacon.
    func identity(_ beacon: CompactBeacon) -> BeaconIdentity {
        BeaconIdentity(uuid: texts[Int(beacon.uuid)], major: Int(beacon.major), minor: Int(beacon.minor))
    }

    /// One more condition names `text`: its index, reusing a retired or free one when it can;
    /// nil when the table is full (the caller may `recycle` and try again).
    func name(_ text: String) -> Int16? {
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

    /// One condition naming `index` is gone; at zero the UUID is retired (no longer found).
    func unname(_ index: Int16) {
        names[Int(index)] -= 1
        last = nil
    }

    /// Frees every retired index nothing refers to any more (`referenced[i]` false). Returns how many.
    func recycle(referenced: [Bool]) -> Int {
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
