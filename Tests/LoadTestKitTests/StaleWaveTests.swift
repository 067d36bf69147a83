@testable import LoadTestKit
import ServiceRuntime
import Testing

/// The bench's stale wave (issue 31, item 4): each quiet device's clearing set against the time
/// it was due, the wave's length, the devices never seen cleared, and the verdicts printed.
/// Times are given by the test (seconds), as the driver gives them from its clock.
struct StaleWaveTests {
    /// Four quiet devices last sighted at 100, 101, 102, 103 s: due at 110–113 s.
    static func account() -> StaleWaveAccount {
        StaleWaveAccount(freshness: 10, quiet: [(4, 100), (5, 101), (6, 102), (7, 103)])
    }

    @Test("a clearing counts once, against its own device's due time; other answers do not count")
    func latenessAndLength() {
        var account = Self.account()
        account.answer(device: 4, cleared: true, at: 110.2)
        account.answer(device: 4, cleared: true, at: 115)  // a second clearing of the same answer
        account.answer(device: 5, cleared: true, at: 111.5)
        account.answer(device: 6, cleared: true, at: 112.1)
        account.answer(device: 7, cleared: true, at: 114)
        account.answer(device: 1, cleared: true, at: 111)  // a device that kept being sighted
        let probes: [(due: Double, ms: Double)] = [(105, 1), (110.5, 2), (113.9, 3), (114.5, 4)]
        let wave = account.figures(stillNamed: 0, asked: 0, askedAt: 114, probes: probes)
        #expect(wave.quietDevices == 4 && wave.cleared == 4 && wave.stillNamed == 0 && wave.unaccounted == 0)
        #expect(wave.lateness.map { ($0 * 10).rounded() / 10 } == [100, 200, 500, 1000])
        #expect(wave.dueSeconds == 3)
        #expect(wave.lastClearedAfter == 4 && wave.tailSeconds == 1)
        // The fresh devices due from the first answer due to the last clearing.
        #expect(wave.latencies == [2, 3])
        #expect(wave.allCleared && wave.latenessP99 == 1000)
        #expect(BenchReport.clearedVerdict(wave).hasSuffix("met"))
    }

    @Test("answers still named after the wave are counted apart from the ones that had none; over 1% of them and the p99 is not reached")
    func stillNamed() {
        var account = Self.account()
        account.answer(device: 4, cleared: true, at: 110.5)
        account.answer(device: 6, cleared: false, at: 112)  // a quiet device named again: nobody sights it
        #expect(account.unseen == [5, 6, 7])
        let wave = account.figures(stillNamed: 2, asked: 3, askedAt: 120, probes: [])
        #expect(wave.cleared == 1 && wave.stillNamed == 2 && wave.unaccounted == 1 && wave.named == 1)
        #expect(wave.stillNamedAfter == 7)
        #expect(!wave.allCleared && wave.latenessP99 == nil)
        let verdict = BenchReport.clearedVerdict(wave)
        #expect(verdict.contains("MISSED by 66.7%"), "\(verdict)")
    }

    @Test("none seen cleared, as region-monitor's answers that stay on the timer's far deadline do: every line still has its verdict")
    func noneSeen() {
        let account = StaleWaveAccount(freshness: 10, quiet: [(0, 100), (1, nil), (2, 101)])
        #expect(account.quietDevices == 2 && !account.isQuiet(1))
        let wave = account.figures(stillNamed: 2, asked: 2, askedAt: 125, probes: [(110.5, 7)])
        #expect(wave.cleared == 0 && wave.lastClearedAfter == nil && wave.latencies == [7])
        let lines = BenchReport.staleWaveLines(Self.result(wave))
        #expect(lines.count == 3)
        #expect(lines[0].contains("0 seen cleared") && lines[0].contains("2 still named 14.0 s after the last was due"), "\(lines[0])")
        #expect(lines.allSatisfy { $0.contains(" met") || $0.contains("MISSED by") }, "\(lines)")
        #expect(lines[0].hasSuffix("MISSED by 100.0% (still named)"))
        #expect(lines[2].contains("at steady state p99 4.00 ms"), "\(lines[2])")
    }

    @Test("when only a sample of the devices not seen cleared was asked about, it speaks for them in proportion, and says so")
    func sampled() {
        let account = StaleWaveAccount(freshness: 10, quiet: (0..<100).map { ($0, 100 + Double($0) / 100) })
        let wave = account.figures(stillNamed: 10, asked: 10, askedAt: 120, probes: [])
        #expect(wave.unseen == 100 && wave.asked == 10 && wave.stillNamed == 100 && wave.unaccounted == 0 && !wave.allCleared)
        let lines = BenchReport.staleWaveLines(Self.result(wave))
        #expect(lines[0].contains("100 still named") && lines[0].contains("from 10 of them asked"), "\(lines[0])")
        // Some cleared, and none of a sample of the rest named: those had no answer to clear.
        var some = account
        some.answer(device: 0, cleared: true, at: 110.5)
        let rest = some.figures(stillNamed: 0, asked: 10, askedAt: 120, probes: [])
        #expect(rest.allCleared && rest.unaccounted == 99)
    }

    @Test("a wave within its targets prints met on each line")
    func allMet() {
        var account = Self.account()
        for (device, at) in [(4, 110.1), (5, 111.1), (6, 112.1), (7, 113.1)] { account.answer(device: device, cleared: true, at: at) }
        let lines = BenchReport.staleWaveLines(Self.result(account.figures(stillNamed: 0, asked: 0, askedAt: 114, probes: [(111, 2)])))
        #expect(lines.allSatisfy { $0.hasSuffix(" met") }, "\(lines)")
        #expect(lines[0].contains("4 seen cleared, the last 3.10 s after the first was due (0.10 s after the last)"), "\(lines[0])")
    }

    @Test("a bench device's number is read from its id; any other id is none", arguments: [
        ("bench-0", 0), ("bench-99999", 99_999), ("fresh-12-3", nil), ("bench-", nil), ("bench-x1", nil), ("bench-12345678901234", nil), ("bench--1", nil),
    ] as [(String, Int?)])
    func benchDevice(id: String, number: Int?) {
        #expect(Driver.benchDevice(id) == number)
    }

    static func result(_ wave: PlatformBenchmark.StaleWave) -> PlatformBenchmark.Result {
        PlatformBenchmark.Result(mode: .plain, steps: [], sustained: 0, latencyRate: 50_000, latencies: [1, 2, 3, 4], warmSeconds: 12, wave: wave, devices: 8,
                                 regionBytesPerDevice: nil, trackedDevices: 0, firstSeenMicrosPerDevice: nil, cpuMicrosPerSighting: nil,
                                 marginalCPUMicrosPerSighting: nil, restartSeconds: nil, restartTracked: 0)
    }
}
