import Messages
import Policy

/// Devices (`DeviceTable`, `LocationAuthorizations`): a slot of compact state per device, its
/// ranging capability, and what its location authorization allows (a withdrawn authorization
/// drops everything held for it).
extension RegionEngine {
    /// A device's status as the bus announces it: a withdrawn authorization (the policy's
    /// `requiresPurge`) drops the device's location state and refuses its sightings and fixes
    /// until it is granted again; otherwise its ranging capability is applied (`status`).
    public func deviceStatus(_ status: DeviceStatus) -> RegionEffects {
        guard authorizations.apply(status) else {
            return self.status(deviceId: status.deviceId, rangingAvailable: status.rangingAvailable, at: status.changedAt)
        }
        var effects = purge(deviceId: status.deviceId, at: status.changedAt)
        effects.purged = LocationPurged(deviceId: status.deviceId, reason: status.authorization, date: status.changedAt)
        return effects
    }

    /// Whether a device's location may be used: not while its authorization is withdrawn, even
    /// for a sighting or fix that raced its status change.
    public func mayLocate(_ deviceId: String) -> Bool {
        authorizations.mayLocate(deviceId)
    }

    /// A device's ranging capability: beacon conditions it cannot evaluate are flagged
    /// `conditionUnsupported` (state unknown) until it can range again.
    public func status(deviceId: String, rangingAvailable: Bool, at time: Timestamp) -> RegionEffects {
        var effects = RegionEffects()
        guard let slot = rangingAvailable ? devices.slot(deviceId) : slotFor(deviceId, at: time.milliseconds),
              devices[slot].rangingUnavailable == rangingAvailable
        else { return effects }
        let at = time.milliseconds
        devices[slot].rangingUnavailable = !rangingAvailable
        var beaconEntries = conditions.beaconMatchers.map(\.entry)
        for e in conditions.scoped(to: deviceId) ?? [] {
            if case .beacon? = conditions[e]?.kind { beaconEntries.append(e) }
        }
        for e in beaconEntries.sorted(by: { conditions[$0]!.order < conditions[$1]!.order }) {
            if rangingAvailable {
                guard let i = devices[slot].recordIndex(e), devices[slot].records[i].flags == .conditionUnsupported else { continue }
                set(slot, i, state: .unknown, flags: .none, refinement: nil, at: at, into: &effects.events)
            } else {
                let i = ensureRecord(slot, e, at: at)
                set(slot, i, state: .unknown, flags: .conditionUnsupported, refinement: nil, at: at, into: &effects.events)
            }
        }
        schedule(slot)
        return effects
    }

    /// Drops every piece of state for a device (authorization withdrawn). Each record that was
    /// announced gets a last event: state unknown, flagged `authorizationDenied`.
    public func purge(deviceId: String, at time: Timestamp) -> RegionEffects {
        var effects = RegionEffects()
        guard let (records, number) = devices.free(deviceId) else { return effects }
        effects.purgedNumber = number
        let announced = records
            .filter { $0.eventDate != CompactRecord.none && conditions[Int($0.entry)] != nil }
            .sorted { conditions[Int($0.entry)]!.order < conditions[Int($1.entry)]!.order }
        for record in announced {
            let spec = conditions[Int(record.entry)]!.spec
            effects.events.append(RegionEvent(monitor: spec.monitor, identifier: spec.identifier, deviceId: deviceId, state: .unknown,
                                              refinement: nil, flags: [.authorizationDenied], date: time))
        }
        return effects
    }

    /// The number a device's rows are stored under (its records' and nearest answer's key), given
    /// on first need in increasing order (`DeviceTable`); nil while the engine holds nothing for
    /// the device. A device keeps its number until it is purged.
    public func storageNumber(deviceId: String) -> UInt32? {
        devices.slot(deviceId).map { devices.storageNumber($0) }
    }

    /// Storage holds rows under numbers up to `highest`: none of them is given to a device again
    /// (a restore, before it adopts the numbers of the rows it loads).
    public func numbersStored(upTo highest: UInt32) {
        devices.numbersGiven(upTo: highest)
    }

    /// Makes room for `count` devices before a restore adds them one by one.
    public func reserveDevices(_ count: Int) {
        devices.reserve(count)
    }

    /// Restores a device's last status from storage: its authorization (withdrawn or not), its
    /// precision, and whether it can range. An authorization storage cannot read counts as granted.
    public func restoreDevice(deviceId: String, authorization: Authorization?, foreground: Bool, rangingAvailable: Bool, precise: Bool, now: Timestamp) {
        authorizations.restore(deviceId: deviceId, authorization: authorization, foreground: foreground, precise: precise)
        restoreStatus(deviceId: deviceId, rangingAvailable: rangingAvailable, now: now)
    }

    /// Restores a device that said it cannot range (its flagged records are restored as records).
    public func restoreStatus(deviceId: String, rangingAvailable: Bool, now: Timestamp) {
        guard !rangingAvailable else { return }
        devices[slotFor(deviceId, at: now.milliseconds)].rangingUnavailable = true
    }

    /// The device's slot, made (or a freed one reused) on first use: a new device starts with
    /// the records of conditions that assume a state.
    func slotFor(_ deviceId: String, at: Int64) -> Int {
        let (slot, isNew) = devices.claim(deviceId)
        guard isNew else { return slot }
        for e in conditions.assumedEntries { _ = ensureRecord(slot, e, at: at) }
        if let mine = conditions.scoped(to: deviceId) {
            for e in mine where conditions[e]?.spec.assuming != nil { _ = ensureRecord(slot, e, at: at) }
        }
        return slot
    }
}
