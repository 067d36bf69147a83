import Messages

/// A beacon identity with the UUID interned: 6 bytes instead of a 36-character string.
struct CompactBeacon: Equatable {
    var uuid: Int16
    var major: UInt16
    var minor: UInt16
}

/// Beacon identities in and out of their compact form: each UUID is stored once, and the last
/// one looked up is remembered (a campus has one UUID, so that is nearly every lookup).
extension RegionEngine {
    func intern(_ uuid: String) -> Int16 {
        if let last = lastUUID, last.text == uuid { return last.index }
        let index: Int16
        if let known = uuidIndex[uuid] {
            index = known
        } else {
            index = Int16(truncatingIfNeeded: uuids.count)
            uuids.append(uuid)
            uuidIndex[uuid] = index
        }
        lastUUID = (uuid, index)
        return index
    }

    func compactBeacon(_ beacon: BeaconIdentity) -> CompactBeacon {
        CompactBeacon(uuid: intern(beacon.uuid), major: UInt16(truncatingIfNeeded: beacon.major), minor: UInt16(truncatingIfNeeded: beacon.minor))
    }

    func identity(_ beacon: CompactBeacon) -> BeaconIdentity {
        BeaconIdentity(uuid: uuids[Int(beacon.uuid)], major: Int(beacon.major), minor: Int(beacon.minor))
    }
}
