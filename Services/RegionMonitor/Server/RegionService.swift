import Campus
import Foundation
import Messages
import Metrics
import RegionMonitorCore
import ServiceRuntime

/// region-monitor's service: `RegionEngine` decides, `RegionStore` keeps, the host's outbox
/// publishes. Sightings and device statuses come from the bus, fixes from beacon-ingest's
/// direct channel (`FixChannel`), monitor and location requests from the request socket
/// (`+MonitorOps`, `+LocationOps`); a timer fires exits and dwell times, another saves the last
/// matching sightings in batches so exits fire on time after a restart. Each record change is
/// written with its event in one transaction, and nothing this service publishes or answers
/// carries a coordinate.
public final class RegionService {
    let clock: any WallClock
    let logger: Logger
    let reactor: Reactor
    let requests: RequestServer
    let router: RequestRouter
    let heartbeat: HeartbeatPublisher
    let bus: BusSubscription
    let events: EventWriter
    /// What the fix channel is built from at start (the host's parts, not the host).
    private let fixParts: FixChannel.Parts
    /// The catalog in use: replaced whole by a reload (`use(_:)`), on the reactor's thread.
    private(set) var catalog: CampusCatalog
    /// Rebuilt from the store after a write the storage refused (see `reloadEngine`).
    private(set) var engine: RegionEngine
    /// A reload that could not finish (the storage still failing): retried by the timer.
    var needsReload = false
    let settings: RegionMonitorSettings
    let store: RegionStore
    private(set) var fixChannel: FixChannel?
    var refusedSightings = 0
    /// Sightings of beacons whose UUID no condition names: dropped, nothing kept.
    var unwatchedSightings = 0
    var consumedSightings = 0
    /// Sightings received, not yet applied (`RegionService+Inputs`).
    var pending = PendingSightings()
    /// How long one turn applies sightings: the reactor's slice (tests set 0, one a turn;
    /// `load-test bench`'s in-process measure `.infinity`, a message whole).
    public var sliceSeconds = Reactor.timeSlice
    /// More than this many waiting are applied at once, past the slice: two full batches.
    static let pendingLimit = 2 * SightingBatch.maxCount
    /// Waiting sightings dropped after a write failed (best effort).
    var droppedSightings = 0
    /// From a sighting batch's publication to the region events it caused (health `latency:sighting.regionEvent`).
    var sightingToEvent = LatencyBuckets()
    /// Deletes expired fixes in small batches (see `RegionService+Retention`).
    let pruner: Pruner
    var consumedFixes = 0
    var refusedFixes = 0
    var confirmations = 0
    /// `region.event.<monitor>.` by monitor: made once each, not per event (3,400 instructions of
    /// a first-seen device's 166,000 went to making it).
    var eventTopics: [String: String] = [:]

    /// A service on `host`'s database and sockets; nothing runs until `start`.
    public init(host: ServiceHost, catalog: CampusCatalog, settings: RegionMonitorSettings) {
        clock = host.clock
        logger = host.logger
        reactor = host.reactor
        requests = host.requests
        router = host.requests.router
        heartbeat = host.heartbeat
        bus = host.bus
        events = host.events
        fixParts = FixChannel.Parts(host)
        pruner = host.pruner
        self.catalog = catalog
        self.settings = settings
        engine = RegionEngine(settings: settings.engine)
        store = RegionStore(db: host.db)
    }

    /// Migrates and restores the database, then subscribes, binds the fix channel, starts the
    /// timers and answers requests.
    public func start() throws {
        try store.migrate()
        try restore()
        let suffix = settings.shardTag.isEmpty ? "" : "\(settings.shardTag)."
        heartbeat.shard = settings.shardTag.isEmpty ? nil : settings.shardTag
        try bus.subscribe(["sighting.\(suffix)", "device.\(suffix)"], durableStreams: ["device"]) { [unowned self] topic, envelope in
            try self.consume(envelope)
        }
        bus.consumer?.onRolledBack = { [unowned self] in self.reloadEngine() }
        fixChannel = try FixChannel(parts: fixParts, endpoint: settings.fixListen) { [unowned self] fix in try self.consumeFix(fix) }
        reactor.every(settings.tickSeconds, name: "region.timer") { [unowned self] in try self.tick() }
        // Whatever falls due between those ticks is taken every 2 ms, between the sockets' turns,
        // in passes of at most `Self.devicesPerTick` devices for up to 1 ms.
        reactor.every(0.002, name: "region.timer.due") { [unowned self] in try self.tickWhileDue(budgetSeconds: 0.001) }
        // Small batches often: a short write between sightings, never a long one in front of them
        // (100 rows every 10 ms, about 1 ms each; 500 every 50 ms held sightings 4–10 ms).
        reactor.every(0.01, name: "region.sightings.save") { [unowned self] in try self.saveSightingTimes() }
        reactor.whilePending(name: "region.sightings.pending", hasWork: { [unowned self] in !self.pending.isEmpty }) { [unowned self] in
            self.applyPendingTurn()
        }
        reactor.every(60, name: "fixes.expire") { [unowned self] in self.engine.expireFixes(now: self.clock.now()) }
        addRetention()
        routeMonitorOps()
        routeLocationOps()
        requests.addHealthDetails { [unowned self] in
            ["devices.tracked": "\(engine.trackedDevices)", "sightings.consumed": "\(consumedSightings)", "sightings.refused": "\(refusedSightings)",
             "sightings.pending": "\(pending.count)", "sightings.dropped": "\(droppedSightings)",
             "sightings.unwatched": "\(unwatchedSightings)", "beacon.uuids": "\(engine.beaconUUIDs)",
             "fixes.consumed": "\(consumedFixes)", "fixes.refused": "\(refusedFixes)",
             "fixes.forbidden": "\(fixChannel?.forbidden ?? 0)", "monitors": "\(engine.monitorInfos.count)",
             "confirmations": "\(confirmations)", "latency:sighting.regionEvent": sightingToEvent.encoded]
        }
    }

    /// The engine as it was: the campus monitor from the catalog, then what the request socket
    /// added, device statuses, records (announced again only when they change), nearest answers
    /// and the fixes still inside the retention.
    private func restore() throws {
        let now = clock.now()
        engine.declareBuiltIn(settings.monitor)
        for spec in ConditionSpec.campus(catalog, monitor: settings.monitor) {
            try engine.add(spec, owner: nil, now: now)
        }
        for monitor in try store.monitors() {
            engine.restoreMonitor(monitor.name, owner: monitor.owner)
        }
        for spec in try store.conditions() {
            try engine.add(spec, owner: nil, now: now)
        }
        // Streamed, not read into arrays first: a restart with 10⁶ devices reads three rows each.
        engine.reserveDevices(try store.restoredDeviceEstimate())
        try store.forEachDevice { device in
            engine.restoreDevice(deviceId: device.deviceId, authorization: device.authorization, foreground: device.foreground,
                                 rangingAvailable: device.rangingAvailable, precise: device.precise, now: now)
        }
        // Storage numbers: none at or below one a row has is given again, whichever rows load.
        engine.numbersStored(upTo: try store.highestNumber())
        // Rows are deleted, moved and effects written after each table is read, never while it is.
        var stale: [RegionStore.StoredRecordKey] = [], misfiled: [(key: RegionStore.StoredRecordKey, to: UInt32)] = []
        try store.forEachRecord { record in
            let key = RegionStore.StoredRecordKey(number: record.number, monitor: record.monitor, identifier: record.identifier)
            guard let lastEvent = record.lastEvent,
                  engine.restore(deviceId: record.deviceId, monitor: record.monitor, identifier: record.identifier, lastEvent: lastEvent,
                                 lastSeen: record.lastSeen, decided: record.decided, number: record.number, now: now)
            else {
                // Its condition is gone (the catalog changed): the record goes too.
                return stale.append(key)
            }
            if let number = engine.storageNumber(deviceId: record.deviceId), number != record.number { misfiled.append((key, number)) }
        }
        for key in stale {
            try store.deleteRecord(number: key.number, monitor: key.monitor, identifier: key.identifier)
        }
        var cleared: [RegionEffects] = [], misfiledNearest: [(from: UInt32, to: UInt32)] = []
        try store.forEachNearest { number, nearest in
            let effects = engine.restoreNearest(nearest, number: number, now: now)
            if let held = engine.storageNumber(deviceId: nearest.deviceId), held != number { misfiledNearest.append((number, held)) }
            if !effects.isEmpty { cleared.append(effects) }
        }
        // A device's rows under two numbers (none should be: a device keeps its number until it
        // is purged, and a purge deletes its rows) are moved to the one it kept.
        for (key, number) in misfiled {
            try store.moveRecord(from: key.number, to: number, monitor: key.monitor, identifier: key.identifier)
        }
        for move in misfiledNearest { try store.moveNearest(from: move.from, to: move.to) }
        if !misfiled.isEmpty || !misfiledNearest.isEmpty {
            logger.warning("rows of a device stored under another number moved", ["records": "\(misfiled.count)", "nearest": "\(misfiledNearest.count)"])
        }
        for effects in cleared { try apply(effects) }
        try store.deleteFixes(before: engine.fixCutoff(now: now))
        for fix in try store.fixes() {
            engine.restoreFix(fix, now: now)
        }
        if !stale.isEmpty { logger.info("records of removed conditions dropped", ["records": "\(stale.count)"]) }
    }

    /// Switches to a reloaded catalog: the campus monitor's conditions are rebuilt from it (the
    /// engine reloads from storage; records of conditions it no longer has are dropped).
    public func use(_ catalog: CampusCatalog) {
        self.catalog = catalog
        reloadEngine(reason: "with the reloaded catalog")
    }

    /// The timer: fires the exits, dwell times and stale nearest beacons due at the clock's time.
    func tick() throws {
        if needsReload { reloadEngine() }
        let now = clock.now()
        try apply(engine.tick(now: now, limit: Self.devicesPerTick, checks: Self.checksPerTick))
    }

    /// Timer passes while a device is due, each its own transaction, until none is or
    /// `budgetSeconds` of this turn are spent (the sockets' turn comes between).
    ///
    /// An answer falling due was cleared at the next 0.5 s tick, and a pass that left devices
    /// due took 20 more every 2 ms: 10,000 a second however idle the service, below the bench's
    /// stale wave of 12,300 a second (region-monitor at about a quarter of a core, p99 2.9 s
    /// late). Bounded by time, not count, the passes take what the service has to spare.
    func tickWhileDue(budgetSeconds: Double) throws {
        guard !needsReload else { return }
        let started = Reactor.monotonic()
        repeat {
            let now = clock.now()
            guard engine.isBehind(now: now) else { return }
            try apply(engine.tick(now: now, limit: Self.devicesPerTick, checks: Self.checksPerTick))
        } while Reactor.monotonic() - started < budgetSeconds
    }

    /// Devices with something to announce one timer pass handles: about 1 ms of exits (each an
    /// event and a record written).
    static let devicesPerTick = 20
    /// Devices one timer pass looks at, most of them only to put back on the timer (a few µs each).
    static let checksPerTick = 256

    /// The engine moves in memory before its effects are written; when the storage refuses the
    /// write (a full disk), the records and events roll back and the engine would believe it had
    /// announced what nobody heard. So it is rebuilt from what committed, and the next sighting
    /// announces the change again.
    func reloadEngine(reason: String = "after a failed write") {
        guard !events.db.inTransaction else { needsReload = true; return }
        engine = RegionEngine(settings: settings.engine)
        do {
            try restore()
            needsReload = false
            logger.warning("engine reloaded from storage \(reason)")
        } catch {
            needsReload = true
            logger.error("engine reload failed; retried on the next tick", ["error": "\(error)"])
        }
    }

    /// Saves the last matching sightings the engine hands out (every 10 ms, at most 100 devices of
    /// the `saveVisits` it looks at; a device still seen at most every `--sighting-save-seconds`),
    /// in one transaction. A failed write hands them back.
    func saveSightingTimes() throws {
        let times = engine.sightingTimesToSave(limit: 100, visits: Self.saveVisits(slots: engine.deviceSlots))
        guard !times.isEmpty else { return }
        do {
            try events.write { try store.saveSightingTimes(times) }
        } catch {
            engine.keepUnsaved(times)
            throw error
        }
    }

    /// How many device slots one save call looks at: all of them within 100 calls (a second of
    /// the 10 ms timer), at least 64 and at most 4,096 a call (at 10⁶ devices each is looked at
    /// every 2.4 s). A fixed 4,096 looked at each of 10⁵ devices four times a second, where the
    /// save interval is seconds: 5% of region-monitor's CPU under load (perf, `bench` (b)).
    static func saveVisits(slots: Int) -> Int {
        min(4_096, max(64, (slots + 99) / 100))
    }
}
