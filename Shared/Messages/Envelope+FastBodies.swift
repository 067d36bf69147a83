/// Hand-written readers for the bodies that flow at campus rate besides sightings: `region.event`
/// and `region.nearest` (order-service and notification-service take every one; at 10,000
/// sightings/s Foundation's decoder of them was 27% of order-service's CPU) and `device.status`
/// (region-monitor takes one per phone that reports its authorization). As every reader, each one
/// gives up (nil) on anything it does not fully expect, and Foundation's route then decides. The
/// region event and nearest answer readers are those region-monitor reads its records back with.
extension Envelope {
    /// The body of an envelope of `type` whose body is the JSON object `scanner` is at, for the
    /// types read here; nil for any other type, or when the reader gives up.
    static func readBody(of type: String, from scanner: inout JSONScanner) -> EventBody? {
        switch type {
        case EventType.regionEvent.rawValue: RegionEvent.read(from: &scanner).map(EventBody.region)
        case EventType.regionNearest.rawValue: NearestBeacon.read(from: &scanner).map(EventBody.nearest)
        case EventType.deviceStatus.rawValue: DeviceStatus.read(from: &scanner).map(EventBody.deviceStatus)
        default: EventType(rawValue: type).flatMap { readOrderFlowBody(of: $0, from: &scanner) }
        }
    }
}

extension DeviceStatus: FastJSONDecodable {
    static func read(from scanner: inout JSONScanner) -> DeviceStatus? {
        var deviceId: String?, authorization: Authorization?, foreground: Bool?, precise: Bool?, monitoring: Bool?, ranging: Bool?
        var changedAt: Timestamp?
        let ok = scanner.object { sc, key in
            switch key {
            case "deviceId": fill(&deviceId, sc.string())
            case "authorization": fill(&authorization, sc.string().flatMap(Authorization.init(rawValue:)))
            case "foreground": fill(&foreground, sc.bool())
            case "precise": fill(&precise, sc.bool())
            case "monitoringAvailable": fill(&monitoring, sc.bool())
            case "rangingAvailable": fill(&ranging, sc.bool())
            case "changedAt": fill(&changedAt, sc.timestamp())
            default: nil
            }
        }
        guard ok, let deviceId, let authorization, let foreground, let precise, let monitoring, let ranging, let changedAt else { return nil }
        return DeviceStatus(deviceId: deviceId, authorization: authorization, foreground: foreground, precise: precise,
                            monitoringAvailable: monitoring, rangingAvailable: ranging, changedAt: changedAt)
    }
}

extension DeviceStatus {
    /// This status as JSONEncoder writes it with sorted keys: beacon-ingest publishes one for each
    /// phone that reports a change, and JSONEncoder took about 100,000 instructions an event
    /// (two thirds of a status request's cost).
    func appendJSON(to out: inout [UInt8]) {
        func raw(_ text: StaticString) { out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)) }
        func flag(_ value: Bool) { value ? raw("true") : raw("false") }
        raw(#"{"authorization":""#)
        out.append(contentsOf: authorization.rawValue.utf8)
        raw(#"","changedAt":""#)
        changedAt.appendRFC3339(to: &out)
        raw(#"","deviceId":"#)
        JSONText.appendQuoted(deviceId, to: &out)
        raw(#","foreground":"#)
        flag(foreground)
        raw(#","monitoringAvailable":"#)
        flag(monitoringAvailable)
        raw(#","precise":"#)
        flag(precise)
        raw(#","rangingAvailable":"#)
        flag(rangingAvailable)
        out.append(UInt8(ascii: "}"))
    }
}

extension RegionEvent {
    /// This event as JSONEncoder writes it with sorted keys (a nil refinement left out).
    func appendJSON(to out: inout [UInt8]) {
        func raw(_ text: StaticString) { out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)) }
        raw(#"{"date":""#)
        date.appendRFC3339(to: &out)
        raw(#"","deviceId":"#)
        JSONText.appendQuoted(deviceId, to: &out)
        raw(#","flags":["#)
        for (index, flag) in flags.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: flag.rawValue.utf8)
            out.append(UInt8(ascii: "\""))
        }
        raw(#"],"identifier":"#)
        JSONText.appendQuoted(identifier, to: &out)
        raw(#","monitor":"#)
        JSONText.appendQuoted(monitor, to: &out)
        if let refinement {
            raw(#","refinement":"#)
            refinement.appendJSON(to: &out)
        }
        raw(#","state":""#)
        out.append(contentsOf: state.rawValue.utf8)
        raw(#""}"#)
    }
}

extension NearestBeacon {
    /// This answer as JSONEncoder writes it with sorted keys (nil members left out).
    func appendJSON(to out: inout [UInt8]) {
        func raw(_ text: StaticString) { out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)) }
        out.append(UInt8(ascii: "{"))
        if let beacon {
            raw(#""beacon":"#)
            beacon.appendJSON(to: &out)
            out.append(UInt8(ascii: ","))
        }
        if let candidates {
            raw(#""candidates":["#)
            for (i, candidate) in candidates.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                candidate.appendJSON(to: &out)
            }
            raw("],")
        }
        raw(#""date":""#)
        date.appendRFC3339(to: &out)
        raw(#"","deviceId":"#)
        JSONText.appendQuoted(deviceId, to: &out)
        if let proximity {
            raw(#","proximity":""#)
            out.append(contentsOf: proximity.rawValue.utf8)
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "}"))
    }
}
