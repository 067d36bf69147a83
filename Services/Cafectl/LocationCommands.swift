import Foundation
import Messages
import ServiceRuntime

/// The location commands, all answered by region-monitor: monitors and their conditions
/// (CLMonitor), the nearest café and station of a device, and App Clip location confirmation.
extension ClientCommands {
    static let owner = Option<String?>("owner", help: "the application that owns the monitor")
    static let assume = Option<ConditionState?>.optionalChoice("assume", help: "the condition's state until the first evidence")
    static let beacon = Option<String?>("beacon", help: "a beacon condition: <uuid>[/<major>[/<minor>]]")
    static let exitSeconds = Option<Double?>.optional("exit-seconds", .measure(.finite), help: "a beacon condition's exit timeout (default: the service's)") { Double($0) }
    // --circle, not --region: --region is region-monitor's endpoint on every command.
    static let circle = Option<String?>("circle", help: "a circle: <lat>,<lon>,<radius in metres>")
    static let hysteresis = Option<Double?>.optional("hysteresis", .measure(.finite), help: "a circle condition's hysteresis in metres") { Double($0) }
    static let dwell = Option<Double?>.optional("dwell", .measure(.finite), help: "a circle condition's dwell in seconds") { Double($0) }
    static let code = Option<String?>("code", help: "the App Clip code's URL")
    static let at = Option<String?>("at", help: "when the location was confirmed, RFC 3339 (default: now)")

    static let monitorOwned = [CommandFlag(owner)]
    static let monitorAdd = [CommandFlag(owner), CommandFlag(device), CommandFlag(assume), CommandFlag(beacon), number(exitSeconds),
                             CommandFlag(circle), number(hysteresis), number(dwell)]
    static let monitorRecord = [CommandFlag(device)]
    static let locationConfirm = [CommandFlag(code), CommandFlag(cafe), CommandFlag(circle), CommandFlag(at)]

    func runLocation(_ args: CommandArguments) throws {
        let words = args.words
        func usage(_ count: Int, _ text: String) throws {
            guard words.count == count else { throw UsageError("usage: cafectl \(text)") }
        }
        switch (words[0], words.count > 1 ? words[1] : "") {
        case ("monitor", "list"):
            try usage(2, "monitor list")
            _ = try values(args, [])
            _ = try call(Endpoints.region, Op.monitorList, Empty(), as: MonitorList.self)
        case ("monitor", "open"), ("monitor", "close"):
            try usage(3, "monitor \(words[1]) <name> --owner O")
            let request = MonitorOwnership(monitor: words[2], owner: try values(args, Self.monitorOwned).required(Self.owner))
            _ = try call(Endpoints.region, words[1] == "open" ? Op.monitorOpen : Op.monitorClose, request, as: MonitorInfo.self)
        case ("monitor", "add"):
            try usage(4, "monitor add <name> <identifier> --owner O (--beacon <uuid>[/<major>[/<minor>]] | --circle <lat>,<lon>,<radius>)")
            let flags = try values(args, Self.monitorAdd)
            let request = AddCondition(monitor: words[2], owner: try flags.required(Self.owner), identifier: words[3], condition: try condition(flags),
                                       deviceId: flags[Self.device], assuming: flags[Self.assume])
            _ = try call(Endpoints.region, Op.monitorAdd, request, as: MonitorRecord.self)
        case ("monitor", "remove"):
            try usage(4, "monitor remove <name> <identifier> --owner O")
            let request = RemoveCondition(monitor: words[2], owner: try values(args, Self.monitorOwned).required(Self.owner), identifier: words[3])
            _ = try call(Endpoints.region, Op.monitorRemove, request, as: RemovedCondition.self)
        case ("monitor", "identifiers"):
            try usage(3, "monitor identifiers <name>")
            _ = try values(args, [])
            _ = try call(Endpoints.region, Op.monitorIdentifiers, MonitorQuery(monitor: words[2]), as: MonitorIdentifiers.self)
        case ("monitor", "record"):
            try usage(4, "monitor record <name> <identifier> [--device D]")
            let query = RecordQuery(monitor: words[2], identifier: words[3], deviceId: try values(args, Self.monitorRecord)[Self.device])
            _ = try call(Endpoints.region, Op.monitorRecord, query, as: MonitorRecord.self)
        case ("nearest", _):
            try usage(2, "nearest <device>")
            _ = try values(args, [])
            _ = try call(Endpoints.region, Op.nearestGet, DeviceQuery(deviceId: words[1]), as: NearestAnswer.self)
        case ("location", "confirm"):
            try usage(3, "location confirm <device> --code <url> (--cafe C | --circle <lat>,<lon>,<radius>) [--at <rfc3339>]")
            let flags = try values(args, Self.locationConfirm)
            let code = try flags.required(Self.code)
            let cafe = flags[Self.cafe]
            let region = try flags[Self.circle].map { try circle($0) }
            guard (cafe == nil) != (region == nil) else { throw UsageError("give one of --cafe <id> or --circle <lat>,<lon>,<radius>") }
            let at = try flags[Self.at].map { text in
                guard let parsed = Timestamp(rfc3339: text) else { throw UsageError("--at must be RFC 3339 (2026-11-21T12:30:00Z), not \"\(text)\"") }
                return parsed
            }
            let request = ConfirmLocation(deviceId: words[2], code: code, acquiredAt: at ?? Timestamp(Date()), cafeId: cafe,
                                          region: region.map { ConfirmRegion(latitude: $0.latitude, longitude: $0.longitude, radius: $0.radius) })
            _ = try call(Endpoints.region, Op.locationConfirm, request, as: LocationConfirmation.self)
        default:
            throw UsageError("unknown command \"\(words.joined(separator: " "))\" (see cafectl help)")
        }
    }

    /// The condition of `monitor add`: `--beacon` with its exit timeout, or `--circle` with its
    /// hysteresis and dwell; a flag of the other kind is a mistake, not something to ignore.
    private func condition(_ flags: CommandValues) throws -> Condition {
        func refuse(_ stray: [Option<Double?>], with kind: String) throws {
            if let given = stray.first(where: flags.isGiven) { throw UsageError("--\(given.name) does not apply to a \(kind) condition") }
        }
        switch (flags[Self.beacon], flags[Self.circle]) {
        case let (beacon?, nil):
            try refuse([Self.hysteresis, Self.dwell], with: "beacon")
            let parts = beacon.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            let numbers = parts.dropFirst().map { Int($0) }
            guard (1...3).contains(parts.count), !parts[0].isEmpty, !numbers.contains(nil) else {
                throw UsageError("--beacon is <uuid>[/<major>[/<minor>]] with whole numbers, not \"\(beacon)\"")
            }
            return .beacon(uuid: parts[0], major: numbers.first ?? nil, minor: numbers.dropFirst().first ?? nil, exitTimeout: flags[Self.exitSeconds])
        case let (nil, circle?):
            try refuse([Self.exitSeconds], with: "circle")
            let (latitude, longitude, radius) = try self.circle(circle)
            return .circle(latitude: latitude, longitude: longitude, radius: radius, hysteresis: flags[Self.hysteresis], dwell: flags[Self.dwell])
        default:
            throw UsageError("give one of --beacon <uuid>[/<major>[/<minor>]] or --circle <lat>,<lon>,<radius>")
        }
    }

    /// "37.3349,-122.009,120": a center and a radius in metres (region-monitor checks the ranges).
    private func circle(_ text: String) throws -> (latitude: Double, longitude: Double, radius: Double) {
        let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard numbers.count == 3, let latitude = numbers[0], let longitude = numbers[1], let radius = numbers[2],
              latitude.isFinite, longitude.isFinite, radius.isFinite
        else { throw UsageError("--\(Self.circle.name) is <latitude>,<longitude>,<radius in metres>, not \"\(text)\"") }
        return (latitude, longitude, radius)
    }
}
