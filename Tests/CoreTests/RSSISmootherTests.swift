import BeaconIngestCore
import Messages
import Testing

@Suite("RSSI smoothing and proximity")
struct RSSISmootherTests {
    /// (label, window in seconds, readings as (RSSI, seconds after t0), the smoothed RSSI after the last one)
    static let smoothing: [(String, Double, [(Int, Double)], Double?)] = [
        // Trimmed mean: the strongest and the weakest dropped once there are four readings.
        ("one reading", 10, [(-60, 0)], -60),
        ("two readings: the mean", 10, [(-60, 0), (-70, 1)], -65),
        ("three readings: none dropped", 10, [(-60, 0), (-70, 1), (-90, 2)], -220.0 / 3),
        ("four readings: extremes dropped", 10, [(-60, 0), (-61, 1), (-90, 2), (-30, 3)], -60.5),
        ("five readings: extremes dropped", 10, [(-60, 0), (-61, 1), (-59, 2), (-90, 3), (-30, 4)], -60),
        ("a spike among steady readings", 10, (0..<8).map { (-70, Double($0) * 0.5) } + [(-20, 4)], -70),
        ("at most ten readings, the newest", 10, (0..<10).map { (-40, Double($0) * 0.1) } + (10..<20).map { (-80, Double($0) * 0.1) }, -80),
        // Samples expire after the window: exactly at its edge a reading still counts.
        ("older reading at the window's edge", 10, [(-50, 0), (-70, 10)], -60),
        ("older reading just past the window", 10, [(-50, 0), (-70, 10.001)], -70),
        ("some expired, some not", 10, [(-50, 0), (-70, 10), (-80, 10.5)], -75),
        ("all expired but the newest", 10, [(-50, 0), (-60, 1), (-80, 25)], -80),
        ("a half-second window", 0.5, [(-50, 0), (-70, 0.5)], -60),
        ("a half-second window, just past", 0.5, [(-50, 0), (-70, 0.501)], -70),
        // Unreadable readings (0) are ignored: they neither count nor keep the average alive.
        ("only unreadable", 10, [(0, 0), (0, 1)], nil),
        ("unreadable among readable", 10, [(-60, 0), (0, 1), (0, 2), (-70, 3)], -65),
        ("unreadable after a readable one", 10, [(-60, 1), (0, 2)], -60),
        ("unreadable once the readable one expired", 10, [(-60, 0), (0, 10.001)], nil),
        ("unreadable ones do not make four", 10, [(-60, 0), (-90, 1), (0, 2), (0, 3), (-30, 4)], -60),
    ]

    @Test("smoothing: trimmed mean, samples expiring after the window, unreadable readings ignored", arguments: smoothing)
    func smoothed(label: String, window: Double, readings: [(Int, Double)], expected: Double?) {
        // The evidence window as short as the smoothing window: readings are held no longer.
        var smoother = RSSISmoother(window: window, evidenceWindow: window)
        var last: Double?
        for (rssi, seconds) in readings { last = smoother.add(rssi: rssi, at: .at(seconds)) }
        #expect(last == expected, "\(label)")
        #expect(smoother.current == expected, "\(label)")
        // The newest readable sample's time, which expiry of idle state goes by.
        #expect(smoother.lastSample == readings.last { $0.0 != 0 && expected != nil }.map { .at($0.1) }, "\(label)")
    }

    @Test("evidence: the plain mean of the readable readings of the evidence window (40 s), and how many, while the smoothing keeps to its 10 s")
    func evidence() {
        var smoother = RSSISmoother()
        #expect(smoother.evidence == nil)
        _ = smoother.add(rssi: -50, at: .at(0))
        _ = smoother.add(rssi: 0, at: .at(1))
        _ = smoother.add(rssi: -70, at: .at(30))
        // 30 s on, the first reading no longer smooths but is still evidence.
        #expect(smoother.current == -70)
        #expect(smoother.evidence?.mean == -60 && smoother.evidence?.readings == 2)
        _ = smoother.add(rssi: -61, at: .at(40.001))
        // Past 40 s the first is gone: (-70 - 61) / 2, to 0.1 dB.
        #expect(smoother.evidence?.mean == -65.5 && smoother.evidence?.readings == 2)
        // At most 40 readings: a phone reporting faster than once a second shortens the window.
        var fast = RSSISmoother()
        for i in 0..<100 { _ = fast.add(rssi: i < 60 ? -90 : -60, at: .at(Double(i) * 0.1)) }
        #expect(fast.evidence?.readings == 40 && fast.evidence?.mean == -60)
    }

    @Test("distance from RSSI and measured power (the RSSI at 1 m), path-loss exponent 2", arguments: [
        ("RSSI equal to measured power: 1 m", -59.0, -59, 1.0),
        ("the same at another calibration", -40.0, -40, 1.0),
        ("6 dB weaker: about 2 m", -65.0, -59, 1.9953),
        ("6 dB stronger: about 0.5 m", -53.0, -59, 0.5012),
        ("20 dB weaker: 10 m", -79.0, -59, 10.0),
        ("40 dB weaker: 100 m", -99.0, -59, 100.0),
        ("a fractional smoothed RSSI", -60.5, -59, 1.1885),
    ])
    func distance(label: String, rssi: Double, measuredPower: Int, metres: Double) {
        let d = ProximityEstimator.distance(rssi: rssi, measuredPower: measuredPower)
        #expect(abs(d - metres) < 0.0005 * max(1, metres), "\(label): \(d)")
    }

    @Test("no usable signal gives no distance", arguments: [nil, 0.0, 3.0] as [Double?])
    func noDistance(rssi: Double?) {
        #expect(ProximityEstimator.distance(rssi: rssi, measuredPower: -59) == -1)
    }

    @Test("proximity classes: immediate under 0.5 m, near under 4 m, far beyond, unknown without signal", arguments: [
        (-1.0, Proximity.unknown),
        (0.0, .immediate),
        (0.49, .immediate),
        (0.5.nextDown, .immediate),
        (0.5, .near),
        (0.5.nextUp, .near),
        (1.0, .near),
        (3.99, .near),
        (4.0.nextDown, .near),
        (4.0, .far),
        (4.0.nextUp, .far),
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
