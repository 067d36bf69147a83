import Foundation

/// Hand-written JSON for the envelope of a sighting, the one message that flows at campus scale.
/// The bytes are the same JSON the generic encoder writes (sorted keys); decoding accepts exactly
/// what the generic decoder accepts or returns nil so the caller can fall back to it.
enum SightingCodec {
    static func encode(_ e: Envelope, _ s: Sighting) -> Data? {
        guard s.accuracy.isFinite else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(420)
        func raw(_ text: StaticString) { out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)) }
        func int(_ value: Int) { out.append(contentsOf: String(value).utf8) }
        raw(#"{"body":{"accuracy":"#)
        out.append(contentsOf: number(s.accuracy).utf8)
        raw(#","beacon":{"major":"#)
        int(s.beacon.major)
        raw(#","minor":"#)
        int(s.beacon.minor)
        raw(#","uuid":"#)
        JSONText.appendQuoted(s.beacon.uuid, to: &out)
        raw(#"},"deviceId":"#)
        JSONText.appendQuoted(s.deviceId, to: &out)
        raw(#","measuredPower":"#)
        int(s.measuredPower)
        raw(#","observedAt":""#)
        s.observedAt.appendRFC3339(to: &out)
        raw(#"","proximity":""#)
        out.append(contentsOf: s.proximity.rawValue.utf8)
        raw(#"","rssi":"#)
        int(s.rssi)
        raw(#"},"id":"#)
        JSONText.appendQuoted(e.id, to: &out)
        raw(#","seq":"#)
        out.append(contentsOf: String(e.seq).utf8)
        raw(#","source":"#)
        JSONText.appendQuoted(e.source, to: &out)
        raw(#","stream":"#)
        JSONText.appendQuoted(e.stream, to: &out)
        raw(#","time":""#)
        e.time.appendRFC3339(to: &out)
        raw(#"","type":"sighting.reported","v":"#)
        int(e.v)
        out.append(UInt8(ascii: "}"))
        return Data(out)
    }

    /// Shortest round-trip text, as JSONEncoder writes it ("1.41", "-1", "0.5").
    static func number(_ value: Double) -> String {
        if value == value.rounded(.towardZero), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// The envelope of a sighting, or nil when the frame is anything else or not exactly as expected.
    static func decode(_ frame: Data) -> Envelope? {
        frame.withUnsafeBytes { raw -> Envelope? in
            var scanner = JSONScanner(raw)
            var v: Int64?, type: String?, id: String?, source: String?, stream: String?, seq: Int64?, time: Timestamp?
            var body: Sighting?
            let ok = scanner.object { sc, key in
                switch key {
                case "v": v = sc.integer(); return v != nil
                case "type": type = sc.string(); return type == "sighting.reported"
                case "id": id = sc.string(); return id != nil
                case "source": source = sc.string(); return source != nil
                case "stream": stream = sc.string(); return stream != nil
                case "seq": seq = sc.integer(); return (seq ?? -1) >= 0
                case "time": time = sc.string().flatMap(Timestamp.init(rfc3339:)); return time != nil
                case "body": body = sighting(&sc); return body != nil
                default: return sc.skipValue()
                }
            }
            guard ok, scanner.atEnd, v == Int64(Envelope.currentVersion), type != nil, let id, let source, let stream, let seq, let time, let body else { return nil }
            return Envelope(type: .sightingReported, id: id, source: source, stream: stream, seq: UInt64(seq), time: time, body: .sighting(body))
        }
    }

    private static func sighting(_ sc: inout JSONScanner) -> Sighting? {
        var deviceId: String?, beacon: BeaconIdentity?, rssi: Int64?, power: Int64?, accuracy: Double?, proximity: Proximity?, observed: Timestamp?
        let ok = sc.object { sc, key in
            switch key {
            case "deviceId": deviceId = sc.string(); return deviceId != nil
            case "beacon":
                var uuid: String?, major: Int64?, minor: Int64?
                let ok = sc.object { sc, key in
                    switch key {
                    case "uuid": uuid = sc.string(); return uuid != nil
                    case "major": major = sc.integer(); return major.map { Int(exactly: $0) != nil } ?? false
                    case "minor": minor = sc.integer(); return minor.map { Int(exactly: $0) != nil } ?? false
                    default: return sc.skipValue()
                    }
                }
                guard ok, let uuid, let major, let minor else { return false }
                beacon = BeaconIdentity(uuid: uuid, major: Int(major), minor: Int(minor))
                return true
            case "rssi": rssi = sc.integer(); return rssi != nil
            case "measuredPower": power = sc.integer(); return power != nil
            case "accuracy": accuracy = sc.number(); return accuracy != nil
            case "proximity": proximity = sc.string().flatMap(Proximity.init(rawValue:)); return proximity != nil
            case "observedAt": observed = sc.string().flatMap(Timestamp.init(rfc3339:)); return observed != nil
            default: return sc.skipValue()
            }
        }
        guard ok, let deviceId, let beacon, let rssi, let power, let accuracy, let proximity, let observed else { return nil }
        return Sighting(deviceId: deviceId, beacon: beacon, rssi: Int(rssi), measuredPower: Int(power), accuracy: accuracy, proximity: proximity, observedAt: observed)
    }
}
