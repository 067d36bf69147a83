@testable import LoadTestKit
import ServiceRuntime
import Testing

/// `load-test abuse`: its options, its attacks by name, and how it judges memory.
struct AbuseTests {
    func settings(_ arguments: [String]) throws -> AbuseSettings {
        AbuseSettings(try Configuration(program: "load-test abuse", specs: AbuseSettings.specs, arguments: arguments, environment: [:]))
    }

    @Test("with no flag, every attack runs with issue 28's sizes; the steady load takes load-test run's flags")
    func defaults() throws {
        let settings = try settings([])
        #expect(settings.attacks == AbuseAttacks.names && settings.replayClients == 50 && settings.replayStream == "order")
        #expect(AbuseAttacks.names.contains("slow-subscriber") && settings.slowSubscribers == 4 && settings.slowReaders == 1)
        #expect(settings.churnPrefixes == 10_000 && settings.churnPrefixBytes == 4_000 && settings.churnHeld == 50)
        #expect(settings.replayEndpoint == "tcp://127.0.0.1:7430" && settings.edge == "tcp://127.0.0.1:7460" && settings.settleSeconds == 20)
        let flagged = try self.settings(["--attacks", "requests", "--rate", "5000", "--order-rate", "2", "--duration", "20", "--replay-clients", "5"])
        #expect(flagged.attacks == ["requests"] && flagged.load.rate == 5_000 && flagged.load.orderRate == 2 && flagged.load.duration == 20 && flagged.replayClients == 5)
    }

    @Test("each attack is found by its name and mints the keys it acts with; an unknown name is none")
    func attacksByName() throws {
        let settings = try settings(["--replay-clients", "3"])
        for name in AbuseAttacks.names {
            let attack = try #require(AbuseAttacks.make(name, settings: settings))
            #expect(attack.name == name)
        }
        #expect(AbuseAttacks.make("handshakes-later", settings: settings) == nil)
        let replays = try #require(AbuseAttacks.make("replays", settings: settings))
        #expect(replays.keys(runID: "ab1").map(\.name) == ["ab1-replayer-0", "ab1-replayer-1", "ab1-replayer-2"])
        #expect(replays.keys(runID: "ab1").allSatisfy { $0.role == .operator })
        #expect(try #require(AbuseAttacks.make("requests", settings: settings)).keys(runID: "ab1").map(\.role) == [.phone])
    }

    @Test("churned prefixes are distinct, of the asked length, and match no topic")
    func prefixes() {
        let all = (0..<200).map { SubscriptionChurn.prefix($0, runID: "ab1", bytes: 4_000) }
        #expect(Set(all).count == 200 && all.allSatisfy { $0.count == 4_000 })
        #expect(all.allSatisfy { $0.starts(with: Array("zz.abuse.".utf8)) })
    }

    @Test("memory is back when it is within 10% of its start; a process not read twice is not judged")
    func memoryVerdict() {
        let before = ["bus": 100, "order-service": 100, "edge": 50]
        let after = ["bus": 110, "order-service": 111]
        #expect(AbuseReport.grown(before: before, after: after, processes: ["bus", "order-service", "edge"]) == ["order-service"])
    }
}
