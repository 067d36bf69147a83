import Foundation

/// Hand-written JSON for the envelope of a sighting, the one bus message that flows at campus
/// scale, both ways. Any other event type is left to Foundation.
extension Envelope: FastJSONDecodable, FastJSONEncodable {
    /// A sighting envelope is far smaller. The cap matters because sorted keys put `body` first: a
    /// large body of another type would be scanned before `type` rules it out.
    static var fastReadLimit: Int { 2048 }

    static func read(from scanner: inout JSONScanner) -> Envelope? {
        var v: Int64?, type: String?, id: String?, source: String?, stream: String?, seq: Int64?, time: Timestamp?
        var body: Sighting?
        let ok = scanner.object { sc, key in
            switch key {
            case "v": fill(&v, sc.integer())
            case "type": fill(&type, sc.string()) && type == EventType.sightingReported.rawValue
            case "id": fill(&id, sc.string())
            case "source": fill(&source, sc.string())
            case "stream": fill(&stream, sc.string())
            // Within `seqRange` (0…Int64.max); beyond, Foundation's route refuses it, naming the field.
            case "seq": fill(&seq, sc.integer().flatMap { $0 >= 0 ? $0 : nil })
            case "time": fill(&time, sc.string().flatMap(Timestamp.init(rfc3339:)))
            case "body": fill(&body, Sighting.read(from: &sc))
            default: nil
            }
        }
        guard ok, v == Int64(Envelope.currentVersion), type != nil, let id, let source, let stream, let seq, let time, let body else { return nil }
        return Envelope(type: .sightingReported, id: id, source: source, stream: stream, seq: UInt64(seq), time: time, body: .sighting(body))
    }

    /// The sighting envelope's JSON, byte for byte what JSONEncoder writes with sorted keys.
    func fastEncoded() -> Data? {
        guard case .sighting(let s) = body, s.accuracy.isFinite else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(420)
        func raw(_ text: StaticString) { out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)) }
        func int(_ value: Int) { JSONText.appendInteger(Int64(value), to: &out) }
        raw(#"{"body":{"accuracy":"#)
        out.append(contentsOf: Self.number(s.accuracy).utf8)
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
        JSONText.appendQuoted(id, to: &out)
        raw(#","seq":"#)
        JSONText.appendInteger(seq, to: &out)
        raw(#","source":"#)
        JSONText.appendQuoted(source, to: &out)
        raw(#","stream":"#)
        JSONText.appendQuoted(stream, to: &out)
        raw(#","time":""#)
        time.appendRFC3339(to: &out)
        raw(#"","type":"sighting.reported","v":"#)
        int(v)
        out.append(UInt8(ascii: "}"))
        return Data(out)
    }

    /// Shortest round-trip text, as JSONEncoder writes it ("1.41", "-1", "0.5").
    static func number(_ value: Double) -> String {
        if value == value.rounded(.towardZero), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}

extension Sighting: FastJSONDecodable {
    static func read(from scanner: inout JSONScanner) -> Sighting? {
        var deviceId: String?, beacon: BeaconIdentity?, rssi: Int?, power: Int?, accuracy: Double?, proximity: Proximity?, observed: Timestamp?
        let ok = scanner.object { sc, key in
            switch key {
            case "deviceId": fill(&deviceId, sc.string())
            case "beacon": fill(&beacon, BeaconIdentity.read(from: &sc))
            case "rssi": fill(&rssi, sc.int())
            case "measuredPower": fill(&power, sc.int())
            case "accuracy": fill(&accuracy, sc.number())
            case "proximity": fill(&proximity, sc.string().flatMap(Proximity.init(rawValue:)))
            case "observedAt": fill(&observed, sc.string().flatMap(Timestamp.init(rfc3339:)))
            default: nil
            }
        }
        // Out of range: Foundation's route refuses it, naming the field.
        guard ok, let deviceId, let beacon, let rssi, let power, let accuracy, let proximity, let observed,
              rssiRange.contains(rssi), measuredPowerRange.contains(power)
        else { return nil }
        return Sighting(deviceId: deviceId, beacon: beacon, rssi: rssi, measuredPower: power, accuracy: accuracy, proximity: proximity, observedAt: observed)
    }
}

extension BeaconIdentity: FastJSONDecodable {
    static func read(from scanner: inout JSONScanner) -> BeaconIdentity? {
        var uuid: String?, major: Int?, minor: Int?
        let ok = scanner.object { sc, key in
            switch key {
            case "uuid": fill(&uuid, sc.string())
            case "major": fill(&major, sc.int())
            case "minor": fill(&minor, sc.int())
            default: nil
            }
        }
        guard ok, let uuid, let major, let minor, numberRange.contains(major), numberRange.contains(minor) else { return nil }
        return BeaconIdentity(uuid: uuid, major: major, minor: minor)
    }
}
