import Foundation
import ServiceRuntime

/// How `load-test bench` prints (a) and (b): plain and deployed side by side, so CURVE's cost
/// reads off one table, with a verdict per target.
enum BenchReport {
    static func printRaw(_ raw: [SocketSecurity.Mode: ZeroMQBenchmark.Figures], modes: [SocketSecurity.Mode], frameBytes: (Int, Int)) {
        print("(a) raw libzmq over TCP loopback, one process per end (own context and I/O thread), blocking receives, frames of \(frameBytes.0) + \(frameBytes.1) B (a sighting)")
        print("    direct: PUB → SUB; two-hop: PUB → XSUB | zmq_proxy | XPUB → SUB, the bus's shape, in a third process; CPU from every process's rusage")
        let both = modes.count == 2
        print("    " + "".padding(toLength: 30, withPad: " ", startingAt: 0) + modes.map { ($0 == .plain ? "plain" : "CURVE").padded(12) }.joined() + (both ? "CURVE/plain".padded(14) : ""))
        func row(_ label: String, digits: Int, _ value: (ZeroMQBenchmark.Figures) -> Double) {
            let values = modes.map { raw[$0].map(value) ?? .nan }
            var line = "    " + label.padding(toLength: 30, withPad: " ", startingAt: 0) + values.map { (digits == 0 ? Bench.grouped($0) : Bench.format($0, digits)).padded(12) }.joined()
            if both { line += (Bench.format(values[1] / values[0] * 100, 1) + "%").padded(14) }
            print(line)
        }
        row("PUB→SUB direct msg/s", digits: 0) { $0.direct.perSecond }
        row("  CPU s per 10⁶ msg", digits: 2) { $0.direct.cpuMicrosPerMessage }
        row("PUB→proxy→SUB two-hop msg/s", digits: 0) { $0.twoHop.perSecond }
        row("  CPU s per 10⁶ msg", digits: 2) { $0.twoHop.cpuMicrosPerMessage }
        for mode in modes {
            guard let figures = raw[mode] else { continue }
            for (name, run) in [("direct", figures.direct), ("two-hop", figures.twoHop)] where !run.complete {
                print("    note: \(mode.rawValue) \(name): \(Bench.grouped(Double(run.messages))) messages arrived, the rest never did (twice); the rate is to the last one")
            }
        }
        row("REQ→REP round trip p50 µs", digits: 1) { Bench.percentile($0.roundTrips, 50) }
        row("REQ→REP round trip p99 µs", digits: 1) { Bench.percentile($0.roundTrips, 99) }
        row("REQ→REP round trip p99.9 µs", digits: 1) { Bench.percentile($0.roundTrips, 99.9) }
        row("REQ→REP CPU µs/round trip", digits: 2) { $0.cpuMicrosPerRoundTrip }
    }

    static func printPlatform(_ results: [PlatformBenchmark.Result], raw: [SocketSecurity.Mode: ZeroMQBenchmark.Figures], devices: Int) {
        print("(b) beacon-ingest → bus → region-monitor, \(Bench.grouped(Double(devices))) devices, 100 reports × \(Driver.sightingsPerReport) sightings per ingest.batch (25 in the latency step), open loop")
        for result in results {
            print("    \(title(result.mode)):")
            print("    target/s   achieved/s   accepted    consumed   lost   CPU µs/sighting")
            for step in result.steps {
                print("    " + [Bench.grouped(step.target).padded(9), Bench.grouped(step.achieved).padded(11), Bench.grouped(Double(step.accepted)).padded(10),
                                Bench.grouped(Double(step.consumed)).padded(10), Bench.grouped(Double(step.accepted - step.consumed)).padded(5),
                                (step.cpuMicrosPerSighting.map { Bench.format($0, 2) } ?? "?").padded(16)].joined(separator: "  ")
                      + (step.holds ? "" : "   ← not held"))
            }
        }
        for result in results {
            let curve = result.mode == .plain ? "" : "CURVE "
            let ratio = raw[result.mode].map {
                " = \(Bench.format(result.sustained / $0.direct.perSecond * 100, 1))% of raw \(curve)direct, \(Bench.format(result.sustained / $0.twoHop.perSecond * 100, 1))% of raw \(curve)two-hop"
            } ?? ""
            let verdict = result.mode == .plain ? "; " + Benchmarks.verdict(result.sustained, atLeast: 100_000, unit: "sightings/s") : ""
            print("    sustained with zero loss, \(result.mode.rawValue): \(Bench.grouped(result.sustained)) sightings/s\(ratio)\(verdict)")
        }
        if let plain = results.first(where: { $0.mode == .plain }), let deployed = results.first(where: { $0.mode == .deployed }) {
            let share = plain.sustained > 0 ? deployed.sustained / plain.sustained * 100 : 0
            print("    deployed / plain zero-loss rate: \(Bench.format(share, 1))%; " + Benchmarks.verdict(share, atLeast: 70, unit: "% of plain"))
        }
        for result in results {
            let l = result.latencies
            print("    sighting → region event at steady state, \(result.mode.rawValue), at \(Bench.grouped(result.latencyRate))/s after \(Bench.format(result.warmSeconds, 0)) s at that rate "
                  + "(\(l.count) first-seen devices): \(summary(l)); " + Benchmarks.verdict(Bench.percentile(l, 99), atMost: 5, unit: "ms p99"))
            if let raw = result.rawChain {
                // The hops alone, at the same seconds (load-test run's raw chain of a sighting).
                print("      beside it, libzmq alone through the same hand-offs (1 direct hop + 2 via a proxy, \(raw.count) walks): p50 \(Bench.format(raw.p50, 2)), "
                      + "p99 \(Bench.format(raw.p99, 2)) ms; the platform's p99 is \(raw.p99 > 0 ? Bench.format(Bench.percentile(l, 99) / raw.p99, 1) + "×" : "—") it")
            }
        }
        for result in results { staleWaveLines(result).forEach { print($0) } }
        let cpu = results.map { "\($0.mode.rawValue) \($0.cpuMicrosPerSighting.map { Bench.format($0, 2) } ?? "?") µs" }
        print("    platform CPU (bus + beacon-ingest + region-monitor) per sighting over the held steps: " + cpu.joined(separator: ", "))
        for result in results {
            guard let marginal = result.marginalCPUMicrosPerSighting else {
                print("    platform CPU per sighting at the margin, \(result.mode.rawValue): not measured (it needs two held steps)")
                continue
            }
            let rawCPU = raw[result.mode]?.twoHop.cpuMicrosPerMessage
            var line = "    platform CPU per sighting at the margin, \(result.mode.rawValue): \(Bench.format(marginal, 2)) µs"
            if result.mode == .plain { line += "; " + Benchmarks.verdict(marginal, atMost: 4, unit: "µs") }
            if let rawCPU {
                line += "; raw two-hop \(Bench.format(rawCPU, 2)) µs per message, " + Benchmarks.verdict(marginal / rawCPU, atMost: 2, unit: "× raw two-hop")
            }
            print(line)
        }
        for result in results {
            if let micros = result.firstSeenMicrosPerDevice {
                print("    region-monitor CPU per first-seen device, \(result.mode.rawValue) (first pass at 50,000 sightings/s, 4 sightings each, events and records written): "
                      + "\(Bench.format(micros, 1)) µs at \(Bench.grouped(Double(result.trackedDevices))) devices; " + Benchmarks.verdict(micros, atMost: 20, unit: "µs"))
            }
        }
        for result in results {
            if let seconds = result.restartSeconds {
                print("    region-monitor restarted with \(Bench.grouped(Double(result.restartTracked))) devices tracked, \(result.mode.rawValue): answered health after "
                      + "\(Bench.format(seconds, 2)) s; " + Benchmarks.verdict(seconds, atMost: 5, unit: "s"))
            } else {
                print("    region-monitor restarted, \(result.mode.rawValue): no health answer within 60 s; target ≤ 5 s MISSED by 1100.0%")
            }
        }
        for result in results {
            if let bytes = result.regionBytesPerDevice {
                print("    region-monitor resident memory, \(result.mode.rawValue): \(Bench.format(bytes)) B per tracked device, \(Bench.grouped(Double(result.trackedDevices))) of "
                      + "\(Bench.grouped(Double(devices))) devices tracked; " + Benchmarks.verdict(bytes, atMost: 350, unit: "B"))
            }
        }
    }

    /// The stale wave of one mode, three lines: how many quiet devices' answers were cleared and
    /// when the last was, how late the clearings came against their due times, and the fresh
    /// devices' latency meanwhile beside the steady state's.
    static func staleWaveLines(_ result: PlatformBenchmark.Result) -> [String] {
        let wave = result.wave, mode = result.mode.rawValue
        let rate = Bench.grouped(result.latencyRate), quiet = Bench.grouped(Double(wave.quietDevices))
        var line = "    stale wave, \(mode), at \(rate)/s: \(quiet) quiet devices, their nearest answers due over \(Bench.format(wave.dueSeconds, 2)) s "
            + "(\(Bench.format(PlatformBenchmark.staleSeconds, 0)) s after each one's last sighting); \(Bench.grouped(Double(wave.cleared))) seen cleared"
        if let last = wave.lastClearedAfter, let tail = wave.tailSeconds {
            line += ", the last \(Bench.format(last, 2)) s after the first was due (\(Bench.format(tail, 2)) s after the last)"
        }
        if wave.stillNamed > 0 || wave.asked < wave.unseen {
            let sample = wave.asked < wave.unseen ? ", from \(Bench.grouped(Double(wave.asked))) of them asked" : ""
            line += "; \(Bench.grouped(Double(wave.stillNamed))) still named \(Bench.format(wave.stillNamedAfter, 1)) s after the last was due (nearest.get\(sample))"
        }
        if wave.unaccounted > 0 { line += "; \(Bench.grouped(Double(wave.unaccounted))) neither (no answer to clear, or its clearing unseen)" }
        if wave.named > 0 { line += "; \(Bench.grouped(Double(wave.named))) answers named a café for a quiet device" }
        var lines = [line + "; " + clearedVerdict(wave)]
        let late = wave.lateness
        let p99 = wave.latenessP99
        lines.append("    stale wave, \(mode): clearing seen against its due time (\(Bench.grouped(Double(late.count))) answers): "
              + (late.isEmpty ? "none seen" : "p50 \(Benchmarks.ms(late, 50)), p90 \(Benchmarks.ms(late, 90)), max \(Bench.format(late.last ?? .nan, 2)) ms")
              + "; p99 " + (p99.map { "\(Bench.format($0, 2)) ms" } ?? "not reached (over 1% never seen cleared)") + "; "
              + (p99.map { Benchmarks.verdict($0, atMost: clearingTargetMilliseconds, unit: "ms p99 (one timer period, region-monitor's --tick-seconds)") }
                 ?? "target ≤ \(Bench.format(clearingTargetMilliseconds)) ms p99 (one timer period, region-monitor's --tick-seconds) MISSED by 100.0% or more"))
        let l = wave.latencies
        lines.append("    stale wave, \(mode): sighting → region event meanwhile (\(l.count) first-seen devices): \(summary(l)); at steady state p99 \(Benchmarks.ms(result.latencies, 99)) ms; "
              + Benchmarks.verdict(Bench.percentile(l, 99), atMost: 5, unit: "ms p99 (the steady-state target, for reading)"))
        return lines
    }

    /// How late a clearing may come: region-monitor's timer fires every `--tick-seconds` (0.5 by
    /// default, which the bench runs with), so an answer falls due at most one period before a pass.
    static let clearingTargetMilliseconds = 500.0

    /// Whether every answer named was cleared, and by how much not (the share still named).
    static func clearedVerdict(_ wave: PlatformBenchmark.StaleWave) -> String {
        if wave.allCleared { return "target: every answer cleared, met" }
        let total = wave.cleared + wave.stillNamed
        let share = total > 0 ? Double(wave.stillNamed) / Double(total) * 100 : 100
        return "target: every answer cleared, MISSED by \(Bench.format(share, 1))% (still named)"
    }

    /// "p50 …, p90 …, p99 …, p99.9 …, max … ms" of sorted latencies.
    static func summary(_ l: [Double]) -> String {
        "p50 \(Benchmarks.ms(l, 50)), p90 \(Benchmarks.ms(l, 90)), p99 \(Benchmarks.ms(l, 99)), p99.9 \(Benchmarks.ms(l, 99.9)), max \(Bench.format(l.last ?? .nan, 2)) ms"
    }

    static func title(_ mode: SocketSecurity.Mode) -> String {
        mode == .plain ? "plain (no CURVE)" : "deployed (CURVE on every socket, ZAP against the key registry; sightings through a gateway key)"
    }
}
