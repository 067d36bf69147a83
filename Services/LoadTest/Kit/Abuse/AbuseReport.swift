import Foundation

/// What one attack did and what legitimate work saw meanwhile, with a verdict per target of
/// issue 28: health answers within 1 s, sighting → region event p99 < 50 ms, order →
/// notification p99 < 100 ms, nothing lost, each process's memory back within 10% of its start.
struct AbuseReport {
    var attack: String
    var summary: String
    /// The attack's own counts (requests answered, refused by code, …).
    var attackCounts: [(String, Int)]
    /// The steady load's report; nil when it could not run, and `loadFailure` says why.
    var load: RunReport?
    var loadFailure: String?
    var during: AbuseWatch.Phase
    /// Each process's resident memory before the attack and once it has settled after it.
    var before: [String: Int]
    var after: [String: Int]
    /// Growth allowed each process beyond the 10%: what the steady load alone grew it by (the
    /// baseline run); empty for the baseline itself, which is judged by its own growth.
    var allowance: [String: Int]
    var processes: [String]

    static let healthLimitMs = 1_000.0
    static let regionLimitMs = 50.0
    static let orderLimitMs = 100.0
    static let memoryTolerance = 0.10

    /// Each target, its figure, and whether it was met.
    var verdicts: [(target: String, met: Bool, figure: String)] {
        func ms(_ value: Double) -> String { String(format: "%.1f ms", value) }
        var lines: [(String, Bool, String)] = [
            ("health answered within 1 s", during.healthMaxMs <= Self.healthLimitMs && during.unanswered == 0,
             "max \(ms(during.healthMaxMs))" + (during.unanswered > 0 ? ", \(during.unanswered) unanswered" : "")),
        ]
        if let load {
            let region = load.regionEvents.latencyMs, orders = load.orders.latencyMs
            lines.append(("sighting → region event p99 < 50 ms", region.count > 0 && region.p99 < Self.regionLimitMs, "p99 \(ms(region.p99)) of \(region.count)"))
            if load.settings.orderRate > 0 {
                lines.append(("order → notification p99 < 100 ms", orders.count > 0 && orders.p99 < Self.orderLimitMs, "p99 \(ms(orders.p99)) of \(orders.count)"))
            }
            lines.append(("nothing lost", load.lost == 0, "\(load.lost) lost"))
        } else {
            lines.append(("the steady load ran", false, loadFailure ?? "it did not"))
        }
        if attack == "none" {
            let figures = processes.compactMap { name in growth[name].map { name + String(format: " %+.1f MB", Double($0) / 1_048_576) } }
            lines.append(("memory: the steady load's own growth, allowed to every attack", true, figures.joined(separator: ", ")))
            return lines
        }
        let grown = Self.grown(before: before, after: after, allowance: allowance, processes: processes)
        let unread = processes.filter { before[$0] == nil || after[$0] == nil }
        lines.append(("memory back within 10% of its start", grown.isEmpty && unread.count < processes.count,
                      (grown.isEmpty ? "every process" : "not: " + grown.joined(separator: ", ")) + (allowance.isEmpty ? "" : ", beyond the baseline's growth")))
        return lines
    }

    var met: Bool { verdicts.allSatisfy(\.met) }

    /// The processes whose memory after is more than 10% above before, beyond what the steady
    /// load alone grew it by (`allowance`; a process not read both times is not judged).
    static func grown(before: [String: Int], after: [String: Int], allowance: [String: Int] = [:], processes: [String]) -> [String] {
        processes.filter { name in
            guard let start = before[name], let end = after[name] else { return false }
            return Double(end) > Double(start) * (1 + memoryTolerance) + Double(max(0, allowance[name] ?? 0))
        }
    }

    /// Each process's growth over the run (after − before): the baseline's is every attack's allowance.
    var growth: [String: Int] {
        var growth: [String: Int] = [:]
        for name in processes { if let start = before[name], let end = after[name] { growth[name] = end - start } }
        return growth
    }

    var table: String {
        func mb(_ bytes: Int?) -> String { bytes.map { String(format: "%7.1f", Double($0) / 1_048_576) } ?? "      —" }
        var lines = ["== attack \(attack): \(summary)"]
        lines.append("attack did: " + (attackCounts.isEmpty ? "nothing counted" : attackCounts.map { "\($0.0) \($0.1)" }.joined(separator: ", ")))
        if let load {
            let region = load.regionEvents.latencyMs, orders = load.orders.latencyMs
            lines.append(String(format: "steady load: %.0f sightings/s, %.1f orders/s, %.0f s measured: region event p50 %.1f / p99 %.1f / max %.1f ms (n=%llu); "
                            + "order → notification p50 %.1f / p99 %.1f / max %.1f ms (n=%llu); lost %d",
                            load.settings.rate, load.settings.orderRate, load.settings.duration, region.p50, region.p99, region.max, region.count,
                            orders.p50, orders.p99, orders.max, orders.count, load.lost))
        } else {
            lines.append("steady load: could not run: \(loadFailure ?? "")")
        }
        let slowest = during.slowest.max { $0.value < $1.value }
        lines.append(String(format: "health on a new connection, every 0.5 s per process: p99 %.1f ms, max %.1f ms%@; %d probes, %d unanswered",
                            Double(during.health.value(atPercentile: 99)) / 1_000, during.healthMaxMs,
                            slowest.map { " (\($0.key))" } ?? "", during.probes, during.unanswered))
        lines.append(String(format: "order-service's reactor (health on an open connection, every 0.5 s): p50 %.2f ms, p99 %.2f ms, max %.2f ms",
                            Double(during.orderReactor.value(atPercentile: 50)) / 1_000, Double(during.orderReactor.value(atPercentile: 99)) / 1_000,
                            Double(during.orderReactor.value(atPercentile: 100)) / 1_000))
        lines.append("memory (RSS, MB)         before   during (peak)   after")
        for name in processes {
            lines.append(name.padding(toLength: 22, withPad: " ", startingAt: 0) + "  \(mb(before[name]))   \(mb(during.peakRSS[name]))         \(mb(after[name]))"
                         + (allowance[name].map { $0 > 0 ? "   (+\(mb($0).trimmingCharacters(in: .whitespaces)) allowed: the baseline's growth)" : "" } ?? ""))
        }
        for verdict in verdicts { lines.append("\(verdict.target): " + (verdict.met ? "met" : "MISSED") + " (\(verdict.figure))") }
        return lines.joined(separator: "\n")
    }

    /// One line per attack and target: the run's closing summary.
    static func summary(_ reports: [AbuseReport]) -> String {
        var lines = ["== verdicts"]
        for report in reports {
            let missed = report.verdicts.filter { !$0.met }.map(\.target)
            lines.append("\(report.attack): " + (missed.isEmpty ? "all met" : "MISSED: " + missed.joined(separator: "; ")))
        }
        return lines.joined(separator: "\n")
    }
}
