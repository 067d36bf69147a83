import Foundation
import ServiceRuntime

/// `load-test push`: end to end, a phone's sighting at the café to its "ready" push accepted by
/// the local APNs peer, through a platform of its own.
public enum PushCommand {
    static let phones = Option.count("phones", 1...1_000, default: 200, help: "phones, each with one order (the café's windows 15+ minutes ahead must hold them)")
    static let rate = Option.measure("rate", default: 10, help: "phones arriving per second (a Poisson process)")
    static let seed = Option.count("seed", default: 1, help: "the seed of the arrival times")
    static let campus = Option<String>("campus", .path, default: "deploy/campus.json", help: "the campus catalog; phones order at its default café")
    static let script = Option<String>("apns-script", .path, default: "deploy/local-apns.sh",
                                       help: "the local APNs script (its test CA, certificate, key and peer; from the repository root)")
    static let timeout = Option.seconds("timeout", default: 30, help: "seconds to wait after the last arrival for every push")
    static let burst = Option.count("burst", 0...10_000, default: 0,
                                    help: "after the arrivals, this many order.ready events played onto the bus at once: notification-service's own pushes per second")
    static let json = Option<String>("json", .path, default: "", help: "also write the per-phone times to this JSON file")
    /// Its options, in `--help` order.
    static var specs: [OptionSpec] { [phones.spec, rate.spec, seed.spec, campus.spec, script.spec, timeout.spec, burst.spec, json.spec] }
    static let summary = "sighting at the café → the \"ready\" push accepted by the local APNs peer, end to end (its own platform and peer)"

    /// Runs `load-test push` with `arguments` (after the command word); the exit status.
    public static func main(arguments: [String]) -> Int32 {
        let config = subcommandConfiguration(program: "load-test push", summary: summary, specs: specs, arguments: arguments, usage: "load-test push [options]")
        let settings = PushRun.Settings(phones: config[phones], rate: max(0.01, config[rate]), seed: UInt64(max(0, config[seed])), campus: config[campus],
                                        script: config[script], timeout: config[timeout], burst: config[burst])
        let run = PushRun(settings: settings)
        defer { run.stop() }
        do {
            let (outcomes, peer, burst) = try run.run { logLine("push: \($0)") }
            print(PushReport(settings: settings, phones: outcomes, peer: peer, burst: burst).text())
            if !config[json].isEmpty {
                let rows = outcomes.map { ["device": $0.device, "orderId": $0.orderId, "sightingAt": $0.sightingAt as Any, "readyAt": $0.readyAt as Any,
                                           "acceptedAt": $0.acceptedAt as Any] }
                try JSONSerialization.data(withJSONObject: rows, options: [.prettyPrinted]).write(to: URL(fileURLWithPath: config[json]))
            }
            return outcomes.allSatisfy { $0.acceptedAt != nil } && burst.map { $0.latencies.count == $0.count } != false ? 0 : 1
        } catch {
            logLine("load-test push: \(error)")
            return 1
        }
    }
}

/// The figures of a push run: latencies in milliseconds, nearest-rank percentiles.
struct PushReport {
    let settings: PushRun.Settings
    let phones: [PushRun.Phone]
    let peer: PushRun.PeerTally
    let burst: PushBurst.Outcome?

    func text() -> String {
        func row(_ name: String, _ values: [Double]) -> String {
            let ms = values.map { $0 * 1000 }
            func q(_ p: Double) -> String { PacingPlan.quantile(ms, p).map { String(format: "%8.1f", $0) } ?? "       -" }
            return name.padding(toLength: 36, withPad: " ", startingAt: 0) + String(format: "%5d", ms.count) + " \(q(0.5)) \(q(0.9)) \(q(0.99)) \(q(1))"
        }
        let accepted = phones.compactMap(\.acceptedAt).sorted()
        let span = (accepted.last ?? 0) - (accepted.first ?? 0)
        var lines = [
            "push: \(settings.phones) phones arriving at \(String(format: "%g", settings.rate))/s (Poisson, seed \(settings.seed)); the crew bumps each order as the kitchen fires it",
            "                                        n      p50      p90      p99      max  (ms)",
            row("sighting → ready push accepted", phones.compactMap { p in p.acceptedAt.flatMap { a in p.sightingAt.map { a - $0 } } }),
            row("sighting → order.ready event", phones.compactMap { p in p.readyAt.flatMap { r in p.sightingAt.map { r - $0 } } }),
            row("order.ready → APNs 200", phones.compactMap { p in p.acceptedAt.flatMap { a in p.readyAt.map { a - $0 } } }),
            "pushes accepted: \(accepted.count) of \(phones.count)" + (accepted.count > 1 && span > 0 ? String(format: ", %.1f/s from first to last", Double(accepted.count - 1) / span) : "")
                + "; peer connections \(peer.connections), answers other than 200: \(peer.refused)",
        ]
        if let burst {
            lines.append(row("burst: order.ready → APNs 200", burst.latencies))
            lines.append("burst: \(burst.latencies.count) of \(burst.count) accepted" + String(format: ", %.0f pushes/s from first to last", burst.perSecond))
        }
        return lines.joined(separator: "\n")
    }
}
