import Campus
import Foundation
import Messages
import ServiceRuntime

/// `load-test bench`: the figures the performance targets are stated in, from one run on this
/// machine: (a) raw libzmq, (b) the platform's sighting path (and as a ratio of (a)), each in
/// plain and deployed (CURVE) mode side by side, (c) region-monitor's evaluation, (d) envelope
/// JSON. Each target is printed with how far the figure is from it.
public enum Benchmarks {
    static let campus = Option<String>("campus", .path, default: "deploy/campus.json", help: "the campus catalog the benchmarked services load")
    static let devices = Option.count("devices", 1...10_000_000, default: 100_000, help: "phones the sighting path and the engine track")
    static let stepSeconds = Option.seconds("step-seconds", default: 4, help: "seconds each rate of (b) is held")
    static let rates = Option.rates("rates", default: [25000, 50000, 75000, 100000, 125000, 150000, 200000], help: "the rates (b) steps through")
    static let only = Option.list("only", default: ["a", "b", "c", "d", "e"],
                                  help: "which benchmarks to run: a raw libzmq, b the sighting path, c the region engine, d envelope codecs (JSON, and the compact sighting batch), e a first-seen device in process")
    static let firstSeenDevices = Option.rates("first-seen-devices", default: [1_000, 10_000, 100_000],
                                              help: "the device counts (e) first sees, one fresh database each")
    static let zmqMessages = Option.count("zmq-messages", 1_000...100_000_000, default: 2_000_000, help: "messages in each of (a)'s PUB→SUB runs")
    static let settleSeconds = Option.seconds("settle-seconds", .nonNegative, default: 21,
                                             help: "seconds (b) waits after its first pass before measuring memory (the pass's nearest answers end, then region-monitor trims its heap)")
    static let latencyRate = Option.rate("latency-rate", default: 50000, help: "the rate of (b)'s latency step")
    static let modes = Option.list("modes", default: ["plain", "deployed"], help: "security modes (a) and (b) run in, side by side: plain, deployed (CURVE), or both")
    /// Its options, in `--help` order.
    static var specs: [OptionSpec] {
        [campus.spec, devices.spec, stepSeconds.spec, rates.spec, only.spec, firstSeenDevices.spec, zmqMessages.spec, settleSeconds.spec, latencyRate.spec, modes.spec]
    }
    static let summary = "benchmarks against raw libzmq: (a) libzmq, (b) the sighting path, (c) the region engine, (d) envelope codecs"

    /// Runs `load-test bench` with `arguments` (after the command word); the exit status.
    public static func run(arguments: [String]) -> Int32 {
        let config = subcommandConfiguration(program: "load-test bench", summary: summary, specs: specs, arguments: arguments, usage: "load-test bench [options]")
        let campusPath = config[Self.campus]
        let devices = config[Self.devices]
        let stepSeconds = config[Self.stepSeconds]
        let rates = config[Self.rates]
        let zmqMessages = config[Self.zmqMessages]
        let settle = config[Self.settleSeconds]
        let latencyRate = config[Self.latencyRate]
        let only = Set(config[Self.only])
        guard let catalog = try? CampusCatalog.load(path: campusPath) else {
            FileHandle.standardError.write(Data("load-test bench: cannot read the campus catalog \(campusPath)\n".utf8))
            return 2
        }
        let modeNames = config[Self.modes].flatMap { $0 == "both" ? ["plain", "deployed"] : [$0] }
        let modes = modeNames.compactMap { SocketSecurity.Mode(rawValue: $0) }
        guard !modes.isEmpty, modes.count == modeNames.count else { usageFailure("load-test bench: --modes takes plain, deployed or both, not \(config[Self.modes].joined(separator: ","))") }
        let sample = Wire.encode(CodecBenchmark.sampleSighting(0))
        let topic = Data(Topic.sighting(shard: 0).utf8)
        print("Campus Café benchmarks: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(Date()); modes: \(modes.map(\.rawValue).joined(separator: ", "))")
        do {
            var raw: [SocketSecurity.Mode: ZeroMQBenchmark.Figures] = [:]
            if only.contains("a") || only.contains("b") {
                let keys = try BenchKeys()
                defer { keys.remove() }
                for mode in modes {
                    raw[mode] = try ZeroMQBenchmark.run(keys: mode == .deployed ? keys.folder : nil, messages: zmqMessages, roundTrips: min(20_000, zmqMessages),
                                                        topicBytes: topic.count, payloadBytes: sample.count)
                }
                BenchReport.printRaw(raw, modes: modes, frameBytes: (topic.count, sample.count))
            }
            if only.contains("b") {
                var results: [PlatformBenchmark.Result] = []
                for mode in modes {
                    let bench = PlatformBenchmark(catalog: catalog, campusPath: campusPath, devices: devices, stepSeconds: stepSeconds, mode: mode)
                    bench.settleSeconds = settle
                    defer { bench.stop() }
                    results.append(try bench.run(rates: rates, latencyRate: latencyRate))
                }
                BenchReport.printPlatform(results, raw: raw, devices: devices)
            }
            if only.contains("c") {
                let region = try RegionEngineBenchmark.run(catalog: catalog, devices: devices, rounds: 10)
                print("(c) region-monitor evaluation in process, \(Bench.grouped(Double(devices))) devices, \(catalog.cafes.count) beacon and \(catalog.cafes.count) area conditions")
                print("    \(Bench.grouped(region.perSecondPerCore)) sightings/s per core (\(Bench.grouped(Double(region.sightings))) sightings, \(region.events) events); "
                      + verdict(region.perSecondPerCore, atLeast: 1_000_000, unit: "sightings/s per core"))
                print("    engine memory \(Bench.format(region.bytesPerDevice)) B per device; " + verdict(region.bytesPerDevice, atMost: 1024, unit: "B"))
            }
            if only.contains("d") {
                print("(d) envelope codecs, one core (Wire.encode or the compact writer / Wire.decodeEnvelope)")
                for result in CodecBenchmark.run(seconds: 1) {
                    if result.sightingsEach > 1 {
                        let each = Double(result.sightingsEach)
                        print("    \(result.name), \(result.sightingsEach) sightings (\(result.bytes) B): encode \(Bench.grouped(result.encodePerSecond * each)) sightings/s, "
                              + "decode \(Bench.grouped(result.decodePerSecond * each)) sightings/s")
                    } else {
                        print("    \(result.name) (\(result.bytes) B): encode \(Bench.grouped(result.encodePerSecond))/s, decode \(Bench.grouped(result.decodePerSecond))/s")
                    }
                }
                let ingest = CodecBenchmark.measureIngestDecode(seconds: 1)
                print("    ingest.batch request, 50 reports of 2 beacons (\(ingest.bytes) B): decode \(Bench.grouped(ingest.requests))/s, "
                      + "\(Bench.grouped(ingest.reports)) ranging reports/s (Wire.decodeRequest)")
            }
            if only.contains("e") {
                print("(e) region-monitor's consumer in process, first-seen devices: \(Driver.sightingsPerReport) sightings each, "
                      + "\(FirstSeenBenchmark.devicesPerMessage) devices a sighting.batch, a transaction each, on a fresh SQLite file")
                var figures: [Double] = []
                for count in config[Self.firstSeenDevices].map({ Int($0) }) where count > 0 {
                    let result = try FirstSeenBenchmark.run(catalog: catalog, campusPath: campusPath, devices: count)
                    figures.append(result.processMicrosPerDevice)
                    print("    \(Bench.grouped(Double(count))) devices: \(Bench.format(result.processMicrosPerDevice, 1)) µs CPU per device "
                          + "(the applying thread \(Bench.format(result.threadMicrosPerDevice, 1)) µs), \(result.events) region events; "
                          + verdict(result.processMicrosPerDevice, atMost: 20, unit: "µs"))
                }
                if let low = figures.min(), let high = figures.max(), figures.count > 1 {
                    print("    from the fewest devices to the most: \(Bench.format(high / low, 2))× between the lowest and highest figure")
                }
            }
        } catch {
            FileHandle.standardError.write(Data("load-test bench: \(error)\n".utf8))
            return 1
        }
        return 0
    }

    static func ms(_ sorted: [Double], _ p: Double) -> String { Bench.format(Bench.percentile(sorted, p), 2) }

    static func verdict(_ value: Double, atLeast target: Double, unit: String) -> String {
        value >= target ? "target ≥ \(Bench.grouped(target)) \(unit) met" : "target ≥ \(Bench.grouped(target)) \(unit) MISSED by \(Bench.format((1 - value / target) * 100, 1))%"
    }

    static func verdict(_ value: Double, atMost target: Double, unit: String) -> String {
        value <= target ? "target ≤ \(Bench.format(target)) \(unit) met" : "target ≤ \(Bench.format(target)) \(unit) MISSED by \(Bench.format((value / target - 1) * 100, 1))%"
    }
}

extension String {
    func padded(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
