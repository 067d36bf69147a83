import Foundation

/// Hand-written decoding of what arrives at campus rate: a request's head, and `ingest.batch`.
/// As with sightings, any surprise returns nil and the generic decoder decides (and words the error).
enum RequestCodec {
    /// `op` and `id` of a request, skipping the body without building it.
    static func head(_ frame: Data) -> RequestHead? {
        frame.withUnsafeBytes { raw -> RequestHead? in
            var scanner = JSONScanner(raw)
            var op: String?, id: String?
            let ok = scanner.object { sc, key in
                switch key {
                case "op": op = sc.string(); return op != nil
                case "id": id = sc.string(); return id != nil
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
            let ok = scanner.object { sc, key in
                switch key {
                case "op": op = sc.string(); return op != nil
                case "id": id = sc.string(); return id != nil
                case "body":
                    return sc.object { sc, key in
                        guard key == "reports" else { return sc.skipValue() }
                        var list: [IngestReport] = []
                        let ok = sc.array { sc in
                            guard let report = ingestReport(&sc) else { return false }
                            list.append(report)
                            return true
                        }
                        reports = list
                        return ok
                    }
                default: return sc.skipValue()
                }
            }
            guard ok, scanner.atEnd, let op, let reports else { return nil }
            return Request(op: op, id: id ?? "", body: IngestBatch(reports: reports))
        }
    }

    private static func ingestReport(_ sc: inout JSONScanner) -> IngestReport? {
        var deviceId: String?, status: DeviceStatusReport?, sightings: [RangingReport]?, fixes: [FixReport]?
        let ok = sc.object { sc, key in
            switch key {
            case "deviceId": deviceId = sc.string(); return deviceId != nil
            case "status": status = deviceStatus(&sc); return status != nil
            case "sightings":
                var list: [RangingReport] = []
                let ok = sc.array { sc in
                    guard let r = ranging(&sc) else { return false }
                    list.append(r)
                    return true
                }
                sightings = list
                return ok
            case "fixes":
                var list: [FixReport] = []
                let ok = sc.array { sc in
                    guard let f = fix(&sc) else { return false }
                    list.append(f)
                    return true
                }
                fixes = list
                return ok
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
            case "authorization": authorization = sc.string().flatMap(Authorization.init(rawValue:)); return authorization != nil
            case "foreground": foreground = sc.bool(); return foreground != nil
            case "precise": precise = sc.bool(); return precise != nil
            case "monitoringAvailable": monitoring = sc.bool(); return monitoring != nil
            case "rangingAvailable": ranging = sc.bool(); return ranging != nil
            default: return sc.skipValue()
            }
        }
        guard ok, let authorization, let foreground, let precise, let monitoring, let ranging else { return nil }
        return DeviceStatusReport(authorization: authorization, foreground: foreground, precise: precise, monitoringAvailable: monitoring, rangingAvailable: ranging)
    }

    private static func ranging(_ sc: inout JSONScanner) -> RangingReport? {
        var uuid: String?, major: Int?, minor: Int?, rssi: Int?, power: Int?, timestamp: Timestamp?
        let ok = sc.object { sc, key in
            switch key {
            case "uuid": uuid = sc.string(); return uuid != nil
            case "major": major = sc.integer().flatMap { Int(exactly: $0) }; return major != nil
            case "minor": minor = sc.integer().flatMap { Int(exactly: $0) }; return minor != nil
            case "rssi": rssi = sc.integer().flatMap { Int(exactly: $0) }; return rssi != nil
            case "measuredPower": power = sc.integer().flatMap { Int(exactly: $0) }; return power != nil
            case "timestamp": timestamp = sc.string().flatMap(Timestamp.init(rfc3339:)); return timestamp != nil
            default: return sc.skipValue()
            }
        }
        guard ok, let uuid, let major, let minor, let rssi, let power, let timestamp else { return nil }
        return RangingReport(uuid: uuid, major: major, minor: minor, rssi: rssi, measuredPower: power, timestamp: timestamp)
    }

    private static func fix(_ sc: inout JSONScanner) -> FixReport? {
        var latitude: Double?, longitude: Double?, accuracy: Double?, precise: Bool?, timestamp: Timestamp?
        let ok = sc.object { sc, key in
            switch key {
            case "latitude": latitude = sc.number(); return latitude != nil
            case "longitude": longitude = sc.number(); return longitude != nil
            case "horizontalAccuracy": accuracy = sc.number(); return accuracy != nil
            case "precise": precise = sc.bool(); return precise != nil
            case "timestamp": timestamp = sc.string().flatMap(Timestamp.init(rfc3339:)); return timestamp != nil
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
