@testable import LoadTestKit
import Glibc
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
        #expect(settings.attacks == ["handshakes", "replays", "requests", "subscriptions", "slow-subscriber"] && settings.replayClients == 50 && settings.replayStream == "order")
        #expect(settings.handshakes.curve == 16_000 && settings.handshakes.plain == 16_000 && settings.handshakes.hold == 2 && settings.handshakes.from == "127.0.0.2")
        #expect(settings.handshakes.endpoints.count == 8 && Set(settings.handshakes.servers) == ["bus", "beacon-ingest", "region-monitor", "order-service", "kitchen-display", "notification-service"])
        #expect(settings.slowSubscribers == 4 && settings.slowReaders == 1)
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

    @Test("the steady load's own growth (the baseline run) is allowed beyond the 10%: only what an attack adds is judged")
    func memoryBeyondBaseline() {
        let before = ["beacon-ingest": 29_000_000, "bus": 100]
        let after = ["beacon-ingest": 36_000_000, "bus": 120]
        let allowance = ["beacon-ingest": 6_500_000, "bus": -5]
        #expect(AbuseReport.grown(before: before, after: after, allowance: allowance, processes: ["beacon-ingest", "bus"]) == ["bus"],
                "beacon-ingest grew by its baseline and 0.5 MB; the bus's shrinking baseline allows it nothing")
        #expect(AbuseReport.grown(before: before, after: after, processes: ["beacon-ingest", "bus"]) == ["beacon-ingest", "bus"])
    }

    @Test("a plain attacker's greeting is ZMTP 3.0 for the NULL mechanism, 64 bytes; its endpoints are IPv4 addresses")
    func plainGreeting() throws {
        let greeting = HandshakeFlood.nullGreeting
        #expect(greeting.count == 64 && greeting[0] == 0xFF && greeting[9] == 0x7F && greeting[10] == 3)
        #expect(Array(greeting[12..<16]) == Array("NULL".utf8))
        let address = try #require(HandshakeFlood.address("tcp://127.0.0.1:7430"))
        #expect(address.sin_port == UInt16(7430).bigEndian)
        #expect(HandshakeFlood.address("tcp://cafe.example:7430") == nil && HandshakeFlood.address("ipc:///tmp/x") == nil)
    }
}
