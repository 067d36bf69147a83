import Foundation

/// Hand-written JSON for the envelopes that flow at campus scale: sightings both ways, region
/// events and nearest answers both ways, device statuses read (`Envelope+FastBodies`), and the
/// order flow's events both ways (`Envelope+OrderBodies`). Any other event type (heartbeats, dead
/// letters, menu availability, fixes, purges) is left to Foundation.
extension Envelope: FastJSONDecodable, FastJSONEncodable {
    /// A sighting envelope is small and a batch of `SightingBatch.maxCount` long device ids stays
    /// under 96 KiB. A frame beyond any sighting envelope's size goes straight to Foundation: the
    /// other bodies read here (region events, nearest answers, device statuses) are far smaller.
    static var fastReadLimit: Int { 128 * 1024 }

    static func read(from scanner: inout JSONScanner) -> Envelope? {
        var v: Int64?, type: String?, id: String?, source: String?, stream: String?, seq: Int64?, time: Timestamp?
        var body: EventBody?
        // Sorted keys put `body` first, before `type`: a sighting's is read at once (the hot path);
        // any other is skipped, then read by its type once that is known.
        var bodyRange: Range<Int>?
        let ok = scanner.object { sc, key in
            switch key {
            case "v": fill(&v, sc.integer())
            case "type": fill(&type, sc.string())
            case "id": fill(&id, sc.string())
            case "source": fill(&source, sc.string())
            case "stream": fill(&stream, sc.string())
            // Within `seqRange` (0…Int64.max); beyond, Foundation's route refuses it, naming the field.
            case "seq": fill(&seq, sc.integer().flatMap { $0 >= 0 ? $0 : nil })
            case "time": fill(&time, sc.timestamp())
            case "body": readFirst(&body, else: &bodyRange, from: &sc)
            default: nil
            }
        }
        guard ok, v == Int64(Envelope.currentVersion), let type, let id, let source, let stream, let seq, let time else { return nil }
        if body == nil, let bodyRange {
            // The body sits one level inside the envelope: its reader starts at that depth.
            var inner = JSONScanner(UnsafeRawBufferPointer(rebasing: scanner.bytes[bodyRange]))
            inner.depth = 1
            guard let read = readBody(of: type, from: &inner), inner.atEnd else { return nil }
            body = read
        }
        guard let body else { return nil }
        switch (type, body) {
        case (EventType.sightingReported.rawValue, .sighting):
            return Envelope(type: .sightingReported, id: id, source: source, stream: stream, seq: UInt64(seq), time: time, body: body)
        case (EventType.sightingBatch.rawValue, .sightings):
            return Envelope(type: .sightingBatch, id: id, source: source, stream: stream, seq: UInt64(seq), time: time, body: body)
        case (EventType.regionEvent.rawValue, .region):
            return Envelope(type: .regionEvent, id: id, source: source, stream: stream, seq: UInt64(seq), time: time, body: body)
        case (EventType.regionNearest.rawValue, .nearest):
            return Envelope(type: .regionNearest, id: id, source: source, stream: stream, seq: UInt64(seq), time: time, body: body)
        case (EventType.deviceStatus.rawValue, .deviceStatus):
            return Envelope(type: .deviceStatus, id: id, source: source, stream: stream, seq: UInt64(seq), time: time, body: body)
        default:
            // The order flow's types (`Envelope+OrderBodies`): looked up by name only here, off the sighting path.
            guard let eventType = EventType(rawValue: type), eventType.accepts(body) else { return nil }
            return Envelope(type: eventType, id: id, source: source, stream: stream, seq: UInt64(seq), time: time, body: body)
        }
    }

    /// The envelope's body at the scanner: a sighting's or a batch's read into `body`, any other
    /// skipped (checked, its range kept in `range` to be read once the type is known); false when
    /// it is malformed or given twice.
    private static func readFirst(_ body: inout EventBody?, else range: inout Range<Int>?, from sc: inout JSONScanner) -> Bool {
        guard body == nil, range == nil else { return false }
        let start = sc.position
        if let sightings = Sighting.readBody(from: &sc) {
            body = sightings
            return true
        }
        sc.position = start
        guard sc.skipValue() else { return false }
        range = start..<sc.position
        return true
    }

    /// A sighting, sighting batch, region event, nearest beacon or device status envelope's JSON
    /// (what flows per sighting, what region-monitor writes per change, what beacon-ingest writes
    /// per phone), or an order-flow event's, byte for byte what JSONEncoder writes with sorted keys.
    func fastEncoded() -> Data? { fastEncodedMarkingBody()?.frame }

    /// `fastEncoded`, also where the body's value ends: it starts after `{"body":`, so a store
    /// keeping the body of the event it announced copies it out without scanning the frame.
    func fastEncodedMarkingBody() -> (frame: Data, bodyEnd: Int)? {
        var out: [UInt8] = []
        func raw(_ text: StaticString) { out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)) }
        switch body {
        case .sighting(let s):
            guard s.accuracy.isFinite else { return nil }
            out.reserveCapacity(420)
            raw(#"{"body":"#)
            s.appendJSON(to: &out)
        case .sightings(let batch):
            guard batch.sightings.allSatisfy(\.accuracy.isFinite) else { return nil }
            out.reserveCapacity(180 + 280 * batch.sightings.count)
            raw(#"{"body":{"sightings":["#)
            for (index, s) in batch.sightings.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                s.appendJSON(to: &out)
            }
            raw(#"]}"#)
        case .region(let e):
            out.reserveCapacity(400)
            raw(#"{"body":"#)
            e.appendJSON(to: &out)
        case .nearest(let n):
            out.reserveCapacity(360)
            raw(#"{"body":"#)
            n.appendJSON(to: &out)
        case .deviceStatus(let d):
            out.reserveCapacity(400)
            raw(#"{"body":"#)
            d.appendJSON(to: &out)
        default:
            guard Self.hasOrderFlowWriter(body) else { return nil }
            out.reserveCapacity(2_048)
            raw(#"{"body":"#)
            Self.appendOrderFlowBody(body, to: &out)
        }
        let bodyEnd = out.count
        raw(#","id":"#)
        JSONText.appendQuoted(id, to: &out)
        raw(#","seq":"#)
        JSONText.appendInteger(seq, to: &out)
        raw(#","source":"#)
        JSONText.appendQuoted(source, to: &out)
        raw(#","stream":"#)
        JSONText.appendQuoted(stream, to: &out)
        raw(#","time":""#)
        time.appendRFC3339(to: &out)
        raw(#"","type":""#)
        out.append(contentsOf: type.rawValue.utf8)
        raw(#"","v":"#)
        JSONText.appendInteger(Int64(v), to: &out)
        out.append(UInt8(ascii: "}"))
        return (Data(out), bodyEnd)
    }

    /// Appends the shortest round-trip text, as JSONEncoder writes it ("1.41", "-1", "0.5"): a
    /// whole number as digits, without making a String.
    static func appendNumber(_ value: Double, to out: inout [UInt8]) {
        if value == value.rounded(.towardZero), abs(value) < 1e15 { return JSONText.appendInteger(Int64(value), to: &out) }
        if appendShortDecimal(value, to: &out) { return }
        var text = value.description
        text.withUTF8 { out.append(contentsOf: $0) }
    }

    /// A value that is exactly what reading a decimal of one to three places gives (an accuracy
    /// to the centimetre, a mean RSSI to 0.1 dBm), between 0.001 and 10⁹ in size, written with
    /// the fewest such places: the shortest text that reads back as it, which is what
    /// `description` writes, without its general algorithm. False, writing nothing, for any
    /// other value.
    static func appendShortDecimal(_ value: Double, to out: inout [UInt8]) -> Bool {
        let size = abs(value)
        guard size >= 0.001, size < 1e9 else { return false }
        var scale = 1.0
        for places in 1...3 {
            scale *= 10
            let scaled = (size * scale).rounded()
            // What reading "digits / 10^places" gives: one correctly rounded division.
            guard scaled / scale == size else { continue }
            let digits = UInt64(scaled)
            var power: UInt64 = 1
            for _ in 0..<places { power *= 10 }
            if value < 0 { out.append(UInt8(ascii: "-")) }
            JSONText.appendInteger(digits / power, to: &out)
            out.append(UInt8(ascii: "."))
            var fraction = digits % power
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 3) { text in
                for index in stride(from: places - 1, through: 0, by: -1) {
                    text[index] = UInt8(ascii: "0") + UInt8(fraction % 10)
                    fraction /= 10
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: text[0..<places]))
            }
            return true
        }
        return false
    }
}

extension Sighting: FastJSONDecodable {
    /// A sighting's members as they are read, in any order.
    struct Fields {
        var deviceId: String?, beacon: BeaconIdentity?, rssi: Int?, power: Int?, accuracy: Double?, proximity: Proximity?, observed: Timestamp?
        var mean: Double?, readings: Int?

        /// Reads the member `key` (true), gives up (false), or nil for a member a sighting does not have.
        mutating func read(_ sc: inout JSONScanner, _ key: JSONKey) -> Bool? {
            switch key {
            case "deviceId": fill(&deviceId, sc.string())
            case "beacon": fill(&beacon, BeaconIdentity.read(from: &sc))
            case "rssi": fill(&rssi, sc.int())
            case "measuredPower": fill(&power, sc.int())
            case "accuracy": fill(&accuracy, sc.number())
            case "proximity": fill(&proximity, sc.string().flatMap(Proximity.init(rawValue:)))
            case "observedAt": fill(&observed, sc.timestamp())
            case "meanRssi": fill(&mean, sc.number())
            case "readings": fill(&readings, sc.int())
            default: nil
            }
        }

        /// The sighting, when every member was there and in range (out of range: Foundation's
        /// route refuses it, naming the field).
        var sighting: Sighting? {
            guard let deviceId, let beacon, let rssi, let power, let accuracy, let proximity, let observed,
                  rssiRange.contains(rssi), measuredPowerRange.contains(power), validEvidence(mean, readings)
            else { return nil }
            return Sighting(deviceId: deviceId, beacon: beacon, rssi: rssi, measuredPower: power, accuracy: accuracy, proximity: proximity, observedAt: observed,
                            meanRssi: mean, readings: readings)
        }

        var isEmpty: Bool {
            deviceId == nil && beacon == nil && rssi == nil && power == nil && accuracy == nil && proximity == nil && observed == nil
                && mean == nil && readings == nil
        }
    }

    static func read(from scanner: inout JSONScanner) -> Sighting? {
        if let sighting = readAsWritten(from: &scanner) { return sighting }
        var fields = Fields()
        guard scanner.object({ sc, key in fields.read(&sc, key) }) else { return nil }
        return fields.sighting
    }

    /// A sighting laid out exactly as `appendJSON` writes it (JSONEncoder's sorted keys, no
    /// space): its names are checked in their one order as bytes, not looked up one by one. What
    /// beacon-ingest publishes always is, so a batch's 256 sightings are read this way. Anything
    /// else (another order, a space, an unknown or repeated name) and the scanner is put back
    /// where it was, for the general reader.
    static func readAsWritten(from scanner: inout JSONScanner) -> Sighting? {
        // Two levels open here (the sighting and its beacon), as `object` would count them.
        scanner.inLayout(levels: 2) { $0.readSightingAsWritten() }
    }

    /// An envelope's body when it is a sighting or a sighting batch, in one pass: it gives up at the
    /// first member neither has, so the body of another event type is not scanned to its end.
    static func readBody(from scanner: inout JSONScanner) -> EventBody? {
        var fields = Fields()
        var batch: [Sighting]?
        let ok = scanner.object { sc, key in
            if "sightings" ~= key { return fill(&batch, sc.list(of: Sighting.self, atMost: SightingBatch.maxCount)) }
            return fields.read(&sc, key) ?? false
        }
        guard ok else { return nil }
        if let batch { return fields.isEmpty && !batch.isEmpty ? .sightings(SightingBatch(sightings: batch)) : nil }
        return fields.sighting.map(EventBody.sighting)
    }

    /// This sighting as a JSON object, members sorted as JSONEncoder sorts them (accuracy finite).
    func appendJSON(to out: inout [UInt8]) {
        func raw(_ text: StaticString) { out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)) }
        func int(_ value: Int) { JSONText.appendInteger(Int64(value), to: &out) }
        raw(#"{"accuracy":"#)
        Envelope.appendNumber(accuracy, to: &out)
        raw(#","beacon":{"major":"#)
        int(beacon.major)
        raw(#","minor":"#)
        int(beacon.minor)
        raw(#","uuid":"#)
        JSONText.appendQuoted(beacon.uuid, to: &out)
        raw(#"},"deviceId":"#)
        JSONText.appendQuoted(deviceId, to: &out)
        if let meanRssi {
            raw(#","meanRssi":"#)
            Envelope.appendNumber(meanRssi, to: &out)
        }
        raw(#","measuredPower":"#)
        int(measuredPower)
        raw(#","observedAt":""#)
        observedAt.appendRFC3339(to: &out)
        raw(#"","proximity":""#)
        out.append(contentsOf: proximity.rawValue.utf8)
        if let readings {
            raw(#"","readings":"#)
            int(readings)
            raw(#","rssi":"#)
        } else {
            raw(#"","rssi":"#)
        }
        int(rssi)
        out.append(UInt8(ascii: "}"))
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

extension BeaconIdentity {
    /// `{"major":…,"minor":…,"uuid":…}`, as JSONEncoder sorts it.
    func appendJSON(to out: inout [UInt8]) {
        func raw(_ text: StaticString) { out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)) }
        raw(#"{"major":"#)
        JSONText.appendInteger(Int64(major), to: &out)
        raw(#","minor":"#)
        JSONText.appendInteger(Int64(minor), to: &out)
        raw(#","uuid":"#)
        JSONText.appendQuoted(uuid, to: &out)
        out.append(UInt8(ascii: "}"))
    }
}


/// Readers for what region-monitor reads back at start, one per tracked device: the last event of
/// every record and every nearest answer (10⁶ of each took Foundation's decoder about 10 s).
extension RegionEvent: FastJSONDecodable {
    static func read(from scanner: inout JSONScanner) -> RegionEvent? {
        var monitor: String?, identifier: String?, deviceId: String?, state: ConditionState?, refinement: BeaconIdentity?, flags: [EventFlag]?, date: Timestamp?
        let ok = scanner.object { sc, key in
            switch key {
            case "monitor": fill(&monitor, sc.string())
            case "identifier": fill(&identifier, sc.string())
            case "deviceId": fill(&deviceId, sc.string())
            case "state": fill(&state, sc.string().flatMap(ConditionState.init(rawValue:)))
            case "refinement": fill(&refinement, BeaconIdentity.read(from: &sc))
            case "flags":
                fill(&flags, { () -> [EventFlag]? in
                    var list: [EventFlag] = []
                    let read = sc.array { element in
                        guard list.count < EventFlag.allCases.count * 4, let flag = element.string().flatMap(EventFlag.init(rawValue:)) else { return false }
                        list.append(flag)
                        return true
                    }
                    return read ? list : nil
                }())
            case "date": fill(&date, sc.timestamp())
            default: nil
            }
        }
        guard ok, let monitor, let identifier, let deviceId, let state, let flags, let date else { return nil }
        return RegionEvent(monitor: monitor, identifier: identifier, deviceId: deviceId, state: state, refinement: refinement, flags: flags, date: date)
    }
}

extension NearestBeacon: FastJSONDecodable {
    static func read(from scanner: inout JSONScanner) -> NearestBeacon? {
        var deviceId: String?, beacon: BeaconIdentity?, proximity: Proximity?, date: Timestamp?, candidates: [BeaconIdentity]?
        let ok = scanner.object { sc, key in
            switch key {
            case "deviceId": fill(&deviceId, sc.string())
            case "beacon": fill(&beacon, BeaconIdentity.read(from: &sc))
            case "candidates": fill(&candidates, sc.list(of: BeaconIdentity.self, atMost: maxCandidates))
            case "proximity": fill(&proximity, sc.string().flatMap(Proximity.init(rawValue:)))
            case "date": fill(&date, sc.timestamp())
            default: nil
            }
        }
        guard ok, let deviceId, let date else { return nil }
        return NearestBeacon(deviceId: deviceId, beacon: beacon, proximity: proximity, date: date, candidates: candidates)
    }
}

extension JSONScanner {
    /// The members of a sighting in `Sighting.appendJSON`'s layout, or nil at the first byte that
    /// differs (the caller puts the position back). The values are read and checked as the
    /// general reader reads and checks them.
    fileprivate mutating func readSightingAsWritten() -> Sighting? {
        guard literal(#"{"accuracy":"#), let accuracy = number(),
              literal(#","beacon":{"major":"#), let major = int(), literal(#","minor":"#), let minor = int(),
              literal(#","uuid":"#), let uuid = string(), literal(#"},"deviceId":"#), let deviceId = string()
        else { return nil }
        var mean: Double?
        if literal(#","meanRssi":"#) {
            guard let value = number() else { return nil }
            mean = value
        }
        guard literal(#","measuredPower":"#), let power = int(), literal(#","observedAt":"#), let observed = timestamp(),
              literal(#","proximity":"#), let proximity = plainString(Proximity.init(utf8:))
        else { return nil }
        var readings: Int?
        if literal(#","readings":"#) {
            guard let value = int() else { return nil }
            readings = value
        }
        guard literal(#","rssi":"#), let rssi = int(), literal("}"),
              BeaconIdentity.numberRange.contains(major), BeaconIdentity.numberRange.contains(minor),
              Sighting.rssiRange.contains(rssi), Sighting.measuredPowerRange.contains(power), Sighting.validEvidence(mean, readings)
        else { return nil }
        return Sighting(deviceId: deviceId, beacon: BeaconIdentity(uuid: uuid, major: major, minor: minor), rssi: rssi, measuredPower: power,
                        accuracy: accuracy, proximity: proximity, observedAt: observed, meanRssi: mean, readings: readings)
    }
}

extension Proximity {
    /// The case whose raw value is exactly these bytes, without making a String.
    init?(utf8 bytes: UnsafeRawBufferPointer) {
        func equals(_ word: StaticString) -> Bool {
            word.utf8CodeUnitCount == bytes.count && memcmp(word.utf8Start, bytes.baseAddress!, bytes.count) == 0
        }
        switch bytes.count {
        case 4 where equals("near"): self = .near
        case 3 where equals("far"): self = .far
        case 9 where equals("immediate"): self = .immediate
        case 7 where equals("unknown"): self = .unknown
        default: return nil
        }
    }
}
