import Campus
import Foundation
import Messages
import RegionMonitorCore

/// (c) region-monitor's in-process evaluation rate: sightings per second per core through
/// `RegionEngine` with the demo campus's conditions (a beacon and an area per café) and 10^5 devices, and the memory it holds
/// per tracked device.
enum RegionEngineBenchmark {
    struct Result {
        var devices: Int
        var sightings: Int
        var perSecondPerCore: Double
        var bytesPerDevice: Double
        var events: Int
    }

    static func run(catalog: CampusCatalog, devices: Int, rounds: Int) throws -> Result {
        // The campus monitor exactly as region-monitor builds it: a beacon and an area per café.
        let engine = RegionEngine()
        engine.declareBuiltIn("campus")
        for spec in ConditionSpec.campus(catalog, monitor: "campus") { try engine.add(spec, owner: nil, now: Timestamp(milliseconds: 0)) }
        let beacons = catalog.cafes.flatMap { cafe in cafe.stations.map { BeaconIdentity(uuid: catalog.beaconUUID, major: cafe.beaconMajor, minor: $0.minor) } }
        let ids = (0..<devices).map { "device-\($0)" }
        let base = Timestamp(milliseconds: 1_782_000_000_000)
        func sighting(_ device: Int, _ round: Int) -> Sighting {
            // Each device stays at one café for a while, moving between its stations.
            let cafe = (device + round / 5) % catalog.cafes.count
            let stationBeacons = beacons.filter { $0.major == catalog.cafes[cafe].beaconMajor }
            let beacon = stationBeacons[(device + round) % stationBeacons.count]
            let proximity: Proximity = (device + round) % 4 == 0 ? .far : .near
            return Sighting(deviceId: ids[device], beacon: beacon, rssi: -65, measuredPower: -59, accuracy: proximity == .near ? 1.5 : 6,
                            proximity: proximity, observedAt: base.adding(seconds: Double(round)))
        }
        let before = Bench.residentBytes() ?? 0
        var events = 0
        // Populate: every device seen once.
        for device in 0..<devices { events += engine.sighting(sighting(device, 0)).events.count }
        let populated = Bench.residentBytes() ?? 0
        // Measure: `rounds` more sightings per device, pre-built so only evaluation is timed.
        var batch: [Sighting] = []
        batch.reserveCapacity(devices)
        var total = 0
        var cpu = 0.0
        for round in 1...rounds {
            batch.removeAll(keepingCapacity: true)
            for device in 0..<devices { batch.append(sighting(device, round)) }
            let start = Bench.cpuSeconds()
            for s in batch { events += engine.sighting(s).events.count }
            cpu += Bench.cpuSeconds() - start
            total += batch.count
        }
        return Result(devices: devices, sightings: total, perSecondPerCore: Double(total) / cpu,
                      bytesPerDevice: Double(populated - before) / Double(devices), events: events)
    }
}
