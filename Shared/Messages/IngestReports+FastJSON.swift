/// Hand-written readers for what phones (`ingest.report`) and edge gateways (`ingest.batch`) send
/// to beacon-ingest at campus rate. A `null` for an optional member gives up: Foundation reads it
/// as absent.
extension IngestBatch: FastJSONDecodable {
    static func read(from scanner: inout JSONScanner) -> IngestBatch? {
        var reports: [IngestReport]?
        let ok = scanner.object { sc, key in
            "reports" ~= key ? fill(&reports, sc.list(of: IngestReport.self)) : nil
        }
        guard ok, let reports else { return nil }
        return IngestBatch(reports: reports)
    }
}

extension IngestReport: FastJSONDecodable {
    static func read(from scanner: inout JSONScanner) -> IngestReport? {
        if let report = readAsWritten(from: &scanner) { return report }
        var deviceId: String?, status: DeviceStatusReport?, sightings: [RangingReport]?, fixes: [FixReport]?
        let ok = scanner.object { sc, key in
            switch key {
            case "deviceId": fill(&deviceId, sc.string())
            case "status": fill(&status, DeviceStatusReport.read(from: &sc))
            case "sightings": fill(&sightings, sc.list(of: RangingReport.self))
            case "fixes": fill(&fixes, sc.list(of: FixReport.self))
            default: nil
            }
        }
        guard ok else { return nil }
        return IngestReport(deviceId: deviceId, status: status, sightings: sightings, fixes: fixes)
    }
}

extension DeviceStatusReport: FastJSONDecodable {
    static func read(from scanner: inout JSONScanner) -> DeviceStatusReport? {
        var authorization: Authorization?, foreground: Bool?, precise: Bool?, monitoring: Bool?, ranging: Bool?
        let ok = scanner.object { sc, key in
            switch key {
            case "authorization": fill(&authorization, sc.string().flatMap(Authorization.init(rawValue:)))
            case "foreground": fill(&foreground, sc.bool())
            case "precise": fill(&precise, sc.bool())
            case "monitoringAvailable": fill(&monitoring, sc.bool())
            case "rangingAvailable": fill(&ranging, sc.bool())
            default: nil
            }
        }
        guard ok, let authorization, let foreground, let precise, let monitoring, let ranging else { return nil }
        return DeviceStatusReport(authorization: authorization, foreground: foreground, precise: precise, monitoringAvailable: monitoring, rangingAvailable: ranging)
    }
}

extension RangingReport: FastJSONDecodable {
    static func read(from scanner: inout JSONScanner) -> RangingReport? {
        if let report = readAsWritten(from: &scanner) { return report }
        var uuid: String?, major: Int?, minor: Int?, rssi: Int?, power: Int?, timestamp: Timestamp?
        var proximity: String?, accuracy: Double?
        let ok = scanner.object { sc, key in
            switch key {
            case "uuid": fill(&uuid, sc.string())
            case "major": fill(&major, sc.int())
            case "minor": fill(&minor, sc.int())
            case "rssi": fill(&rssi, sc.int())
            case "measuredPower": fill(&power, sc.int())
            case "timestamp": fill(&timestamp, sc.timestamp())
            // Kept as text: a value this build does not know is refused per item, as the generic decoder does.
            case "proximity": fill(&proximity, sc.string())
            case "accuracy": fill(&accuracy, sc.number())
            default: nil
            }
        }
        guard ok, let uuid, let major, let minor, let rssi, let power, let timestamp else { return nil }
        var report = RangingReport(uuid: uuid, major: major, minor: minor, rssi: rssi, measuredPower: power, timestamp: timestamp,
                                   proximity: proximity.flatMap(Proximity.init(rawValue:)), accuracy: accuracy)
        if report.proximity == nil { report.unrecognizedProximity = proximity }
        return report
    }
}

extension IngestReport {
    /// A report laid out as JSONEncoder writes it with sorted keys and no space (`deviceId`, then
    /// `fixes`, `sightings` and `status` as present), its ranging reports read the same way when
    /// they are. Anything else, and the scanner is put back for the general reader.
    static func readAsWritten(from scanner: inout JSONScanner) -> IngestReport? {
        scanner.inLayout(levels: 1) { $0.readReportAsWritten() }
    }
}

extension RangingReport {
    /// A report laid out as JSONEncoder writes it with sorted keys and no space (`accuracy`,
    /// `major`, `measuredPower`, `minor`, `proximity`, `rssi`, `timestamp`, `uuid`; the two
    /// optional ones may be absent), as a gateway built on it sends them: its names are checked as
    /// runs of bytes in that one order. Anything else, and the scanner is put back for the general
    /// reader, which decides as before.
    static func readAsWritten(from scanner: inout JSONScanner) -> RangingReport? {
        scanner.inLayout(levels: 1) { $0.readRangingAsWritten() }
    }
}

extension JSONScanner {
    /// A report laid out as JSONEncoder writes it with sorted keys and no space: `deviceId`, then
    /// `fixes`, `sightings` and `status` as present. Nil at the first byte that differs; the caller
    /// puts the position back and reads it the general way.
    fileprivate mutating func readReportAsWritten() -> IngestReport? {
        guard literal(#"{"deviceId":"#), let deviceId = string() else { return nil }
        // The members inside are one level deeper, as `object` would count them.
        depth += 1
        defer { depth -= 1 }
        var fixes: [FixReport]?, sightings: [RangingReport]?, status: DeviceStatusReport?
        if literal(#","fixes":"#) {
            guard let value = list(of: FixReport.self) else { return nil }
            fixes = value
        }
        if literal(#","sightings":"#) {
            guard let value = list(of: RangingReport.self) else { return nil }
            sightings = value
        }
        if literal(#","status":"#) {
            guard let value = DeviceStatusReport.read(from: &self) else { return nil }
            status = value
        }
        guard literal("}") else { return nil }
        return IngestReport(deviceId: deviceId, status: status, sightings: sightings, fixes: fixes)
    }

    fileprivate mutating func readRangingAsWritten() -> RangingReport? {
        guard literal("{") else { return nil }
        var accuracy: Double?
        if literal(#""accuracy":"#) {
            guard let value = number(), literal(",") else { return nil }
            accuracy = value
        }
        guard literal(#""major":"#), let major = int(), literal(#","measuredPower":"#), let power = int(),
              literal(#","minor":"#), let minor = int()
        else { return nil }
        var proximity: String?
        if literal(#","proximity":"#) {
            guard let value = string() else { return nil }
            proximity = value
        }
        guard literal(#","rssi":"#), let rssi = int(), literal(#","timestamp":"#), let timestamp = timestamp(),
              literal(#","uuid":"#), let uuid = string(), literal("}")
        else { return nil }
        var report = RangingReport(uuid: uuid, major: major, minor: minor, rssi: rssi, measuredPower: power, timestamp: timestamp,
                                   proximity: proximity.flatMap(Proximity.init(rawValue:)), accuracy: accuracy)
        if report.proximity == nil { report.unrecognizedProximity = proximity }
        return report
    }
}

extension FixReport: FastJSONDecodable {
    static func read(from scanner: inout JSONScanner) -> FixReport? {
        var latitude: Double?, longitude: Double?, accuracy: Double?, precise: Bool?, timestamp: Timestamp?
        let ok = scanner.object { sc, key in
            switch key {
            case "latitude": fill(&latitude, sc.number())
            case "longitude": fill(&longitude, sc.number())
            case "horizontalAccuracy": fill(&accuracy, sc.number())
            case "precise": fill(&precise, sc.bool())
            case "timestamp": fill(&timestamp, sc.timestamp())
            default: nil
            }
        }
        guard ok, let latitude, let longitude, let accuracy, let precise, let timestamp else { return nil }
        return FixReport(latitude: latitude, longitude: longitude, horizontalAccuracy: accuracy, precise: precise, timestamp: timestamp)
    }
}
