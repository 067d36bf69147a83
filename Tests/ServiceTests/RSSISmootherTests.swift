import BeaconIngestCore
import Messages
import Testing

@Suite("RSSI smoothing and proximity")
struct RSSISmootherTests {
    @Test("the trimmed mean drops the strongest and the weakest reading")
    func trimmedMean() {
        var smoother = RSSISmoother()
        var last: Double?
        for (i, rssi) in [-60, -61, -59, -90, -30].enumerated() {
            last = smoother.add(rssi: rssi, at: .at(Double(i)))
        }
        // -90 and -30 are dropped: the mean of -61, -60, -59.
        #expect(last == -60)
        #expect(smoother.current == -60)
    }

    @Test("a single spike among steady readings barely moves the answer")
    func spikeIsTrimmed() {
        var smoother = RSSISmoother()
        for i in 0..<8 { _ = smoother.add(rssi: -70, at: .at(Double(i) * 0.5)) }
        let after = smoother.add(rssi: -20, at: .at(4))
        #expect(after == -70)
    }

    @Test("samples older than the window expire")
    func samplesExpire() {
        var smoother = RSSISmoother(window: 10)
        _ = smoother.add(rssi: -50, at: t0)
        // Still inside the window at exactly 10 s: both count.
        let atTen = smoother.add(rssi: -70, at: .at(10))
        #expect(atTen == -60)
        // 10.5 s after the first: it has expired; the two newer ones are left.
        let later = smoother.add(rssi: -80, at: .at(10.5))
        #expect(later == -75)
        let muchLater = smoother.add(rssi: -80, at: .at(25))
        #expect(muchLater == -80)
        #expect(smoother.lastSample == .at(25))
    }

    @Test("at most maxSamples readings are averaged, the newest kept")
    func maxSamples() {
        var smoother = RSSISmoother(window: 10, maxSamples: 10)
        for i in 0..<10 { _ = smoother.add(rssi: -40, at: .at(Double(i) * 0.1)) }
        for i in 10..<20 { _ = smoother.add(rssi: -80, at: .at(Double(i) * 0.1)) }
        #expect(smoother.current == -80)
    }

    @Test("an unreadable RSSI (0) is ignored")
    func zeroIgnored() {
        var smoother = RSSISmoother()
        let onlyUnreadable = smoother.add(rssi: 0, at: t0)
        #expect(onlyUnreadable == nil)
        #expect(smoother.lastSample == nil)
        let readable = smoother.add(rssi: -60, at: .at(1))
        #expect(readable == -60)
        let unreadableAgain = smoother.add(rssi: 0, at: .at(2))
        #expect(unreadableAgain == -60)
        #expect(smoother.lastSample == .at(1))
    }

    @Test("distance from RSSI and measured power", arguments: [
        (-59.0, -59, 1.0),   // at the calibration distance
        (-79.0, -59, 10.0),  // 20 dB weaker: ten times as far (path-loss exponent 2)
        (-65.0, -59, 1.9953),
        (-53.0, -59, 0.5012),
        (-99.0, -59, 100.0),
        (-40.0, -40, 1.0),
    ])
    func distance(rssi: Double, measuredPower: Int, metres: Double) {
        let d = ProximityEstimator.distance(rssi: rssi, measuredPower: measuredPower)
        #expect(abs(d - metres) < 0.0005 * max(1, metres), "\(d)")
    }

    @Test("no usable signal gives no distance", arguments: [nil, 0.0, 3.0] as [Double?])
    func noDistance(rssi: Double?) {
        #expect(ProximityEstimator.distance(rssi: rssi, measuredPower: -59) == -1)
    }

    @Test("proximity classes: immediate under 0.5 m, near under 4 m, far beyond, unknown without signal", arguments: [
        (-1.0, Proximity.unknown),
        (0.0, .immediate),
        (0.49, .immediate),
        (0.5, .near),
        (1.0, .near),
        (3.99, .near),
        (4.0, .far),
        (40.0, .far),
    ])
    func classes(distance: Double, proximity: Proximity) {
        #expect(ProximityEstimator.proximity(distance: distance) == proximity)
    }

    @Test("only near and immediate decide a place", arguments: [
        (Proximity.immediate, true), (.near, true), (.far, false), (.unknown, false),
    ])
    func decidesPlace(proximity: Proximity, decides: Bool) {
        #expect(proximity.decidesPlace == decides)
    }

    @Test("the smoothed RSSI decides; the phone's estimate stands in only without a usable RSSI", arguments: [
        // A usable RSSI: the server's estimate, whatever the phone says.
        ("server, phone silent", -59.0, nil, nil, 1.0, Proximity.near),
        ("server, phone agrees", -59.0, .near, 1.1, 1.0, .near),
        ("server, phone disagrees", -59.0, .far, 7.5, 1.0, .near),
        ("server, phone unknown", -79.0, .unknown, -1, 10.0, .far),
        // No usable RSSI (every reading 0): the phone's values when it has an accuracy of 0 m or more.
        ("phone near", nil, .near, 2.5, 2.5, .near),
        ("phone immediate", nil, .immediate, 0.2, 0.2, .immediate),
        ("phone far at 0 m: its class as given", nil, .far, 0, 0, .far),
        ("phone accuracy only: classified here", nil, nil, 0.3, 0.3, .immediate),
        ("phone accuracy only, 4 m", nil, nil, 4, 4, .far),
        ("phone accuracy only, 3.99 m", nil, nil, 3.99, 3.99, .near),
        // Nothing usable from the phone either: unknown.
        ("phone unknown, -1", nil, .unknown, -1, -1, .unknown),
        ("phone -1 alone", nil, nil, -1, -1, .unknown),
        ("phone unknown with an accuracy", nil, .unknown, 3, -1, .unknown),
        ("phone class without accuracy", nil, .near, nil, -1, .unknown),
        ("phone silent", nil, nil, nil, -1, .unknown),
    ] as [(String, Double?, Proximity?, Double?, Double, Proximity)])
    func estimate(label: String, rssi: Double?, phoneProximity: Proximity?, phoneAccuracy: Double?, accuracy: Double, proximity: Proximity) {
        let estimate = ProximityEstimator.estimate(rssi: rssi, measuredPower: -59, reportedProximity: phoneProximity, reportedAccuracy: phoneAccuracy)
        #expect(estimate.accuracy == accuracy, "\(label)")
        #expect(estimate.proximity == proximity, "\(label)")
    }
}
