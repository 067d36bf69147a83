import Campus
import Foundation
import Messages
import ServiceRuntime

/// `load-test bench`: the figures the performance targets are stated in, from one run on this
/// machine: (a) raw libzmq, (b) the platform's sighting path (and as a ratio of (a)),
/// (c) region-monitor's evaluation, (d) envelope JSON. Each target is printed with how far the
/// figure is from it.
enum Benchmarks {
    static let specs: [OptionSpec] = [
        OptionSpec("campus", .path, default: "deploy/campus.json", help: "the campus catalog the benchmarked services load"),
        OptionSpec.count("devices", 1...10_000_000, default: 100_000, help: "phones the sighting path and the engine track"),
        OptionSpec.seconds("step-seconds", default: 4, help: "seconds each rate of (b) is held"),
        OptionSpec("rates", .rateList(.positive), default: "25000,50000,75000,100000,125000,150000,200000", help: "the rates (b) steps through"),
        OptionSpec("only", .string, default: "a,b,c,d", help: "which benchmarks to run: a raw libzmq, b the sighting path, c the region engine, d envelope JSON"),
        OptionSpec.count("zmq-messages", 1_000...100_000_000, default: 500_000, help: "messages in (a)'s PUB→SUB run"),
        OptionSpec.seconds("settle-seconds", .nonNegative, default: 11, help: "seconds (b) waits for exits to fire before measuring memory"),
        OptionSpec("latency-rate", .rate(.positive), default: "50000", help: "the rate of (b)'s latency step"),
    ]
    static let summary = "benchmarks against raw libzmq: (a) libzmq, (b) the sighting path, (c) the region engine, (d) envelope JSON"

    static func run(arguments: [String]) -> Int32 {
        let config = subcommandConfiguration(program: "load-test bench", summary: summary, specs: specs, arguments: arguments, usage: "load-test bench [options]")
        let campusPath = config.string("campus")
        let devices = config.int("devices")
        let stepSeconds = config.double("step-seconds")
        let rates = config.list("rates").compactMap { Double($0) }
        let zmqMessages = config.int("zmq-messages")
        let settle = config.double("settle-seconds")
        let latencyRate = config.double("latency-rate")
        let only = Set(config.list("only"))
        guard let catalog = try? CampusCatalog.load(path: campusPath) else {
            FileHandle.standardError.write(Data("load-test bench: cannot read the campus catalog \(campusPath)\n".utf8))
            return 2
        }
        let sample = Wire.encode(CodecBenchmark.sampleSighting(0))
        let topic = Data(Topic.sighting(shard: 0).utf8)
        print("Campus Café benchmarks: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(Date())")
        do {
            var zmqRate: Double?
            if only.contains("a") || only.contains("b") {
                let throughput = try ZeroMQBenchmark.pubSub(messages: zmqMessages, topic: topic, payload: sample)
                zmqRate = throughput.perSecond
                let rtt = try ZeroMQBenchmark.reqRep(count: min(20_000, zmqMessages), payload: sample)
                print("(a) raw libzmq over TCP loopback, frames of \(topic.count) + \(sample.count) B (a sighting)")
                print("    PUB→SUB  \(Bench.grouped(throughput.perSecond)) msg/s (\(Bench.grouped(Double(throughput.messages))) messages)")
                print("    REQ→REP  round trip p50 \(Bench.format(Bench.percentile(rtt, 50), 1)) µs, p99 \(Bench.format(Bench.percentile(rtt, 99), 1)) µs, p99.9 \(Bench.format(Bench.percentile(rtt, 99.9), 1)) µs")
            }
            if only.contains("b") {
                let bench = PlatformBenchmark(catalog: catalog, campusPath: campusPath, devices: devices, stepSeconds: stepSeconds)
                bench.settleSeconds = settle
                defer { bench.stop() }
                let result = try bench.run(rates: rates, latencyRate: latencyRate)
                print("(b) beacon-ingest → bus → region-monitor, \(Bench.grouped(Double(devices))) devices, 100 reports × \(Driver.sightingsPerReport) sightings per ingest.batch (25 in the latency step), open loop")
                print("    target/s   achieved/s   accepted    consumed   lost")
                for step in result.steps {
                    print("    " + [Bench.grouped(step.target).padded(9), Bench.grouped(step.achieved).padded(11), Bench.grouped(Double(step.accepted)).padded(10),
                                    Bench.grouped(Double(step.consumed)).padded(10), Bench.grouped(Double(step.accepted - step.consumed)).padded(5)].joined(separator: "  ")
                          + (step.holds ? "" : "   ← not held"))
                }
                let ratio = zmqRate.map { " = \(Bench.format(result.sustained / $0 * 100, 1))% of raw PUB→SUB" } ?? ""
                print("    sustained with zero loss: \(Bench.grouped(result.sustained)) sightings/s\(ratio); " + verdict(result.sustained, atLeast: 100_000, unit: "sightings/s"))
                let l = result.latencies
                print("    sighting → region event at \(Bench.grouped(result.latencyRate))/s (\(l.count) events): p50 \(ms(l, 50)), p90 \(ms(l, 90)), p99 \(ms(l, 99)), p99.9 \(ms(l, 99.9)), max \(Bench.format(l.last ?? .nan, 2)) ms; "
                      + verdict(Bench.percentile(l, 99), atMost: 5, unit: "ms p99"))
                if let bytes = result.regionBytesPerDevice {
                    print("    region-monitor resident memory: \(Bench.format(bytes)) B per tracked device at \(Bench.grouped(Double(devices))) devices; " + verdict(bytes, atMost: 1024, unit: "B"))
                }
            }
            if only.contains("c") {
                let region = try RegionEngineBenchmark.run(catalog: catalog, devices: devices, rounds: 10)
                print("(c) region-monitor evaluation in process, \(Bench.grouped(Double(devices))) devices, \(catalog.cafes.count) beacon and \(catalog.cafes.count) area conditions")
                print("    \(Bench.grouped(region.perSecondPerCore)) sightings/s per core (\(Bench.grouped(Double(region.sightings))) sightings, \(region.events) events); "
                      + verdict(region.perSecondPerCore, atLeast: 1_000_000, unit: "sightings/s per core"))
                print("    engine memory \(Bench.format(region.bytesPerDevice)) B per device; " + verdict(region.bytesPerDevice, atMost: 1024, unit: "B"))
            }
            if only.contains("d") {
                print("(d) envelope JSON, one core (Wire.encode / Wire.decodeEnvelope)")
                for result in CodecBenchmark.run(seconds: 1) {
                    print("    \(result.name) (\(result.bytes) B): encode \(Bench.grouped(result.encodePerSecond))/s, decode \(Bench.grouped(result.decodePerSecond))/s")
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
