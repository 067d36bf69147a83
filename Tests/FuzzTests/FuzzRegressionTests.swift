import Foundation
import FuzzTargets
import Testing

/// Every input a fuzzer found something with, fed again to the target that found it: each must
/// now pass (no trap, no disagreement). The codec tables hold the rule each one taught
/// (`CodecDifferentialTests`, `HostileFrameTests`).
@Suite("Fuzz findings stay fixed")
struct FuzzRegressionTests {
    struct Finding: Sendable, CustomTestStringConvertible {
        let target: String
        let what: String
        let input: String
        var testDescription: String { "\(target): \(what)" }
    }

    static let findings: [Finding] = [
        // libFuzzer, 25 s into `requests`: the head's reader skipped "\ud00" (an escape cut short by
        // the closing quote) where Foundation refuses the frame. Skipped strings now end where
        // Foundation ends them.
        Finding(target: "requests", what: "a \\u escape cut short by the closing quote, in a skipped value",
                input: "{\n  \"op\": \"monitor.oopen\",\n  \"id\": \"c4b\",\n  \"body\": {\n    \"monitor\": \"cafes\",\n    \"owner\": \"lunch-app\\ud00\"\n  }\n}"),
    ]

    @Test("each finding passes its target now", arguments: findings)
    func finding(_ finding: Finding) throws {
        let target = try #require(FuzzTargets.make(finding.target))
        let problem = target.check(Data(finding.input.utf8))
        #expect(problem == nil, "\(problem ?? "")")
    }
}
