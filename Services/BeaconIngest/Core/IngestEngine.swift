import Messages
import Policy

/// What one batch from a phone amounts to: the reply, and what the shell must store and publish.
public struct IngestOutcome: Sendable, Equatable {
    public var result: IngestResult
    /// The device's status after this batch when it changed (store it and publish `device.status`).
    public var changedStatus: DeviceStatus?
    /// Every piece of location state for the device must be dropped.
    public var purge: Bool
    public var sightings: [Sighting]
    public var fixes: [LocationFix]
}

/// beacon-ingest's rules: validate every field, enforce authorization, smooth RSSI per
/// (device, beacon), estimate distance and proximity. Synchronous, deterministic, clock passed in.
public final class IngestEngine {
    public var validator = ReportValidator()
    /// Seconds a raw RSSI reading counts in its beacon's average, and how long a beacon's idle
    /// smoothing state is kept. Shorter when a recorded walk is replayed faster than real time.
    public let smoothingWindow: Double
    /// Seconds of readings the evidence for the nearest café is the mean of (at least the
    /// smoothing window); also how long a beacon's idle readings are kept.
    public let evidenceWindow: Double
    private var smoothers: [String: BeaconSmoothers] = [:]
    /// The last UUID checked and its canonical form: a gateway's reports range the campus's one
    /// or few UUIDs, and the JSON reader hands out the same string again for a repeated long
    /// text, so the check (about 400 instructions) mostly becomes one comparison of two strings.
    private var lastUUID: (text: String, canonical: String?) = ("", nil)

    public init(smoothingWindow: Double = 10, evidenceWindow: Double = 40) {
        precondition(smoothingWindow.isFinite && smoothingWindow > 0, "the smoothing window must be a positive number of seconds")
        precondition(evidenceWindow.isFinite && evidenceWindow > 0, "the evidence window must be a positive number of seconds")
        self.smoothingWindow = smoothingWindow
        self.evidenceWindow = max(smoothingWindow, evidenceWindow)
    }

    /// Devices with smoothing state in memory.
    public var trackedDevices: Int { smoothers.count }

    /// Beacons of one device with smoothing state in memory (0 once its location state is dropped).
    public func trackedBeacons(of deviceId: String) -> Int { smoothers[deviceId]?.count ?? 0 }

    /// Processes one batch. `known` is the device's stored status (nil for a new device).
    /// Throws only when the whole batch is unusable (bad device id, oversize batch).
    public func process(_ report: IngestReport, known: DeviceStatus?, now: Timestamp) throws(ServiceError) -> IngestOutcome {
        let deviceId = try validator.deviceID(of: report)
        try validator.validateBatch(report)
        var rejections: [Rejection] = []
        var accepted = 0
        var status = known
        var changed: DeviceStatus?
        var purge = false

        if let s = report.status {
            let next = DeviceStatus(deviceId: deviceId, authorization: s.authorization, foreground: s.foreground, precise: s.precise,
                                    monitoringAvailable: s.monitoringAvailable, rangingAvailable: s.rangingAvailable, changedAt: now)
            if !Self.sameState(known, next) {
                changed = next
                purge = AuthorizationPolicy.requiresPurge(authorization: s.authorization, foreground: s.foreground)
            }
            status = changed ?? known
            accepted += 1
        }
        if purge { forget(deviceId) }

        // One refusal for the whole batch when the device may not report locations now.
        let refusal: ServiceError? = if let status {
            AuthorizationPolicy.refusal(authorization: status.authorization, foreground: status.foreground)
        } else {
            ServiceError(.unknownDevice, "device \(deviceId) has not reported its authorization yet; send status first")
        }

        var sightings: [Sighting] = []
        if let ranged = report.sightings, !ranged.isEmpty {
            // A field's error is named before the device's refusal, as for a fix.
            let blocked = refusal ?? (status?.rangingAvailable == false ? ServiceError(.rangingUnavailable, "the device reported that ranging is not available") : nil)
            func smooth(_ beacons: inout BeaconSmoothers?) {
                for (index, ranging) in ranged.enumerated() {
                    do throws(ServiceError) {
                        if ranging.uuid != lastUUID.text { lastUUID = (ranging.uuid, TextRules.canonicalUUID(ranging.uuid)) }
                        let beacon = try validator.validate(ranging, canonicalUUID: lastUUID.canonical, now: now)
                        if let blocked { throw blocked }
                        sightings.append(self.smooth(deviceId: deviceId, beacon: beacon, ranging: ranging, in: &beacons))
                        accepted += 1
                    } catch {
                        rejections.append(Rejection(kind: "sighting", index: index, error: error))
                    }
                }
            }
            // The device's smoothers looked up once for its report, not once a sighting; a device
            // with no smoother yet gets its entry at its first accepted sighting, and one whose
            // sightings are all refused gets none.
            smooth(&smoothers[deviceId])
        }
        var fixes: [LocationFix] = []
        for (index, fix) in (report.fixes ?? []).enumerated() {
            do throws(ServiceError) {
                try validator.validate(fix, now: now)
                if let refusal { throw refusal }
                // An approximate-only grant can never yield a precise fix, whatever the phone claims.
                let precise = fix.precise && (status?.precise ?? false)
                fixes.append(LocationFix(deviceId: deviceId, latitude: fix.latitude, longitude: fix.longitude,
                                         horizontalAccuracy: fix.horizontalAccuracy, precise: precise, observedAt: fix.timestamp))
                accepted += 1
            } catch {
                rejections.append(Rejection(kind: "fix", index: index, error: error))
            }
        }
        return IngestOutcome(result: IngestResult(accepted: accepted, rejected: rejections.count, rejections: rejections),
                             changedStatus: changed, purge: purge, sightings: sightings, fixes: fixes)
    }

    /// The sighting's proximity and accuracy come from the smoothed RSSI; the phone's own values
    /// only when there is no usable RSSI (see `ProximityEstimator.estimate`).
    private func smooth(deviceId: String, beacon: BeaconIdentity, ranging: RangingReport, in beacons: inout BeaconSmoothers?) -> Sighting {
        // Added where it is held: a copy taken out and stored back shared its readings with the
        // dictionary's, so each sighting copied them (an allocation). The smoother is made only
        // for a beacon the device has none for yet, and the device's entry at its first.
        if beacons == nil { beacons = BeaconSmoothers() }
        let (rssi, held) = beacons!.update(beacon, make: { RSSISmoother(window: smoothingWindow, evidenceWindow: evidenceWindow) }) { Self.add(ranging, to: &$0) }
        let estimate = ProximityEstimator.estimate(rssi: rssi, measuredPower: ranging.measuredPower,
                                                   reportedProximity: ranging.proximity, reportedAccuracy: ranging.accuracy)
        // The evidence goes with a smoothed RSSI only: without one, the phone's own estimate
        // stands in and there is no reading to count.
        let evidence = rssi == nil ? nil : held
        return Sighting(deviceId: deviceId, beacon: beacon, rssi: Int((rssi ?? 0).rounded()), measuredPower: ranging.measuredPower,
                        accuracy: estimate.accuracy, proximity: estimate.proximity, observedAt: ranging.timestamp,
                        meanRssi: evidence?.mean, readings: evidence?.readings)
    }

    /// Adds the reading to `smoother`; the smoothed RSSI and the evidence it then holds.
    private static func add(_ ranging: RangingReport, to smoother: inout RSSISmoother) -> (Double?, (mean: Double, readings: Int)?) {
        let rssi = smoother.add(rssi: ranging.rssi, at: ranging.timestamp)
        return (rssi, smoother.evidence)
    }

    /// Drops the smoothing state of a device (authorization withdrawn).
    public func forget(_ deviceId: String) {
        smoothers[deviceId] = nil
    }

    /// Drops readings idle for longer than `evidenceWindow`, bounding memory.
    public func expire(now: Timestamp) {
        // Only devices holding a stale beacon are rewritten, after the walk: writing into the
        // dictionary while iterating it copied all of it, and rebuilding every device's entry
        // held beacon-ingest's reactor for up to 66 ms every 30 s with 30,000 phones.
        func isLive(_ smoother: RSSISmoother) -> Bool { (smoother.lastSample.map { now.seconds(since: $0) } ?? .infinity) <= smoother.evidenceWindow }
        var changed: [(String, BeaconSmoothers?)] = []
        for (device, beacons) in smoothers where beacons.containsIdle(isLive) {
            changed.append((device, beacons.keeping(isLive)))
        }
        for (device, live) in changed { smoothers[device] = live }
    }

    static func sameState(_ a: DeviceStatus?, _ b: DeviceStatus) -> Bool {
        guard let a else { return false }
        return a.authorization == b.authorization && a.foreground == b.foreground && a.precise == b.precise
            && a.monitoringAvailable == b.monitoringAvailable && a.rangingAvailable == b.rangingAvailable
    }
}
