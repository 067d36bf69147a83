import Foundation
import FuzzTargets
import Testing

/// A short deterministic pass of every fuzz target: its seeds (PROTOCOL.md's examples, the
/// catalogs, option lines), then mutants of them from a fixed seed. `deploy/fuzz.sh` runs the
/// same targets under libFuzzer for as long as it is given.
@Suite("Fuzz targets: a short deterministic pass of each")
struct FuzzPassTests {
    /// Runs per target: the whole pass takes a few seconds.
    static let runs: [String: Int] = ["requests": 1_500, "sightings": 3_000, "batches": 3_000, "fixes": 3_000, "envelopes": 3_000, "compact": 5_000,
                                      "replies": 2_000, "catalog": 300, "options": 1_000, "identity": 2_000,
                                      "tnetstrings": 3_000, "zhttp": 1_500, "sessions": 1_000, "apns": 3_000, "webhook": 3_000, "metrics": 2_000]

    @Test("every target has seeds from the repository", arguments: FuzzTargets.names)
    func seeds(_ name: String) throws {
        let target = try #require(FuzzTargets.make(name))
        let seeds = target.seeds()
        #expect(seeds.count >= (name == "batches" || name == "fixes" || name == "sightings" ? 2 : 3), "\(name): \(seeds.count) seeds")
        for (index, seed) in seeds.enumerated() {
            #expect(target.check(seed) == nil, "\(name): seed \(index)")
        }
    }

    @Test("seeded mutants of every target's seeds: no trap, no disagreement", arguments: FuzzTargets.names)
    func pass(_ name: String) throws {
        let target = try #require(FuzzTargets.make(name))
        var loop = MutationLoop(seed: 2026)
        let finding = loop.run(target, runs: Self.runs[name] ?? 1_000)
        #expect(finding == nil, "\(name): \(finding.map(String.init(describing:)) ?? "")")
    }
}
