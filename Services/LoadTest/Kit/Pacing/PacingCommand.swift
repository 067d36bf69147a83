import Foundation
import ServiceRuntime

/// `load-test pacing`: food-ready versus customer-arrival, with the kitchen paced by the
/// customer's approach and without, over the same walks in the same run.
public enum PacingCommand {
    static let customers = Option.count("customers", default: 40, help: "customers per café (each has a twin with the same order and walk at the other café)")
    static let seed = Option.count("seed", default: 1, help: "the seed of the orders, walks, speeds and arrival times")
    static let approachRadius = Option.measure(
        "approach-radius", default: 300,
        help: "metres: the approach area of both cafés (their walk is this at 1.3 m/s); the longest prep times a walking speed covers the kitchen's longest item")
    static let quick = Option.flag("quick", default: false, help: "a run of a minute or two: one-minute windows, short walks, seconds of prep (for tests)")
    static let json = Option<String>("json", .path, default: "", help: "also write the per-order figures (the rows of --rows) to this JSON file")
    static let rows = Option.flag("rows", default: false, help: "also print a row per order: items' prep, window, walk start, approach entry, fire, ready, arrival, both waits")
    static let silentUntilWalk = Option.flag(
        "silent-until-walk", default: false,
        help: "phones report nothing before their walk begins (the first runs): the kitchen knows nobody is away when orders come")
    /// Its options, in `--help` order.
    static var specs: [OptionSpec] { [customers.spec, seed.spec, approachRadius.spec, quick.spec, json.spec, rows.spec, silentUntilWalk.spec] }
    static let summary = "food ready versus customer arrival, kitchen paced by approach and not, same walks, one run"

    /// The sizes `config` asks for: `--quick` shrinks every size, but keeps a `--customers` that was given.
    static func scale(_ config: Configuration) -> PacingPlan.Scale {
        var scale = config[quick] ? PacingPlan.Scale.quick : PacingPlan.Scale()
        if !config[quick] || config.isSet(customers) { scale.customers = max(1, config[customers]) }
        if !config[quick] { scale.approachRadius = min(3000, max(100, config[approachRadius])) }
        return scale
    }

    /// Runs `load-test pacing` with `arguments` (after the command word); the exit status.
    public static func main(arguments: [String]) -> Int32 {
        let config = subcommandConfiguration(program: "load-test pacing", summary: summary, specs: specs, arguments: arguments, usage: "load-test pacing [options]")
        let plan = PacingPlan(scale: scale(config), seed: UInt64(max(0, config[seed])))
        let run = PacingRun(plan: plan, silentUntilWalk: config[silentUntilWalk])
        defer { run.stop() }
        do {
            let outcomes = try run.run { logLine("pacing: \($0)") }
            let report = PacingReport(plan: plan, outcomes: outcomes)
            if config[rows] { print(report.rowsText()) }
            print(report.text())
            if !config[json].isEmpty {
                try JSONSerialization.data(withJSONObject: report.rows(), options: [.prettyPrinted, .sortedKeys]).write(to: URL(fileURLWithPath: config[json]))
            }
            return outcomes.allSatisfy { $0.foodWait != nil } ? 0 : 1
        } catch {
            logLine("load-test pacing: \(error)")
            return 1
        }
    }
}

/// The figures of a pacing run, per café.
struct PacingReport {
    let plan: PacingPlan
    let outcomes: [PacingRun.Outcome]

    func text() -> String {
        let s = plan.scale
        var lines = [
            "pacing: \(s.customers) customers per café, \(s.windowMinutes)-min windows, approach \(Int(s.approachRadius)) m (walk \(s.walkSeconds) s),"
                + " prep \(s.prep.min() ?? 0)–\(s.prep.max() ?? 0) s, walks \(String(format: "%.1f", s.speed.lowerBound))–\(String(format: "%.1f", s.speed.upperBound)) m/s",
            "café      orders  unfinished   customer waits for food (s)   food waits for customer (s)",
            "                                  p50     p90     p99            p50     p90     p99",
        ]
        for cafe in [PacingPlan.paced, PacingPlan.unpaced] {
            let mine = outcomes.filter { $0.cafe == cafe }
            let customer = mine.compactMap(\.customerWait), food = mine.compactMap(\.foodWait)
            func q(_ values: [Double], _ p: Double) -> String { PacingPlan.quantile(values, p).map { String(format: "%7.0f", $0) } ?? "      -" }
            lines.append(cafe.padding(toLength: 9, withPad: " ", startingAt: 0) + String(format: " %6d  %10d", mine.count, mine.count - customer.count)
                         + "  \(q(customer, 0.5)) \(q(customer, 0.9)) \(q(customer, 0.99))       \(q(food, 0.5)) \(q(food, 0.9)) \(q(food, 0.99))")
        }
        let paced = outcomes.filter { $0.cafe == PacingPlan.paced }
        let customerP90 = PacingPlan.quantile(paced.compactMap(\.customerWait), 0.9) ?? .infinity
        let foodP90 = PacingPlan.quantile(paced.compactMap(\.foodWait), 0.9) ?? .infinity
        lines.append("target (paced): customers wait p90 < 60 s: \(customerP90 < 60 ? "met" : "missed"); food waits p90 < 120 s: \(foodP90 < 120 ? "met" : "missed")")
        return lines.joined(separator: "\n")
    }

    /// One order's figures: times in seconds from its window's start (nil: never happened).
    struct Row {
        var cafe: String, customer: Int, window: Int, prep: [Int]
        var walkStart: Double, approachEntry: Double, firedAt: Double?, readyAt: Double?, arrivedAt: Double?
        var foodWait: Double?, customerWait: Double?
    }

    /// The orders, customer by customer, the paced café's first.
    func orderRows() -> [Row] {
        outcomes.sorted { ($0.customer, $0.cafe) < ($1.customer, $1.cafe) }.map { o in
            let customer = plan.customers[o.customer]
            func rel(_ t: Double?) -> Double? { t.map { $0 - o.windowStart } }
            return Row(cafe: o.cafe, customer: o.customer, window: customer.window, prep: customer.items.map { plan.scale.prep[$0] },
                       walkStart: o.walkStart - o.windowStart, approachEntry: o.approachEntry - o.windowStart, firedAt: rel(o.firedAt),
                       readyAt: rel(o.readyAt), arrivedAt: rel(o.arrivedAt), foodWait: o.foodWait, customerWait: o.customerWait)
        }
    }

    /// The rows as JSON objects (`--json`).
    func rows() -> [[String: Any]] {
        orderRows().map { r in
            ["cafe": r.cafe, "customer": r.customer, "window": r.window, "prepSeconds": r.prep, "walkStart": r.walkStart, "approachEntry": r.approachEntry,
             "firedAt": r.firedAt as Any, "readyAt": r.readyAt as Any, "arrivedAt": r.arrivedAt as Any,
             "foodWaitSeconds": r.foodWait as Any, "customerWaitSeconds": r.customerWait as Any]
        }
    }

    /// The rows as a table (`--rows`).
    func rowsText() -> String {
        func f(_ v: Double?) -> String { v.map { String(format: "%7.0f", $0) } ?? "      -" }
        var lines = ["per order, seconds from its window's start:",
                     "café      cust w  prep (s)         walk  approach    fire   ready  arrive   food-wait cust-wait"]
        for r in orderRows() {
            lines.append(r.cafe.padding(toLength: 9, withPad: " ", startingAt: 0) + String(format: " %4d %d  ", r.customer, r.window)
                         + r.prep.map(String.init).joined(separator: ",").padding(toLength: 14, withPad: " ", startingAt: 0)
                         + "\(f(r.walkStart))   \(f(r.approachEntry)) \(f(r.firedAt)) \(f(r.readyAt)) \(f(r.arrivedAt))     \(f(r.foodWait))   \(f(r.customerWait))")
        }
        return lines.joined(separator: "\n")
    }
}
