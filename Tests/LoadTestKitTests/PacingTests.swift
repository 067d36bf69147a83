@testable import LoadTestKit
import ServiceRuntime
import Testing

/// `load-test pacing`'s plan and sizes, without a platform: the same seed gives the same
/// customers, and `--quick` keeps only the sizes that were asked for.
struct PacingTests {
    @Test("the sizes a command line asks for", arguments: [
        (arguments: [String](), environment: [String: String](), customers: 40, windowMinutes: 5, radius: 300.0),
        (["--customers", "7", "--approach-radius", "5000"], [:], 7, 5, 3000),
        (["--approach-radius", "10"], [:], 40, 5, 100),
        (["--customers", "0"], [:], 1, 5, 300),
        (["--quick"], [:], 3, 1, 60),
        (["--quick", "--customers", "8", "--approach-radius", "500"], [:], 8, 1, 60),
        (["--quick"], ["CAFE_CUSTOMERS": "9"], 9, 1, 60),
    ])
    func scale(arguments: [String], environment: [String: String], customers: Int, windowMinutes: Int, radius: Double) throws {
        let config = try Configuration(program: "load-test pacing", specs: PacingCommand.specs, arguments: arguments, environment: environment)
        let scale = PacingCommand.scale(config)
        #expect(scale.customers == customers)
        #expect(scale.windowMinutes == windowMinutes)
        #expect(scale.approachRadius == radius)
    }

    @Test("a seed decides the plan: the same seed the same customers, another seed others")
    func seeded() {
        let scale = PacingPlan.Scale()
        let first = PacingPlan(scale: scale, seed: 7), again = PacingPlan(scale: scale, seed: 7), other = PacingPlan(scale: scale, seed: 8)
        func summary(_ plan: PacingPlan) -> [String] { plan.customers.map { "\($0.items) \($0.window) \($0.arrivalOffset) \($0.speed) \($0.startDistance)" } }
        #expect(summary(first) == summary(again))
        #expect(summary(first) != summary(other))
        #expect(first.customers.count == scale.customers)
        for customer in first.customers {
            #expect(customer.window == customer.index % 2)
            #expect(!customer.items.isEmpty && customer.items.allSatisfy { scale.prep.indices.contains($0) })
            #expect(customer.startDistance > scale.approachRadius && scale.speed.contains(customer.speed))
        }
    }

    @Test("quantiles are nearest rank, nil when there is nothing")
    func quantile() {
        #expect(PacingPlan.quantile([], 0.5) == nil)
        #expect(PacingPlan.quantile([3, 1, 2], 0.5) == 2)
        #expect(PacingPlan.quantile([3, 1, 2], 0.9) == 3)
        #expect(PacingPlan.quantile(Array(1...100).map(Double.init), 0.5) == 50)
    }
}
