import Foundation
import Messages

/// The location commands, all answered by region-monitor: monitors and their conditions
/// (CLMonitor), the nearest café and station of a device, and App Clip location confirmation.
extension ClientCommands {
    func runLocation(_ args: inout Arguments) throws {
        let words = args.words
        func usage(_ count: Int, _ text: String) throws {
            guard words.count == count else { throw UsageError("usage: cafectl \(text)") }
        }
        switch (words[0], words.count > 1 ? words[1] : "") {
        case ("monitor", "list"):
            try usage(2, "monitor list")
            try args.checkAllUsed()
            _ = try call("region", Op.monitorList, Empty(), as: MonitorList.self)
        case ("monitor", "open"), ("monitor", "close"):
            try usage(3, "monitor \(words[1]) <name> --owner O")
            let request = MonitorOwnership(monitor: words[2], owner: try args.required("owner"))
            try args.checkAllUsed()
            _ = try call("region", words[1] == "open" ? Op.monitorOpen : Op.monitorClose, request, as: MonitorInfo.self)
        case ("monitor", "add"):
            try usage(4, "monitor add <name> <identifier> --owner O (--beacon <uuid>[/<major>[/<minor>]] | --circle <lat>,<lon>,<radius>)")
            let request = AddCondition(monitor: words[2], owner: try args.required("owner"), identifier: words[3], condition: try condition(&args),
                                       deviceId: args.string("device"), assuming: try args.string("assume").map { try enumValue(ConditionState.self, $0, "assume") })
            try args.checkAllUsed()
            _ = try call("region", Op.monitorAdd, request, as: MonitorRecord.self)
        case ("monitor", "remove"):
            try usage(4, "monitor remove <name> <identifier> --owner O")
            let request = RemoveCondition(monitor: words[2], owner: try args.required("owner"), identifier: words[3])
            try args.checkAllUsed()
            _ = try call("region", Op.monitorRemove, request, as: RemovedCondition.self)
        case ("monitor", "identifiers"):
            try usage(3, "monitor identifiers <name>")
            try args.checkAllUsed()
            _ = try call("region", Op.monitorIdentifiers, MonitorQuery(monitor: words[2]), as: MonitorIdentifiers.self)
        case ("monitor", "record"):
            try usage(4, "monitor record <name> <identifier> [--device D]")
            let query = RecordQuery(monitor: words[2], identifier: words[3], deviceId: args.string("device"))
            try args.checkAllUsed()
            _ = try call("region", Op.monitorRecord, query, as: MonitorRecord.self)
        case ("nearest", _):
            try usage(2, "nearest <device>")
            try args.checkAllUsed()
            _ = try call("region", Op.nearestGet, DeviceQuery(deviceId: words[1]), as: NearestAnswer.self)
        case ("location", "confirm"):
            // --circle, not --region: --region is region-monitor's endpoint on every command.
            try usage(3, "location confirm <device> --code <url> (--cafe C | --circle <lat>,<lon>,<radius>) [--at <rfc3339>]")
            let code = try args.required("code")
            let cafe = args.string("cafe")
            let region = try args.string("circle").map { try circle($0, "circle") }
            guard (cafe == nil) != (region == nil) else { throw UsageError("give one of --cafe <id> or --circle <lat>,<lon>,<radius>") }
            let at = try args.string("at").map { text in
                guard let parsed = Timestamp(rfc3339: text) else { throw UsageError("--at must be RFC 3339 (2026-11-21T12:30:00Z), not \"\(text)\"") }
                return parsed
            }
            try args.checkAllUsed()
            let request = ConfirmLocation(deviceId: words[2], code: code, acquiredAt: at ?? Timestamp(Date()), cafeId: cafe,
                                          region: region.map { ConfirmRegion(latitude: $0.latitude, longitude: $0.longitude, radius: $0.radius) })
            _ = try call("region", Op.locationConfirm, request, as: LocationConfirmation.self)
        default:
            throw UsageError("unknown command \"\(words.joined(separator: " "))\" (see cafectl help)")
        }
    }

    /// The condition of `monitor add`: `--beacon` with its exit timeout, or `--circle` with its
    /// hysteresis and dwell; a flag of the other kind is a mistake, not something to ignore.
    private func condition(_ args: inout Arguments) throws -> Condition {
        func number(_ flag: String) throws -> Double? { try args.string(flag).map { try double($0, flag) } }
        func refuse(_ flags: [String], with kind: String) throws {
            if let stray = flags.first(where: { args.flags[$0] != nil }) { throw UsageError("--\(stray) does not apply to a \(kind) condition") }
        }
        switch (args.string("beacon"), args.string("circle")) {
        case let (beacon?, nil):
            try refuse(["hysteresis", "dwell"], with: "beacon")
            let parts = beacon.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            let numbers = parts.dropFirst().map { Int($0) }
            guard (1...3).contains(parts.count), !parts[0].isEmpty, !numbers.contains(nil) else {
                throw UsageError("--beacon is <uuid>[/<major>[/<minor>]] with whole numbers, not \"\(beacon)\"")
            }
            return .beacon(uuid: parts[0], major: numbers.first ?? nil, minor: numbers.dropFirst().first ?? nil, exitTimeout: try number("exit-seconds"))
        case let (nil, circle?):
            try refuse(["exit-seconds"], with: "circle")
            let (latitude, longitude, radius) = try self.circle(circle, "circle")
            return .circle(latitude: latitude, longitude: longitude, radius: radius, hysteresis: try number("hysteresis"), dwell: try number("dwell"))
        default:
            throw UsageError("give one of --beacon <uuid>[/<major>[/<minor>]] or --circle <lat>,<lon>,<radius>")
        }
    }

    /// "37.3349,-122.009,120": a center and a radius in metres (region-monitor checks the ranges).
    private func circle(_ text: String, _ flag: String) throws -> (latitude: Double, longitude: Double, radius: Double) {
        let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard numbers.count == 3, let latitude = numbers[0], let longitude = numbers[1], let radius = numbers[2],
              latitude.isFinite, longitude.isFinite, radius.isFinite
        else { throw UsageError("--\(flag) is <latitude>,<longitude>,<radius in metres>, not \"\(text)\"") }
        return (latitude, longitude, radius)
    }
}
