import Campus
import Foundation
import ServiceRuntime

/// `load-test truth`: seeded phones walk, stand, pass and sit among Caffè Macs' and its coffee
/// station's beacons under indoor radio noise, through a platform of its own; the report judges
/// what the platform said (nearest café, region events) against the truth.
public enum TruthCommand {
    static let phones = Option.count("phones", 1...5_000, default: 200, help: "simulated phones, mixed over the scenarios (walk-up, counter, counter-4m, walk-between, pass-by, sit-inside)")
    static let duration = Option.seconds("duration", default: 150, help: "seconds the phones report (real time)")
    static let exitSeconds = Option.seconds("beacon-exit-seconds", default: 30, help: "region-monitor's beacon exit timeout for the run (the exit verdict allows it + 2 s)")
    static let seed = Option.count("seed", default: 1, help: "the seed of the scenarios, the radio and the GPS: a run repeats")
    static let nearExponent = Option.measure("near-exponent", default: 2, help: "path-loss exponent up to --breakpoint metres")
    static let farExponent = Option.measure("far-exponent", default: 3.5, help: "path-loss exponent beyond --breakpoint metres")
    static let breakpoint = Option.measure("breakpoint", .positive, default: 10, help: "metres where the path loss steepens")
    static let sigma = Option.measure("sigma", default: 6, help: "log-normal shadowing σ, dB")
    static let correlation = Option.seconds("correlation-seconds", .nonNegative, default: 2, help: "time constant of the shadowing's correlation (AR(1) per phone and beacon; 0: independent)")
    static let missRate = Option.measure("miss-rate", OptionSpec.Bounds(lower: 0, upper: 1), default: 0.2, help: "share of advertisements the phone misses")
    static let dipDepth = Option.measure("dip-db", default: 10, help: "depth of a body-blocking dip, dB (each lasts 1–3 s)")
    static let dipRate = Option.measure("dips-per-minute", default: 2, help: "body-blocking dips per phone and beacon a minute (sitters: five times as many)")
    static let measuredPower = Option.count("measured-power", -120...0, default: -59, help: "every beacon's calibrated RSSI at 1 m (dBm), as it advertises it")
    static let gpsMin = Option.measure("gps-accuracy-min", .positive, default: 5, help: "smallest stated accuracy of an indoor GPS fix, metres")
    static let gpsMax = Option.measure("gps-accuracy-max", .positive, default: 65, help: "largest stated accuracy of an indoor GPS fix, metres")
    static let approximateRate = Option.measure("approximate-rate", OptionSpec.Bounds(lower: 0, upper: 1), default: 0.05, help: "share of fixes that are approximate (1–3 km)")
    static let campus = Option<String>("campus", .path, default: "deploy/campus.json", help: "the campus catalog the platform serves (must have caffe-macs)")
    static let quick = Option.flag("quick", default: false, help: "a short run for tests: 12 phones, 25 s, exit timeout 5 s (flags given still win)")
    static let json = Option<String>("json", .path, default: "", help: "also write the report to this JSON file")

    /// Its options, in `--help` order.
    static var specs: [OptionSpec] {
        [phones.spec, duration.spec, exitSeconds.spec, seed.spec, nearExponent.spec, farExponent.spec, breakpoint.spec, sigma.spec, correlation.spec,
         missRate.spec, dipDepth.spec, dipRate.spec, measuredPower.spec, gpsMin.spec, gpsMax.spec, approximateRate.spec, campus.spec, quick.spec, json.spec]
    }
    static let summary = "location truth under indoor radio noise: naming, enter and exit latencies, alternations, wrong answers and flaps, judged against issue 25's targets"

    /// The run `config` asks for: `--quick` shrinks what was not given.
    static func settings(_ config: Configuration) -> TruthRun.Settings {
        var noise = RadioNoise()
        noise.nearExponent = config[nearExponent]
        noise.farExponent = config[farExponent]
        noise.breakpoint = config[breakpoint]
        noise.sigma = config[sigma]
        noise.correlationSeconds = config[correlation]
        noise.missRate = config[missRate]
        noise.dipDepth = config[dipDepth]
        noise.dipsPerMinute = config[dipRate]
        var gps = GPSNoise()
        gps.accuracy = min(config[gpsMin], config[gpsMax])...max(config[gpsMin], config[gpsMax])
        gps.approximateRate = config[approximateRate]
        let short = config[quick]
        return TruthRun.Settings(phones: short && !config.isSet(phones) ? 12 : config[phones], duration: short && !config.isSet(duration) ? 25 : config[duration],
                                 exitSeconds: short && !config.isSet(exitSeconds) ? 5 : config[exitSeconds], seed: UInt64(max(0, config[seed])),
                                 measuredPower: config[measuredPower], noise: noise, gps: gps, campus: config[campus])
    }

    /// Runs `load-test truth` with `arguments` (after the command word); the exit status: 0 when
    /// the run completed, whatever the verdicts (they are the figures, not the run's health).
    public static func main(arguments: [String]) -> Int32 {
        let config = subcommandConfiguration(program: "load-test truth", summary: summary, specs: specs, arguments: arguments, usage: "load-test truth [options]")
        let run = TruthRun(settings: settings(config))
        defer { run.stop() }
        do {
            let outcome = try run.run { logLine("truth: \($0)") }
            let report = TruthReport(settings: run.settings, outcome: outcome)
            print(report.table)
            if !config[json].isEmpty { try writeJSON(report, to: config[json]) }
            return 0
        } catch {
            logLine("load-test truth: \(error)")
            return 1
        }
    }
}
