import Campus
import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// `cafectl walk --device D`: replays a seeded `CampusWalk` through the running platform, one
/// `ingest.report` to beacon-ingest per walk second, each sent at its own time (start +
/// second ÷ speed) and stamped with it. Prints a line when the phone reaches a new part of the
/// walk and every 10 walk seconds, then what beacon-ingest accepted and refused. A refused
/// report (an error reply, not a rejected item) ends the walk with exit 1.
enum WalkCommand {
    static let usage = "usage: cafectl walk --device D [--seed 1] [--speed 1] [--from caffe-macs] [--to macs-coffee] [--campus deploy/campus.json]"

    static let seed = Option<UInt64>(OptionSpec.count("seed", default: 1, help: "the walk's seed: the same seed, the same walk")) { UInt64($0) ?? 1 }
    static let speed = Option.measure("speed", .positive, default: 1, help: "walk seconds per real second")
    static let from = Option("from", default: "caffe-macs", help: "the café whose counter the phone visits first")
    static let to = Option("to", default: "macs-coffee", help: "the café whose counter it visits next")
    static let campus = Option("campus", .path, default: "deploy/campus.json", help: "the campus catalog the walk crosses")
    static let flags = [CommandFlag(ClientCommands.device), CommandFlag(seed), CommandFlag(speed, refusal: "a number above 0"),
                        CommandFlag(from), CommandFlag(to), CommandFlag(campus, environment: "CAFE_CAMPUS")]

    static func run(_ args: CommandArguments, endpoints: Endpoints) throws -> Int32 {
        guard args.words.count == 1 else { throw UsageError(usage) }
        let flags = try args.command(Self.flags)
        let device = try endpoints.identity.device(flags)
        let seed = flags[Self.seed], speed = flags[Self.speed]
        let from = flags[Self.from], to = flags[Self.to], campus = flags[Self.campus]
        let walk: CampusWalk
        do {
            walk = try CampusWalk(catalog: try CampusCatalog.load(path: campus), from: from, to: to, seed: seed)
        } catch let error as CatalogError {
            throw UsageError("\(error)")
        }

        let context = try Context()
        let client = try endpoints.client(Endpoints.ingest, context: context)
        defer { client.close() }
        let started = Date()
        let steps = walk.steps(start: Timestamp(started), scale: 1 / speed)
        say("walk: \(device) from \(from) to \(to), seed \(seed), \(walk.duration) s of walk at \(format(speed))× (\(format(Double(walk.duration) / speed)) s)")
        var tally = Tally()
        var leg: CampusWalk.Leg?
        for step in steps {
            let due = started.addingTimeInterval(Double(step.second) / speed)
            if due > Date() { Thread.sleep(until: due) }
            let report = IngestReport(deviceId: device, status: step.status, sightings: step.sightings, fixes: step.fixes)
            let result = try client.call(Op.ingestReport, report, as: IngestResult.self)
            tally.add(step, result)
            if walk.leg(step.second) != leg || step.second % 10 == 0 {
                leg = walk.leg(step.second)
                say(progress(walk, step))
            }
        }
        say(tally.summary(seconds: Date().timeIntervalSince(started)))
        return 0
    }

    /// "t=133 s  -1.0 m  at the caffe-macs counter  hears 1/1 -61 dBm".
    static func progress(_ walk: CampusWalk, _ step: CampusWalk.Step) -> String {
        let place = switch walk.leg(step.second) {
        case .approaching: "walking to \(walk.from.id)"
        case .atFrom: "at the \(walk.from.id) counter"
        case .between: "walking to \(walk.to.id)"
        case .atTo: "at the \(walk.to.id) counter"
        case .leaving: "walking away from \(walk.to.id)"
        case .away: "\(Int(CampusWalk.carParkMetres)) m past \(walk.to.id)"
        }
        let heard = step.sightings.map { "\($0.major)/\($0.minor) " + ($0.rssi == 0 ? "unreadable" : "\($0.rssi) dBm") }
        let position = String(format: "%.1f", walk.position(step.second))
        return "t=\(step.second) s  \(position) m  \(place)  hears \(heard.isEmpty ? "nothing" : heard.joined(separator: ", "))"
    }

    /// What beacon-ingest made of the walk, from its replies.
    struct Tally {
        var reports = 0
        var sightings = (accepted: 0, rejected: 0)
        var fixes = (accepted: 0, rejected: 0)
        var rejections: [String: Int] = [:]

        mutating func add(_ step: CampusWalk.Step, _ result: IngestResult) {
            reports += 1
            let refused = { (kind: String) in result.rejections.count { $0.kind == kind } }
            sightings.accepted += step.sightings.count - refused("sighting")
            sightings.rejected += refused("sighting")
            fixes.accepted += step.fixes.count - refused("fix")
            fixes.rejected += refused("fix")
            for rejection in result.rejections { rejections[rejection.code, default: 0] += 1 }
        }

        func summary(seconds: Double) -> String {
            var text = "walk: \(reports) reports sent in \(format(seconds)) s; sightings \(sightings.accepted) accepted, \(sightings.rejected) rejected;"
                + " fixes \(fixes.accepted) accepted, \(fixes.rejected) rejected"
            if !rejections.isEmpty { text += "; rejected as " + rejections.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ") }
            return text
        }
    }

    static func format(_ value: Double) -> String { String(format: value.rounded() == value ? "%.0f" : "%.1f", value) }

    static func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
}
