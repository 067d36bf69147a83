@testable import LoadTestKit
import ServiceRuntime
import Testing

/// `load-test run`'s settings come from its options: each flag lands in its setting, and with no
/// flag each setting is the default `--help` states.
struct RunOptionsTests {
    func settings(_ arguments: [String], environment: [String: String] = [:]) throws -> RunSettings {
        RunSettings(try Configuration(program: "load-test run", specs: RunOptions.specs, arguments: arguments, environment: environment))
    }

    @Test("with no flag, every setting is its default")
    func defaults() throws {
        let settings = try settings([])
        #expect(settings.rate == 1000 && settings.duration == 10 && settings.warmup == 0 && settings.devices == 500 && settings.batch == 50)
        #expect(settings.orderRate == 1 && settings.timeout == 10 && settings.retrySeconds == 1 && settings.beaconExitSeconds == 30 && settings.dwell == 15)
        #expect(settings.ingest == ["tcp://127.0.0.1:7410"] && settings.region == ["tcp://127.0.0.1:7420"])
        #expect(settings.orders == "tcp://127.0.0.1:7430" && settings.kitchen == "tcp://127.0.0.1:7440" && settings.notify == "tcp://127.0.0.1:7450")
        #expect(settings.busSub == "tcp://127.0.0.1:7402" && settings.bus == "tcp://127.0.0.1:7403" && settings.seed == 1)
        #expect(settings.rawRate == 100 && settings.generatorNice == -10)
    }

    @Test("each flag, or its environment variable, lands in its own setting")
    func flags() throws {
        let settings = try settings([
            "--rate", "2500", "--duration", "3", "--warmup", "1.5", "--devices", "200", "--batch", "20", "--order-rate", "0",
            "--ingest", "tcp://127.0.0.1:1,tcp://127.0.0.1:2", "--region", "tcp://127.0.0.1:3", "--orders", "tcp://127.0.0.1:4",
            "--kitchen", "tcp://127.0.0.1:5", "--notify", "tcp://127.0.0.1:6", "--bus-sub", "tcp://127.0.0.1:7", "--bus", "tcp://127.0.0.1:8",
            "--timeout", "8", "--retry-seconds", "0", "--beacon-exit-seconds", "5", "--seed", "42", "--raw-rate", "0", "--generator-nice", "-5",
        ], environment: ["CAFE_DWELL": "4"])
        #expect(settings.rate == 2500 && settings.duration == 3 && settings.warmup == 1.5 && settings.devices == 200 && settings.batch == 20)
        #expect(settings.orderRate == 0 && settings.timeout == 8 && settings.retrySeconds == 0 && settings.beaconExitSeconds == 5 && settings.dwell == 4)
        #expect(settings.ingest == ["tcp://127.0.0.1:1", "tcp://127.0.0.1:2"] && settings.region == ["tcp://127.0.0.1:3"])
        #expect(settings.orders == "tcp://127.0.0.1:4" && settings.kitchen == "tcp://127.0.0.1:5" && settings.notify == "tcp://127.0.0.1:6")
        #expect(settings.busSub == "tcp://127.0.0.1:7" && settings.bus == "tcp://127.0.0.1:8" && settings.seed == 42)
        #expect(settings.rawRate == 0 && settings.generatorNice == -5)
    }

    @Test("a nice value outside -20…19 is refused", arguments: ["-21", "20", "x"])
    func niceOutOfRange(value: String) {
        #expect(throws: (any Error).self) { try settings(["--generator-nice", value]) }
    }
}
