import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// The client commands: a phone, a chef and an operator talking to the services' request sockets.
struct ClientCommands {
    let endpoints: Endpoints
    let context: Context
    let pretty: Bool

    /// Calls `op` on the service behind `flag` and prints the reply body as JSON.
    func call<Body: Codable & Sendable, Result: Codable & Sendable>(_ flag: String, _ op: String, _ body: Body, as: Result.Type) throws -> Result {
        let client = try endpoints.client(flag, context: context)
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

    func run(_ args: inout Arguments) throws {
        let words = args.words
        switch (words.first ?? "", words.count > 1 ? words[1] : "") {
        case ("phone", "status"):
            let report = IngestReport(deviceId: try endpoints.identity.required("device", &args), status: DeviceStatusReport(
                authorization: try enumValue(Authorization.self, try args.required("authorization"), "authorization"),
                foreground: try args.bool("foreground", default: true), precise: try args.bool("precise", default: true),
                monitoringAvailable: try args.bool("monitoring", default: true), rangingAvailable: try args.bool("ranging", default: true)))
            try args.checkAllUsed()
            _ = try call("ingest", Op.ingestReport, report, as: IngestResult.self)
        case ("phone", "sight"):
            let device = try endpoints.identity.required("device", &args)
            let uuid = try args.required("uuid")
            let major = try args.int("major", default: -1), minor = try args.int("minor", default: -1)
            let rssi = try args.int("rssi", default: -60), power = try args.int("power", default: -59)
            let count = Int(try args.value("count", .count(1...10_000), default: "1"))!
            try args.checkAllUsed()
            let now = Timestamp(Date())
            let sightings = (0..<count).map {
                RangingReport(uuid: uuid, major: major, minor: minor, rssi: rssi, measuredPower: power, timestamp: now.adding(seconds: Double($0 - count + 1) * 0.1))
            }
            _ = try call("ingest", Op.ingestReport, IngestReport(deviceId: device, sightings: sightings), as: IngestResult.self)
        case ("phone", "fix"):
            let fix = FixReport(latitude: try double(args.required("lat"), "lat"), longitude: try double(args.required("lon"), "lon"),
                                horizontalAccuracy: try double(args.string("accuracy") ?? "10", "accuracy"), precise: try args.bool("precise", default: true),
                                timestamp: Timestamp(Date()))
            let device = try endpoints.identity.required("device", &args)
            try args.checkAllUsed()
            _ = try call("ingest", Op.ingestReport, IngestReport(deviceId: device, fixes: [fix]), as: IngestResult.self)
        case ("menu", _):
            let request = MenuRequest(userId: try endpoints.identity.required("user", &args), deviceId: args.string("device"), locale: args.string("locale") ?? "en_US")
            try args.checkAllUsed()
            _ = try call("orders", Op.menuGet, request, as: MenuReply.self)
        case ("prefs", "set"):
            guard words.count == 3 else { throw UsageError("usage: cafectl prefs set closestToMe|<cafe-id> --user U") }
            let preference: LocationPreference = words[2] == "closestToMe" ? .closestToMe : .cafe(words[2])
            let request = PreferenceRequest(userId: try endpoints.identity.required("user", &args), preference: preference)
            try args.checkAllUsed()
            _ = try call("orders", Op.preferenceSet, request, as: PreferenceView.self)
        case ("prefs", "get"):
            let request = PreferenceRequest(userId: try endpoints.identity.required("user", &args))
            try args.checkAllUsed()
            _ = try call("orders", Op.preferenceGet, request, as: PreferenceView.self)
        case ("windows", _):
            let request = WindowsRequest(cafeId: try args.required("cafe"), locale: args.string("locale") ?? "en_US", count: try args.int("count", default: 8))
            try args.checkAllUsed()
            _ = try call("orders", Op.windowsList, request, as: WindowsReply.self)
        case ("reserve", _):
            let cafe = try args.required("cafe"), locale = args.string("locale") ?? "en_US", user = args.string("user")
            let startText = args.string("start") ?? "next"
            try args.checkAllUsed()
            // Left out, order-service holds a place in the next window with room, in one transaction.
            var start: Timestamp?
            if startText != "next" {
                guard let parsed = Timestamp(rfc3339: startText) else { throw UsageError("--start must be RFC 3339 (2026-11-21T12:30:00Z) or next") }
                start = parsed
            }
            _ = try call("orders", Op.windowReserve, ReserveRequest(cafeId: cafe, start: start, userId: user, locale: locale), as: ReservationView.self)
        case ("order", _):
            try runOrder(&args)
        case ("kds", _):
            try runKitchen(&args)
        case ("notify", _), ("inbox", _), ("reminder", _):
            try runNotify(&args)
        case ("monitor", _), ("nearest", _), ("location", _):
            try runLocation(&args)
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

    func enumValue<E: RawRepresentable & CaseIterable>(_ type: E.Type, _ text: String, _ flag: String) throws -> E where E.RawValue == String {
        guard let value = E(rawValue: text) else {
            throw UsageError("--\(flag) must be one of \(E.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(text)\"")
        }
        return value
    }

    func double(_ text: String, _ flag: String) throws -> Double {
        guard let value = Double(text) else { throw UsageError("--\(flag) must be a number, not \"\(text)\"") }
        return value
    }
}
