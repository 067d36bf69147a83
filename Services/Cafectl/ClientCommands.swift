import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// The client commands: a phone, a chef and an operator talking to the services' request sockets.
struct ClientCommands {
    let endpoints: Endpoints
    let context: Context
    let pretty: Bool

    /// Calls `op` on the service behind its endpoint flag and prints the reply body as JSON.
    func call<Body: Codable & Sendable, Result: Codable & Sendable>(_ service: Option<String>, _ op: String, _ body: Body, as: Result.Type) throws -> Result {
        let client = try endpoints.client(service, context: context)
        defer { client.close() }
        let result = try client.call(op, body, as: Result.self)
        print(result)
        return result
    }

    func print<T: Encodable>(_ value: T) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data()
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    // The flags several client commands take, each declared once.
    static let pretty = Option.flag("pretty", default: false, help: "print indented JSON")
    static let prettySwitch = CommandFlag(pretty, .switchOnly)
    static let device = Option<String?>("device", help: "the phone's device id (acting as a phone: its own)")
    static let user = Option<String?>("user", help: "the user id (acting as a phone: its own)")
    static let cafe = Option<String?>("cafe", help: "the café id")
    static let locale = Option("locale", default: "en_US", help: "the locale of the reply's text")

    // The phone and kiosk commands' own flags.
    static let authorization = Option<Authorization?>.optionalChoice("authorization", help: "the app's location authorization")
    static let foreground = Option.flag("foreground", default: true, help: "the app is in the foreground")
    static let precise = Option.flag("precise", default: true, help: "precise location is allowed")
    static let monitoring = Option.flag("monitoring", default: true, help: "region monitoring is available")
    static let ranging = Option.flag("ranging", default: true, help: "beacon ranging is available")
    static let uuid = Option<String?>("uuid", help: "the beacon's proximity UUID")
    static let major = Option.count("major", Int.min...Int.max, default: -1, help: "the beacon's major number")
    static let minor = Option.count("minor", Int.min...Int.max, default: -1, help: "the beacon's minor number")
    static let rssi = Option.count("rssi", Int.min...Int.max, default: -60, help: "the signal strength heard, in dBm")
    static let power = Option.count("power", Int.min...Int.max, default: -59, help: "the beacon's measured power at 1 m, in dBm")
    static let sightings = Option.count("count", 1...10_000, default: 1, help: "sightings sent, 0.1 s apart, the last now")
    static let latitude = Option<Double?>.optional("lat", .measure(.finite), help: "the fix's latitude") { Double($0) }
    static let longitude = Option<Double?>.optional("lon", .measure(.finite), help: "the fix's longitude") { Double($0) }
    static let accuracy = Option.measure("accuracy", .finite, default: 10, help: "the fix's horizontal accuracy in metres")
    static let windowCount = Option.count("count", Int.min...Int.max, default: 8, help: "how many pickup windows")
    static let start = Option("start", default: "next", help: "the window's start: next (the next with room) or RFC 3339")

    /// Flags whose value the service checks itself: refused here only when not a number at all.
    static func integer(_ option: Option<Int>) -> CommandFlag { CommandFlag(option, refusal: "an integer") }
    static func number<Value>(_ option: Option<Value>) -> CommandFlag { CommandFlag(option, refusal: "a number") }

    static let phoneStatus = [CommandFlag(device), CommandFlag(authorization), CommandFlag(foreground), CommandFlag(precise),
                              CommandFlag(monitoring), CommandFlag(ranging)]
    static let phoneSight = [CommandFlag(device), CommandFlag(uuid), integer(major), integer(minor), integer(rssi), integer(power), CommandFlag(sightings)]
    static let phoneFix = [CommandFlag(device), number(latitude), number(longitude), number(accuracy), CommandFlag(precise)]
    static let menu = [CommandFlag(user), CommandFlag(device), CommandFlag(locale)]
    static let prefs = [CommandFlag(user)]
    static let windows = [CommandFlag(cafe), CommandFlag(locale), integer(windowCount)]
    static let reserve = [CommandFlag(cafe), CommandFlag(locale), CommandFlag(user), CommandFlag(start)]

    /// The values of a client command that takes `flags`, besides --pretty and the flags every command takes.
    func values(_ args: CommandArguments, _ flags: [CommandFlag]) throws -> CommandValues {
        try args.command(flags + [Self.prettySwitch])
    }

    func run(_ args: CommandArguments) throws {
        let words = args.words
        let identity = endpoints.identity
        switch (words.first ?? "", words.count > 1 ? words[1] : "") {
        case ("phone", "status"):
            let flags = try values(args, Self.phoneStatus)
            let report = IngestReport(deviceId: try identity.device(flags), status: DeviceStatusReport(
                authorization: try flags.required(Self.authorization), foreground: flags[Self.foreground], precise: flags[Self.precise],
                monitoringAvailable: flags[Self.monitoring], rangingAvailable: flags[Self.ranging]))
            _ = try call(Endpoints.ingest, Op.ingestReport, report, as: IngestResult.self)
        case ("phone", "sight"):
            let flags = try values(args, Self.phoneSight)
            let device = try identity.device(flags)
            let uuid = try flags.required(Self.uuid)
            let count = flags[Self.sightings]
            let now = Timestamp(Date())
            let sightings = (0..<count).map {
                RangingReport(uuid: uuid, major: flags[Self.major], minor: flags[Self.minor], rssi: flags[Self.rssi], measuredPower: flags[Self.power],
                              timestamp: now.adding(seconds: Double($0 - count + 1) * 0.1))
            }
            _ = try call(Endpoints.ingest, Op.ingestReport, IngestReport(deviceId: device, sightings: sightings), as: IngestResult.self)
        case ("phone", "fix"):
            let flags = try values(args, Self.phoneFix)
            let fix = FixReport(latitude: try flags.required(Self.latitude), longitude: try flags.required(Self.longitude),
                                horizontalAccuracy: flags[Self.accuracy], precise: flags[Self.precise], timestamp: Timestamp(Date()))
            let device = try identity.device(flags)
            _ = try call(Endpoints.ingest, Op.ingestReport, IngestReport(deviceId: device, fixes: [fix]), as: IngestResult.self)
        case ("menu", _):
            let flags = try values(args, Self.menu)
            let request = MenuRequest(userId: try identity.user(flags), deviceId: flags[Self.device], locale: flags[Self.locale])
            _ = try call(Endpoints.orders, Op.menuGet, request, as: MenuReply.self)
        case ("prefs", "set"):
            guard words.count == 3 else { throw UsageError("usage: cafectl prefs set closestToMe|<cafe-id> --user U") }
            let preference: LocationPreference = words[2] == "closestToMe" ? .closestToMe : .cafe(words[2])
            let request = PreferenceRequest(userId: try identity.user(try values(args, Self.prefs)), preference: preference)
            _ = try call(Endpoints.orders, Op.preferenceSet, request, as: PreferenceView.self)
        case ("prefs", "get"):
            let request = PreferenceRequest(userId: try identity.user(try values(args, Self.prefs)))
            _ = try call(Endpoints.orders, Op.preferenceGet, request, as: PreferenceView.self)
        case ("windows", _):
            let flags = try values(args, Self.windows)
            let request = WindowsRequest(cafeId: try flags.required(Self.cafe), locale: flags[Self.locale], count: flags[Self.windowCount])
            _ = try call(Endpoints.orders, Op.windowsList, request, as: WindowsReply.self)
        case ("reserve", _):
            let flags = try values(args, Self.reserve)
            let cafe = try flags.required(Self.cafe)
            // Left out, order-service holds a place in the next window with room, in one transaction.
            var start: Timestamp?
            if flags[Self.start] != "next" {
                guard let parsed = Timestamp(rfc3339: flags[Self.start]) else { throw UsageError("--start must be RFC 3339 (2026-11-21T12:30:00Z) or next") }
                start = parsed
            }
            let request = ReserveRequest(cafeId: cafe, start: start, userId: flags[Self.user], locale: flags[Self.locale])
            _ = try call(Endpoints.orders, Op.windowReserve, request, as: ReservationView.self)
        case ("order", _):
            try runOrder(args)
        case ("kds", _):
            try runKitchen(args)
        case ("notify", _), ("inbox", _), ("reminder", _):
            try runNotify(args)
        case ("monitor", _), ("nearest", _), ("location", _):
            try runLocation(args)
        case ("tokens", _):
            try runTokens(args)
        default:
            throw UsageError("unknown command \"\(words.joined(separator: " "))\" (see cafectl help)")
        }
    }

    /// "latte", "latte:2", "latte:2:oat-milk,extra-shot".
    func parseItem(_ text: String) throws -> OrderItemRequest {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard (1...3).contains(parts.count), !parts[0].isEmpty else { throw UsageError("--item is id[:quantity[:modifier,modifier]], not \"\(text)\"") }
        let quantity = parts.count > 1 ? Int(parts[1]) : 1
        guard let quantity else { throw UsageError("--item quantity must be an integer in \"\(text)\"") }
        let modifiers = parts.count > 2 ? parts[2].split(separator: ",").map(String.init) : nil
        return OrderItemRequest(itemId: parts[0], quantity: quantity, modifiers: modifiers)
    }
}
