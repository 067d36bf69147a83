import Campus
import Foundation
import Messages
import RegionMonitorServer
import ServiceRuntime
import SQLite

/// (e) What a first-seen device costs region-monitor, measured in one process so that it can be
/// repeated exactly (under callgrind too) instead of read off a loaded machine's CPU clock.
///
/// The real service on a real SQLite file in a temporary folder, its sockets on in-process
/// endpoints nobody reads, fed `sighting.batch` messages as beacon-ingest writes them for (b)'s
/// first pass: each device one report of its café's station beacons (four sightings at one
/// instant), 64 devices (256 sightings) a message. Each message is decoded from its bytes and
/// applied as the bus subscription applies one at 50,000 sightings/s (a message every 5 ms, one
/// per 1 ms slice): in its own transaction, under a savepoint, its events published once it
/// commits. The process's CPU includes the checkpointer's thread; no timer runs, so nothing
/// here is the 2 ms exit and stale-answer passes or the sighting saves, which (b) includes. Each
/// message is built just before it is applied, so 10⁶ devices need no more memory than 10³.
enum FirstSeenBenchmark {
    struct Result {
        var devices: Int
        /// The process's CPU (every thread) per device.
        var processMicrosPerDevice: Double
        /// The applying thread's CPU per device (what callgrind's `measure` counts).
        var threadMicrosPerDevice: Double
        var events: Int
    }

    static let devicesPerMessage = 64

    static func run(catalog: CampusCatalog, campusPath: String, devices: Int) throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("first-seen-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        let tag = UUID().uuidString.prefix(8)
        let config = try Configuration(program: "region-monitor", specs: RegionMonitorSettings.specs,
                                       arguments: ["--listen", "inproc://first-seen-\(tag)", "--bus-pub", "inproc://first-seen-pub-\(tag)",
                                                   "--bus-sub", "inproc://first-seen-sub-\(tag)", "--fix-listen", "inproc://first-seen-fixes-\(tag)",
                                                   "--data-dir", folder.path, "--campus", campusPath, "--log-level", "error"],
                                       environment: [:])
        let host = try ServiceHost(options: RegionMonitorSettings.common, config: config)
        defer { host.db.close() }
        let service = RegionService(host: host, catalog: catalog, settings: try RegionMonitorSettings(config))
        try service.start()
        // Each message applied whole: what is measured is a device's work, not how turns split it.
        service.sliceSeconds = .infinity

        // Each message is built before its clock starts: only decoding and applying are measured
        // (and nothing of 10⁶ devices' messages is held at once).
        let now = host.clock.now()
        let events = try host.publisher.outbox.lastSeq("region")
        var processCPU = 0.0, threadCPU = 0.0
        var sightings: [Sighting] = []
        var messages = 0
        for device in 0..<devices {
            let cafe = catalog.cafes[device % catalog.cafes.count]
            let minors = cafe.stations.map(\.minor)
            for s in 0..<Driver.sightingsPerReport {
                let beacon = BeaconIdentity(uuid: catalog.beaconUUID, major: cafe.beaconMajor, minor: minors[s % minors.count])
                sightings.append(Sighting(deviceId: "first-seen-\(device)", beacon: beacon, rssi: -58 - s * 3, measuredPower: -59,
                                          accuracy: 1.5, proximity: .near, observedAt: now, meanRssi: -62.5, readings: 15))
            }
            guard sightings.count == devicesPerMessage * Driver.sightingsPerReport || device == devices - 1 else { continue }
            messages += 1
            // The compact frame, as beacon-ingest writes it by default (`--sighting-encoding`).
            let envelope = Envelope(type: .sightingBatch, source: "beacon-ingest", stream: "sighting", seq: UInt64(messages),
                                    time: now, body: .sightings(SightingBatch(sightings: sightings)))
            guard let frame = CompactSightingBatch.encode(envelope) else { preconditionFailure("a first-seen batch fits a compact frame") }
            sightings.removeAll(keepingCapacity: true)
            let process = Self.processCPU(), thread = Bench.cpuSeconds()
            try measure(frame, host: host, service: service)
            threadCPU += Bench.cpuSeconds() - thread
            processCPU += Self.processCPU() - process
        }
        return Result(devices: devices, processMicrosPerDevice: processCPU / Double(devices) * 1e6,
                      threadMicrosPerDevice: threadCPU / Double(devices) * 1e6,
                      events: Int(try host.publisher.outbox.lastSeq("region") - events))
    }

    /// Decodes and applies one message as the bus subscription does (`callgrind --toggle-collect` target).
    @inline(never)
    static func measure(_ frame: Data, host: ServiceHost, service: RegionService) throws {
        let envelope = try Wire.decodeEnvelope(frame, maxBytes: host.maxMessageBytes)
        try host.events.write { try host.db.transaction { try service.consume(envelope) } }
    }

    /// CPU seconds of every thread of this process.
    static func processCPU() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
