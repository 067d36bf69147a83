import Messages
import RegionMonitorCore
import SQLite
import ServiceRuntime

/// What moves the engine — sightings and device statuses from the bus, fixes from the fix
/// channel — and the one place its effects are stored and published.
extension RegionService {
    /// A bus message: sightings, one or a batch (best effort), or a device status (durable, in order).
    /// Called by the bus subscription inside its transaction (a savepoint per message); public for
    /// `load-test bench`'s in-process measure of it, which calls it the same way.
    ///
    /// Sightings queue behind any still waiting, and a message applies them for one time slice
    /// (`sliceSeconds`) of its own; the rest wait for the next turn (`applyPendingTurn`). A
    /// message is not cut at the end of the consumer's turn: the turn ends after it, as before,
    /// and only a message that alone takes longer than a slice is split (cutting at the turn's
    /// end put the rest of ordinary messages behind a commit and the timers: bench (b)'s fresh
    /// devices p50 2.39–2.46 → 2.70–2.98 ms). A device status first has every sighting before it applied.
    public func consume(_ envelope: Envelope) throws {
        switch envelope.body {
        case .sighting(let sighting):
            pending.append([sighting], time: envelope.time)
            try applyPending(until: messageDeadline())
        case .sightings(let batch):
            pending.append(batch.sightings, time: envelope.time)
            try applyPending(until: messageDeadline())
        case .deviceStatus(let status):
            try applyPending(until: .infinity)
            try events.write {
                try store.saveDevice(status)
                try apply(engine.deviceStatus(status))
            }
        default:
            throw ServiceError(.unknownType, "region-monitor does not consume \(envelope.type.rawValue) from the bus")
        }
    }

    /// When the sightings of a message just received stop for this turn.
    private func messageDeadline() -> Double {
        Reactor.monotonic() + sliceSeconds
    }

    /// Applies waiting sightings in order until `deadline`, at least one a call so that each makes
    /// progress, and past it while more than `pendingLimit` wait: the queue stays bounded, and a
    /// service that falls behind leaves the rest in its socket's queue, as before.
    func applyPending(until deadline: Double) throws {
        var applied = 0
        while let sighting = pending.next {
            if applied > 0, pending.count <= Self.pendingLimit, Reactor.monotonic() >= deadline { return }
            let announced: Bool
            do {
                announced = try consume(sighting)
            } catch {
                // Its message's transaction rolls back (the engine reloads); it is not tried again.
                _ = pending.applied(announced: false)
                throw error
            }
            if let published = pending.applied(announced: announced) {
                sightingToEvent.record(seconds: clock.now().seconds(since: published))
            }
            applied += 1
        }
    }

    /// The reactor's turn for waiting sightings: one slice of them in a transaction of its own,
    /// their events published after its commit. When the write fails, every waiting sighting is
    /// dropped (best effort, counted in health) rather than tried again turn after turn, and the
    /// engine reloads from what committed.
    func applyPendingTurn() {
        if needsReload { reloadEngine() }
        do {
            try events.write { try applyPending(until: Reactor.monotonic() + sliceSeconds) }
        } catch {
            droppedSightings += pending.removeAll()
            logger.error("waiting sightings dropped after a failed write", ["error": "\(error)"])
            reloadEngine()
        }
    }

    /// Applies one sighting; whether it caused a region event.
    private func consume(_ sighting: Sighting) throws -> Bool {
        consumedSightings += 1
        let effects = engine.sighting(sighting)
        if effects.refused {
            refusedSightings += 1
            return false
        }
        if effects.unwatched {
            unwatchedSightings += 1
            return false
        }
        try apply(effects)
        return !effects.events.isEmpty
    }

    /// A fix from the fix channel: kept for confirmations and applied to circles, unless the
    /// device's authorization is withdrawn.
    func consumeFix(_ fix: LocationFix) throws {
        consumedFixes += 1
        let effects = engine.fix(fix)
        if effects.refused {
            refusedFixes += 1
            return
        }
        try store.saveFix(fix, keeping: settings.engine.fixesPerDevice)
        try apply(effects)
    }

    /// Writes every changed record with its event, and changed nearest answers, in one
    /// transaction. A purged device's records get their last events announced and are then
    /// deleted with the rest of its location data, and `region.purged` says so.
    func apply(_ effects: RegionEffects) throws {
        guard !effects.isEmpty else { return }
        do {
            try write(effects)
        } catch let error as SQLiteError where error.isStorageFailure {
            // Outside the consumer's batch (a timer, a fix, a request) nobody else will reload it.
            reloadEngine()
            throw error
        }
    }

    private func write(_ effects: RegionEffects) throws {
        // Inside the bus consumer's batch every message already has its savepoint, and anything
        // thrown here rolls that message back whole (and the engine reloads): a savepoint per
        // sighting's effects inside it undid nothing more, at two statements and the statement
        // journal's page copies each (first-seen devices in a 256-sighting message: up to 256).
        guard !events.db.inTransaction else { return try writeRecords(effects) }
        try events.write { try writeRecords(effects) }
    }

    private func writeRecords(_ effects: RegionEffects) throws {
        for event in effects.events {
            try events.emit(.regionEvent, topic: eventTopic(event.monitor), stream: "region", .region(event))
            // A purged device's records are deleted below: their last events are only announced.
            if effects.purged == nil { try store.saveRecord(event, number: try storageNumber(event.deviceId)) }
        }
        for value in effects.nearest {
            let body = try events.emitKeepingBody(.regionNearest, topic: Topic.regionNearest, stream: "region", .nearest(value)).body
            try store.saveNearest(value, number: try storageNumber(value.deviceId), json: body)
        }
        if let purged = effects.purged {
            try store.deleteLocation(deviceId: purged.deviceId, number: effects.purgedNumber)
            try events.emit(.regionPurged, topic: Topic.regionPurged, stream: "region", .purged(purged))
            logger.info("location data dropped", ["device.id": purged.deviceId, "authorization": purged.reason.rawValue])
        }
    }

    /// The number a device's rows are stored under. The engine holds every device it has effects
    /// for but a purged one (whose rows go by `purgedNumber`); were it not to, the write fails
    /// and rolls back rather than store a row nothing can find again.
    private func storageNumber(_ deviceId: String) throws -> UInt32 {
        guard let number = engine.storageNumber(deviceId: deviceId) else {
            throw ServiceError(.internalError, "region-monitor holds nothing for device \(deviceId) to store")
        }
        return number
    }

    /// The topic of `monitor`'s region events, made once.
    private func eventTopic(_ monitor: String) -> String {
        if let topic = eventTopics[monitor] { return topic }
        let topic = Topic.regionEvent(monitor: monitor)
        // Monitors come and go through the request socket: the cache is only ever a few entries.
        if eventTopics.count >= 1_024 { eventTopics.removeAll() }
        eventTopics[monitor] = topic
        return topic
    }
}
