import Messages

/// A beacon identity with the UUID interned: 6 bytes instead of a 36-character string.
struct CompactBeacon: Equatable {
    var uuid: Int16
    var major: UInt16
    var minor: UInt16
}

/// Beacon identities in and out of their compact form. Only UUIDs that conditions name are
/// interned (`BeaconUUIDTable`): a beacon of any other UUID has no compact form, so it matches
/// nothing, never becomes the nearest beacon and costs no memory, however many a phone invents.
extension RegionEngine {
    /// The compact form of a beacon whose UUID a condition names; nil for any other UUID, or a
    /// major or minor outside 0…65535 (never truncated into one a condition matches).
    func knownBeacon(_ beacon: BeaconIdentity) -> CompactBeacon? {
        guard let major = UInt16(exactly: beacon.major), let minor = UInt16(exactly: beacon.minor) else { return nil }
        // The last UUID found: a campus has one UUID, so that is nearly every sighting.
        if let last = lastUUID, last.text == beacon.uuid { return CompactBeacon(uuid: last.index, major: major, minor: minor) }
        guard let uuid = beaconUUIDTable.lookup(beacon.uuid) else { return nil }
        lastUUID = (beacon.uuid, uuid)
        return CompactBeacon(uuid: uuid, major: major, minor: minor)
    }

    /// One condition naming a UUID is gone (at zero it is retired and no longer found).
    func unnameUUID(_ index: Int16) {
        beaconUUIDTable.unname(index)
        lastUUID = nil
    }

    func identity(_ beacon: CompactBeacon) -> BeaconIdentity {
        BeaconIdentity(uuid: beaconUUIDTable.text(beacon.uuid), major: Int(beacon.major), minor: Int(beacon.minor))
    }

    /// A condition names `uuid`: its index. When the table is full, retired UUIDs nothing refers
    /// to are recycled first; when none can be, the condition is refused.
    func nameUUID(_ uuid: String) throws(ServiceError) -> Int16 {
        if let index = beaconUUIDTable.name(uuid) { return index }
        var referenced = [Bool](repeating: false, count: beaconUUIDTable.indexCount)
        for device in devices {
            for heard in device.heard { referenced[Int(heard.beacon.uuid)] = true }
            if let nearest = device.nearest { referenced[Int(nearest.beacon.uuid)] = true }
            for record in device.records { if let refinement = record.refinement { referenced[Int(refinement.uuid)] = true } }
        }
        if beaconUUIDTable.recycle(referenced: referenced) > 0, let index = beaconUUIDTable.name(uuid) { return index }
        throw ServiceError(.conditionLimitExceeded, "conditions already name \(BeaconUUIDTable.capacity) distinct beacon UUIDs, the most region-monitor holds")
    }
}
