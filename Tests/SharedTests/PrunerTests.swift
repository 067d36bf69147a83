import Foundation
import ServiceRuntime
import Testing

/// The pruner's turns: batches of each job in turn while any fills its batch, stopped by the
/// budget (the clock is the test's: each call to `now` is one tick), a failing job skipped.
@Suite("Pruner")
struct PrunerTests {
    struct Broken: Error {}

    @Test("a turn runs every job's batches until each is done, and says so")
    func runsToEnd() {
        let pruner = Pruner(intervalSeconds: 60, batchSize: 10, logger: silentLogger)
        var left = ["a": 25, "b": 3]
        for name in ["a", "b"] {
            pruner.add(name) { limit in
                let deleted = min(limit, left[name] ?? 0)
                left[name, default: 0] -= deleted
                return deleted
            }
        }
        #expect(pruner.turn(until: .infinity) { 0 } == false)
        #expect(left == ["a": 0, "b": 0])
        #expect(pruner.pruned == ["a": 25, "b": 3])
        #expect(!pruner.behind)
        #expect(pruner.healthDetails == ["pruned.a": "25", "pruned.b": "3"])
    }

    @Test("a turn stops when its budget is spent and the next goes on; a failing job does not stop the others")
    func budgetAndFailure() {
        let pruner = Pruner(intervalSeconds: 60, batchSize: 10, logger: silentLogger)
        var left = 100
        pruner.add("broken") { _ in throw Broken() }
        pruner.add("rows") { limit in
            let deleted = min(limit, left)
            left -= deleted
            return deleted
        }
        var tick = 0.0
        // Three checks of the clock before the deadline: the broken job, then two batches of rows.
        #expect(pruner.turn(until: 3) { tick += 1; return tick } == true)
        #expect(left == 80)
        #expect(pruner.behind)
        #expect(pruner.healthDetails["pruned.behind"] == "true")
        #expect(pruner.turn(until: .infinity) { 0 } == false)
        #expect(left == 0)
        #expect(pruner.pruned["broken"] == 0)
    }
}
