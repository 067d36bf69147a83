import Campus
import Foundation
@testable import LoadTestKit
import ServiceRuntime
import Testing

/// `load-test truth`'s radio and GPS noise: seeded, and as issue 25 describes it.
struct TruthNoiseTests {
    @Test("path loss from the measured power: exponent 2 to 10 m, 3.5 beyond", arguments: [
        (metres: 1.0, rssi: -59.0), (2, -65.02), (10, -79), (20, -89.54),
    ])
    func pathLoss(metres: Double, rssi: Double) {
        #expect(abs(RadioNoise().pathLoss(metres: metres, measuredPower: -59) - rssi) < 0.01)
    }

    /// `count` samples of one link 1 m from a beacon, without dips or misses: the shadowing alone.
    static func shadowing(seed: UInt64, count: Int, noise: RadioNoise) -> [Double] {
        var random = SeededRandom(seed: seed)
        var link = RadioLink(noise: noise, random: &random)
        return (0..<count).map { _ in
            _ = link.sample(noise: noise, metres: 1, measuredPower: -59, step: 1, random: &random)
            return link.shadow
        }
    }

    @Test("the shadowing has σ = 6 dB and is correlated over 2 s (AR(1): e^-1/2 one second apart)")
    func shadowing() {
        var noise = RadioNoise()
        noise.missRate = 0
        noise.dipsPerMinute = 0
        let samples = Self.shadowing(seed: 7, count: 200_000, noise: noise)
        let mean = samples.reduce(0, +) / Double(samples.count)
        let variance = samples.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(samples.count)
        #expect(abs(mean) < 0.2)
        #expect(abs(variance.squareRoot() - 6) < 0.15, "σ \(variance.squareRoot())")
        func lag(_ k: Int) -> Double {
            zip(samples, samples.dropFirst(k)).reduce(0) { $0 + ($1.0 - mean) * ($1.1 - mean) } / Double(samples.count - k) / variance
        }
        #expect(abs(lag(1) - exp(-0.5)) < 0.02, "lag 1: \(lag(1))")
        #expect(abs(lag(4) - exp(-2)) < 0.02, "lag 4: \(lag(4))")
    }

    @Test("a fifth of the advertisements are missed; the same seed misses the same ones")
    func misses() {
        var noise = RadioNoise()
        noise.dipsPerMinute = 0
        func heard(_ seed: UInt64) -> [Int?] {
            var random = SeededRandom(seed: seed)
            var link = RadioLink(noise: noise, random: &random)
            return (0..<50_000).map { _ in link.sample(noise: noise, metres: 1, measuredPower: -59, step: 1, random: &random) }
        }
        let a = heard(3)
        let missed = Double(a.filter { $0 == nil }.count) / Double(a.count)
        #expect(abs(missed - 0.2) < 0.01, "missed \(missed)")
        #expect(a == heard(3))
        #expect(a != heard(4))
    }

    @Test("body-blocking dips: 10 dB for 1–3 s at the rate asked")
    func dips() {
        var noise = RadioNoise()
        noise.missRate = 0
        noise.sigma = 0
        noise.dipsPerMinute = 6
        var random = SeededRandom(seed: 11)
        var link = RadioLink(noise: noise, random: &random)
        let rssi = (0..<60_000).map { _ in link.sample(noise: noise, metres: 1, measuredPower: -59, step: 1, random: &random)! }
        #expect(Set(rssi) == [-59, -69])
        var runs: [Int] = [], current = 0
        for value in rssi {
            if value == -69 { current += 1 } else if current > 0 { runs.append(current); current = 0 }
        }
        // Most dips are one dip of 1–3 s; a dip may start as the last one ends, so a few run on.
        #expect(Double(runs.filter { (1...3).contains($0) }.count) / Double(runs.count) > 0.8)
        // A dip starts on a second without one with the asked chance (0.1): a fifth of the seconds dip.
        let dipped = Double(rssi.filter { $0 == -69 }.count) / Double(rssi.count)
        #expect(dipped > 0.12 && dipped < 0.28, "\(dipped) of the seconds in a dip")
    }

    @Test("GPS fixes indoors: precise ones state 5–65 m, about 5% are approximate")
    func gps() {
        var random = SeededRandom(seed: 5)
        let fixes = (0..<20_000).map { _ in GPSNoise().fix(latitude: 37.3349, longitude: -122.009, east: 0, north: 0, random: &random) }
        let precise = fixes.filter(\.precise)
        #expect(precise.allSatisfy { (5...65).contains($0.accuracy) })
        // An approximate fix is coarse but holds the phone: it can never put it outside a circle it is in.
        #expect(fixes.filter { !$0.precise }.allSatisfy { fix in
            let north = (fix.latitude - 37.3349) * 111_320, east = (fix.longitude + 122.009) * 111_320 * cos(37.3349 * .pi / 180)
            return fix.accuracy >= 1_000 && (north * north + east * east).squareRoot() <= fix.accuracy / 2 + 0.01
        })
        let share = 1 - Double(precise.count) / Double(fixes.count)
        #expect(abs(share - 0.05) < 0.01)
        let (lat, lon) = GPSNoise.offset(37.3349, -122.009, east: 0, north: 40)
        #expect(abs(lat - 37.33526) < 0.00001 && lon == -122.009, "macs-coffee is 40 m north of Caffè Macs")
    }

    @Test("the scenarios place the counter phones 1.9 m from their beacon and 5.3 m (or 4.4 m) from the other café's")
    func scenarios() {
        var random = SeededRandom(seed: 1)
        let kinds = TruthScenario.mix(phones: 200)
        #expect(Set(kinds) == Set(TruthScenario.Kind.allCases))
        let counter = TruthScenario(kind: .counter, index: 0, duration: 120, exit: 30, random: &random)
        #expect(abs(counter.metres(to: 0, at: 10) - 1.9) < 1e-9 && abs(counter.metres(to: 1, at: 10) - 5.3) < 1e-9)
        #expect(counter.cafe(at: 10, within: 3) == "macs-coffee")
        let other = TruthScenario(kind: .counter4m, index: 1, duration: 120, exit: 30, random: &random)
        #expect(abs(other.metres(to: 1, at: 10) - 1.9) < 1e-9 && abs(other.metres(to: 0, at: 10) - (16 + 3.61).squareRoot()) < 1e-9)
        let walker = TruthScenario(kind: .walkBetween, index: 0, duration: 120, exit: 30, random: &random)
        #expect(TruthReport.arrivals(walker, until: 115).map(\.cafe) == ["macs-coffee", "caffe-macs"])
        let passer = TruthScenario(kind: .passBy, index: 0, duration: 120, exit: 30, random: &random)
        #expect(TruthReport.arrivals(passer, until: 120).isEmpty)
    }
}
