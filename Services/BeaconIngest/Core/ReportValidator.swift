import Foundation
import Messages

/// Field rules for everything a phone sends. Nothing that fails them reaches the bus.
public struct ReportValidator: Sendable {
    public var maxSightingsPerBatch = 500
    public var maxFixesPerBatch = 100
    /// An `ingest.batch` from a gateway: at most this many reports…
    public var maxReportsPerGatewayBatch = 1_000
    /// …and this many sightings over all its reports.
    public var maxSightingsPerGatewayBatch = 10_000
    /// The phone's own beacon distance estimate above this is nonsense: no beacon is heard from 10 km.
    public var maxBeaconAccuracy = 10_000.0
    /// Reports stamped further in the future than this are refused (phone clock skew allowance).
    public var maxFutureSeconds = 60.0
    /// Reports older than this are stale and refused.
    public var maxAgeSeconds = 600.0

    public init() {}

    /// Device ids: 1–64 of A–Z, a–z, 0–9, "-" and "_".
    public func validateDeviceID(_ id: String) throws(ServiceError) {
        try TextRules.requireToken(id, field: "deviceId")
    }

    /// A report's device id, which must be there by now (a phone's was filled from its key, a
    /// gateway's batch was refused without one) and well formed.
    public func deviceID(of report: IngestReport) throws(ServiceError) -> String {
        guard let id = report.deviceId else { throw ServiceError(.invalidField, "missing field body.deviceId") }
        try validateDeviceID(id)
        return id
    }

    /// Batch sizes within the limits.
    public func validateBatch(_ report: IngestReport) throws(ServiceError) {
        if let n = report.sightings?.count, n > maxSightingsPerBatch {
            throw ServiceError(.tooLarge, "a batch carries at most \(maxSightingsPerBatch) sightings, got \(n)")
        }
        if let n = report.fixes?.count, n > maxFixesPerBatch {
            throw ServiceError(.tooLarge, "a batch carries at most \(maxFixesPerBatch) fixes, got \(n)")
        }
    }

    /// A gateway's `ingest.batch` within its limits; each report is then judged on its own.
    public func validateBatch(_ batch: IngestBatch) throws(ServiceError) {
        guard batch.reports.count <= maxReportsPerGatewayBatch else {
            throw ServiceError(.tooLarge, "a batch carries at most \(maxReportsPerGatewayBatch) reports, got \(batch.reports.count)")
        }
        // A gateway has no device of its own to stand in: every report names one.
        if let index = batch.reports.firstIndex(where: { $0.deviceId == nil }) {
            throw ServiceError(.invalidField, "missing field body.reports[\(index)].deviceId")
        }
        let sightings = batch.reports.reduce(0) { $0 + ($1.sightings?.count ?? 0) }
        guard sightings <= maxSightingsPerGatewayBatch else {
            throw ServiceError(.tooLarge, "a batch carries at most \(maxSightingsPerGatewayBatch) sightings, got \(sightings)")
        }
    }

    /// A ranging report's fields; returns the beacon identity with the UUID in canonical form.
    public func validate(_ r: RangingReport, now: Timestamp) throws(ServiceError) -> BeaconIdentity {
        try validate(r, canonicalUUID: TextRules.canonicalUUID(r.uuid), now: now)
    }

    /// The same, with the report's UUID already put in canonical form (nil: it is not a UUID).
    func validate(_ r: RangingReport, canonicalUUID: String?, now: Timestamp) throws(ServiceError) -> BeaconIdentity {
        guard let uuid = canonicalUUID else {
            throw ServiceError(.invalidField, "uuid \"\(r.uuid.prefix(40))\" is not a UUID (8-4-4-4-12 hex digits)")
        }
        guard (0...65535).contains(r.major) else { throw ServiceError(.invalidField, "major \(r.major) is outside 0…65535") }
        guard (0...65535).contains(r.minor) else { throw ServiceError(.invalidField, "minor \(r.minor) is outside 0…65535") }
        // CLBeacon reports 0 when the RSSI could not be read; real readings are negative dBm.
        guard (-127...0).contains(r.rssi) else { throw ServiceError(.invalidField, "rssi \(r.rssi) dBm is outside -127…0") }
        guard (-127 ... -1).contains(r.measuredPower) else { throw ServiceError(.invalidField, "measuredPower \(r.measuredPower) dBm is outside -127…-1") }
        if let text = r.unrecognizedProximity {
            throw ServiceError(.invalidField, "proximity \"\(text.prefix(40))\" is not one of immediate, near, far, unknown")
        }
        if let accuracy = r.accuracy {
            // CLBeacon says -1 when it cannot estimate the distance, and then its proximity is unknown.
            if accuracy == -1 {
                if let proximity = r.proximity, proximity != .unknown {
                    throw ServiceError(.invalidField, "accuracy -1 (unknown) goes only with proximity unknown, not \(proximity.rawValue)")
                }
            } else if !(accuracy.isFinite && accuracy >= 0 && accuracy <= maxBeaconAccuracy) {
                throw ServiceError(.invalidField, "accuracy \(accuracy) m must be -1 (unknown) or 0…\(Int(maxBeaconAccuracy))")
            }
        }
        try validateTime(r.timestamp, now: now)
        return BeaconIdentity(uuid: uuid, major: r.major, minor: r.minor)
    }

    /// A location fix's fields.
    public func validate(_ f: FixReport, now: Timestamp) throws(ServiceError) {
        guard f.latitude.isFinite, (-90...90).contains(f.latitude) else { throw ServiceError(.invalidField, "latitude \(f.latitude) is outside -90…90") }
        guard f.longitude.isFinite, (-180...180).contains(f.longitude) else { throw ServiceError(.invalidField, "longitude \(f.longitude) is outside -180…180") }
        // A negative horizontal accuracy means the fix is invalid (CLLocation).
        guard f.horizontalAccuracy.isFinite, f.horizontalAccuracy >= 0, f.horizontalAccuracy <= 100_000 else {
            throw ServiceError(.invalidField, "horizontalAccuracy \(f.horizontalAccuracy) m must be 0…100000")
        }
        try validateTime(f.timestamp, now: now)
    }

    /// At most `maxFutureSeconds` ahead of `now` and `maxAgeSeconds` behind it, both inclusive.
    func validateTime(_ t: Timestamp, now: Timestamp) throws(ServiceError) {
        let skew = t.seconds(since: now)
        guard skew <= maxFutureSeconds else {
            throw ServiceError(.invalidField, "timestamp \(t) is \(Self.seconds(skew)) s in the future; the limit is \(Self.seconds(maxFutureSeconds)) s")
        }
        guard -skew <= maxAgeSeconds else {
            throw ServiceError(.invalidField, "timestamp \(t) is \(Self.seconds(-skew)) s old; the limit is \(Self.seconds(maxAgeSeconds)) s")
        }
    }

    /// Whole seconds as "61", others to the millisecond ("60.001"), so a refusal just past a
    /// limit never reads as the limit itself.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.3f", value)
    }
}
