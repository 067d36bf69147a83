import Foundation

/// Hand-written decoding of what arrives at campus rate: a request's head, and `ingest.batch`.
/// As with sightings, any surprise returns nil and the generic decoder decides (and words the error).
/// A member given twice is such a surprise: Foundation keeps the first, a naive reader the last.
enum RequestCodec {
    /// Fills an empty slot with a decoded value; false (give up) when the value did not decode or
    /// the slot was already filled by a repeated key.
    private static func fill<T>(_ slot: inout T?, _ value: T?) -> Bool {
        guard slot == nil, let value else { return false }
        slot = value
        return true
    }

    /// `op` and `id` of a request, skipping the body without building it.
    static func head(_ frame: Data) -> RequestHead? {
        frame.withUnsafeBytes { raw -> RequestHead? in
            var scanner = JSONScanner(raw)
            var op: String?, id: String?
            let ok = scanner.object { sc, key in
                switch key {
                case "op": return fill(&op, sc.string())
                case "id": return fill(&id, sc.string())
                default: return sc.skipValue()
                }
            }
            guard ok, scanner.atEnd, let op else { return nil }
            return RequestHead(op: op, id: id)
        }
    }

    /// A whole `ingest.batch` request.
    static func ingestBatch(_ frame: Data) -> Request<IngestBatch>? {
        frame.withUnsafeBytes { raw -> Request<IngestBatch>? in
            var scanner = JSONScanner(raw)
            var op: String?, id: String?, reports: [IngestReport]?
            var body = false
            let ok = scanner.object { sc, key in
                switch key {
                case "op": return fill(&op, sc.string())
                case "id": return fill(&id, sc.string())
                case "body":
                    guard !body else { return false }
                    body = true
                    return sc.object { sc, key in
                        guard key == "reports" else { return sc.skipValue() }
                        return fill(&reports, list(&sc, ingestReport))
                    }
                default: return sc.skipValue()
                }
            }
            guard ok, scanner.atEnd, let op, let reports else { return nil }
            return Request(op: op, id: id ?? "", body: IngestBatch(reports: reports))
        }
    }

    /// An array whose every element `element` decodes; nil when one does not.
    private static func list<T>(_ sc: inout JSONScanner, _ element: (inout JSONScanner) -> T?) -> [T]? {
        var items: [T] = []
        let ok = sc.array { sc in
            guard let item = element(&sc) else { return false }
            items.append(item)
            return true
        }
        return ok ? items : nil
    }

    private static func ingestReport(_ sc: inout JSONScanner) -> IngestReport? {
        var deviceId: String?, status: DeviceStatusReport?, sightings: [RangingReport]?, fixes: [FixReport]?
        let ok = sc.object { sc, key in
            switch key {
            case "deviceId": return fill(&deviceId, sc.string())
            case "status": return fill(&status, deviceStatus(&sc))
            case "sightings": return fill(&sightings, list(&sc, ranging))
            case "fixes": return fill(&fixes, list(&sc, fix))
            default: return sc.skipValue()
            }
        }
        guard ok, let deviceId else { return nil }
        return IngestReport(deviceId: deviceId, status: status, sightings: sightings, fixes: fixes)
    }

    private static func deviceStatus(_ sc: inout JSONScanner) -> DeviceStatusReport? {
        var authorization: Authorization?, foreground: Bool?, precise: Bool?, monitoring: Bool?, ranging: Bool?
        let ok = sc.object { sc, key in
            switch key {
            case "authorization": return fill(&authorization, sc.string().flatMap(Authorization.init(rawValue:)))
            case "foreground": return fill(&foreground, sc.bool())
            case "precise": return fill(&precise, sc.bool())
            case "monitoringAvailable": return fill(&monitoring, sc.bool())
            case "rangingAvailable": return fill(&ranging, sc.bool())
            default: return sc.skipValue()
            }
        }
        guard ok, let authorization, let foreground, let precise, let monitoring, let ranging else { return nil }
        return DeviceStatusReport(authorization: authorization, foreground: foreground, precise: precise, monitoringAvailable: monitoring, rangingAvailable: ranging)
    }

    private static func int(_ sc: inout JSONScanner) -> Int? {
        sc.integer().flatMap { Int(exactly: $0) }
    }

    private static func ranging(_ sc: inout JSONScanner) -> RangingReport? {
        var uuid: String?, major: Int?, minor: Int?, rssi: Int?, power: Int?, timestamp: Timestamp?
        var proximity: String?, accuracy: Double?
        let ok = sc.object { sc, key in
            switch key {
            case "uuid": return fill(&uuid, sc.string())
            case "major": return fill(&major, int(&sc))
            case "minor": return fill(&minor, int(&sc))
            case "rssi": return fill(&rssi, int(&sc))
            case "measuredPower": return fill(&power, int(&sc))
            case "timestamp": return fill(&timestamp, sc.string().flatMap(Timestamp.init(rfc3339:)))
            // Kept as text: a value this build does not know is refused per item, as the generic decoder does.
            case "proximity": return fill(&proximity, sc.string())
            case "accuracy": return fill(&accuracy, sc.number())
            default: return sc.skipValue()
            }
        }
        guard ok, let uuid, let major, let minor, let rssi, let power, let timestamp else { return nil }
        var report = RangingReport(uuid: uuid, major: major, minor: minor, rssi: rssi, measuredPower: power, timestamp: timestamp,
                                   proximity: proximity.flatMap(Proximity.init(rawValue:)), accuracy: accuracy)
        if report.proximity == nil { report.unrecognizedProximity = proximity }
        return report
    }

    private static func fix(_ sc: inout JSONScanner) -> FixReport? {
        var latitude: Double?, longitude: Double?, accuracy: Double?, precise: Bool?, timestamp: Timestamp?
        let ok = sc.object { sc, key in
            switch key {
            case "latitude": return fill(&latitude, sc.number())
            case "longitude": return fill(&longitude, sc.number())
            case "horizontalAccuracy": return fill(&accuracy, sc.number())
            case "precise": return fill(&precise, sc.bool())
            case "timestamp": return fill(&timestamp, sc.string().flatMap(Timestamp.init(rfc3339:)))
            default: return sc.skipValue()
            }
        }
        guard ok, let latitude, let longitude, let accuracy, let precise, let timestamp else { return nil }
        return FixReport(latitude: latitude, longitude: longitude, horizontalAccuracy: accuracy, precise: precise, timestamp: timestamp)
    }
}

extension RequestCodec {
    /// The reply to a batch in which nothing was refused (the normal case), written by hand;
    /// nil otherwise, and the generic encoder writes it. Same JSON as the generic encoder.
    static func encode(_ reply: Reply<IngestBatchResult>) -> Data? {
        guard reply.ok, reply.error == nil, let body = reply.body,
              body.results.allSatisfy({ $0.error == nil && $0.rejections.isEmpty })
        else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(64 + body.results.count * 72)
        func raw(_ text: StaticString) { out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)) }
        raw(#"{"body":{"accepted":"#)
        out.append(contentsOf: String(body.accepted).utf8)
        raw(#","rejected":"#)
        out.append(contentsOf: String(body.rejected).utf8)
        raw(#","results":["#)
        for (index, item) in body.results.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            raw(#"{"accepted":"#)
            out.append(contentsOf: String(item.accepted).utf8)
            raw(#","deviceId":"#)
            JSONText.appendQuoted(item.deviceId, to: &out)
            raw(#","rejected":"#)
            out.append(contentsOf: String(item.rejected).utf8)
            raw(#","rejections":[]}"#)
        }
        raw(#"]},"ok":true}"#)
        return Data(out)
    }
}
