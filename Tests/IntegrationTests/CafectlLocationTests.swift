import Foundation
import Messages
import Testing

/// cafectl's location commands against a stand-in region-monitor: each command line puts the
/// request its flags describe on the wire, prints the answer, and turns a refusal into
/// `code: message` and exit 1. Mistakes in the arguments exit 2 with one line, before any request.
@Suite(.serialized)
struct CafectlLocationTests {
    static let uuid = "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30"
    static let at = Timestamp(rfc3339: "2026-11-21T12:30:00Z")!
    static let record = MonitorRecord(identifier: "macs", condition: .beacon(uuid: uuid, major: 1, minor: nil), lastEvent: nil)
    static let info = MonitorInfo(monitor: "lunch", owner: "app-1", conditions: 1, conditionLimit: 20, builtIn: false)

    static let replies: [String: Data] = [
        Op.monitorList: FakeService.success(MonitorList(monitors: [info])),
        Op.monitorOpen: FakeService.success(info),
        Op.monitorClose: FakeService.success(info),
        Op.monitorAdd: FakeService.success(record),
        Op.monitorRemove: FakeService.success(RemovedCondition(monitor: "lunch", identifier: "macs", recordsRemoved: 3)),
        Op.monitorIdentifiers: FakeService.success(MonitorIdentifiers(monitor: "lunch", identifiers: ["macs"])),
        Op.monitorRecord: FakeService.success(record),
        Op.nearestGet: FakeService.success(NearestAnswer(deviceId: "phone-1", beacon: BeaconIdentity(uuid: uuid, major: 1, minor: 1), proximity: .near,
                                                         cafeId: "caffe-macs", stationId: "grill", cafesByDistance: ["caffe-macs", "macs-coffee"], date: at)),
        Op.locationConfirm: FakeService.success(LocationConfirmation(deviceId: "phone-1", code: "https://cafe.example/c/macs", result: .yes)),
    ]

    /// A command line, the op it must send and the body it must carry.
    struct Case: Sendable, CustomStringConvertible {
        let arguments: [String]
        let op: String
        let body: Data

        init<Body: Encodable>(_ arguments: [String], _ op: String, _ body: Body) {
            self.arguments = arguments
            self.op = op
            self.body = Wire.encode(body)
        }

        var description: String { arguments.joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(["monitor", "list"], Op.monitorList, Empty()),
        Case(["monitor", "open", "lunch", "--owner", "app-1"], Op.monitorOpen, MonitorOwnership(monitor: "lunch", owner: "app-1")),
        Case(["monitor", "close", "lunch", "--owner", "app-1"], Op.monitorClose, MonitorOwnership(monitor: "lunch", owner: "app-1")),
        Case(["monitor", "add", "lunch", "macs", "--owner", "app-1", "--beacon", "\(uuid)/1", "--exit-seconds", "15", "--assume", "unsatisfied"],
             Op.monitorAdd, AddCondition(monitor: "lunch", owner: "app-1", identifier: "macs",
                                         condition: .beacon(uuid: uuid, major: 1, minor: nil, exitTimeout: 15), assuming: .unsatisfied)),
        Case(["monitor", "add", "lunch", "grill", "--owner", "app-1", "--beacon", "\(uuid)/1/1", "--device", "phone-1"],
             Op.monitorAdd, AddCondition(monitor: "lunch", owner: "app-1", identifier: "grill",
                                         condition: .beacon(uuid: uuid, major: 1, minor: 1), deviceId: "phone-1")),
        Case(["monitor", "add", "lunch", "company", "--owner", "app-1", "--beacon", uuid],
             Op.monitorAdd, AddCondition(monitor: "lunch", owner: "app-1", identifier: "company", condition: .beacon(uuid: uuid, major: nil, minor: nil))),
        Case(["monitor", "add", "lunch", "door", "--owner", "app-1", "--circle", "37.3349,-122.009,120", "--hysteresis", "10", "--dwell", "5"],
             Op.monitorAdd, AddCondition(monitor: "lunch", owner: "app-1", identifier: "door",
                                         condition: .circle(latitude: 37.3349, longitude: -122.009, radius: 120, hysteresis: 10, dwell: 5))),
        Case(["monitor", "remove", "lunch", "macs", "--owner", "app-1"], Op.monitorRemove, RemoveCondition(monitor: "lunch", owner: "app-1", identifier: "macs")),
        Case(["monitor", "identifiers", "lunch"], Op.monitorIdentifiers, MonitorQuery(monitor: "lunch")),
        Case(["monitor", "record", "lunch", "macs"], Op.monitorRecord, RecordQuery(monitor: "lunch", identifier: "macs", deviceId: nil)),
        Case(["monitor", "record", "campus", "caffe-macs", "--device", "phone-1"], Op.monitorRecord,
             RecordQuery(monitor: "campus", identifier: "caffe-macs", deviceId: "phone-1")),
        Case(["nearest", "phone-1"], Op.nearestGet, DeviceQuery(deviceId: "phone-1")),
        Case(["location", "confirm", "phone-1", "--code", "https://cafe.example/c/macs", "--cafe", "caffe-macs", "--at", "2026-11-21T12:30:00Z"],
             Op.locationConfirm, ConfirmLocation(deviceId: "phone-1", code: "https://cafe.example/c/macs", acquiredAt: at, cafeId: "caffe-macs")),
        Case(["location", "confirm", "phone-1", "--code", "https://cafe.example/c/macs", "--circle", "37.3349,-122.009,120", "--at", "2026-11-21T12:30:00Z"],
             Op.locationConfirm, ConfirmLocation(deviceId: "phone-1", code: "https://cafe.example/c/macs", acquiredAt: at,
                                                 region: ConfirmRegion(latitude: 37.3349, longitude: -122.009, radius: 120))),
    ]

    static func cafectl(_ arguments: [String], region: String) throws -> CommandResult {
        try runCommand(try Platform.binaryDirectory().appendingPathComponent("cafectl"), arguments + ["--region", region, "--timeout-ms", "3000"],
                       environment: environmentWithoutCafeVariables())
    }

    static func json(_ data: Data) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: data) as? NSDictionary)
    }

    @Test("each command sends its op with the body its words and flags describe, and prints the answer", arguments: cases)
    func request(_ example: Case) throws {
        let fake = FakeService(replies: Self.replies)
        defer { fake.stop() }
        let result = try Self.cafectl(example.arguments, region: try fake.start())
        #expect(result.status == 0, "\(result.err)")
        let frame = try #require(fake.requests.first)
        #expect(fake.requests.count == 1)
        let request = try Self.json(frame)
        #expect(request["op"] as? String == example.op)
        #expect(request["body"] as? NSDictionary == (try Self.json(example.body)), "\(String(decoding: frame, as: UTF8.self))")
        // What it printed is the reply's body.
        let printed = try Self.json(Data(result.out.utf8))
        let reply = try Self.json(try #require(Self.replies[example.op]))
        #expect(printed == reply["body"] as? NSDictionary)
    }

    @Test("location confirm without --at asks about now")
    func confirmNow() throws {
        let fake = FakeService(replies: Self.replies)
        defer { fake.stop() }
        let before = Timestamp(Date())
        let result = try Self.cafectl(["location", "confirm", "phone-1", "--code", "https://cafe.example/c/macs", "--cafe", "caffe-macs"], region: try fake.start())
        #expect(result.status == 0, "\(result.err)")
        let request = try Wire.decodeRequest(try #require(fake.requests.first), body: ConfirmLocation.self)
        #expect(request.body.acquiredAt >= before && request.body.acquiredAt <= Timestamp(Date()))
    }

    @Test("a refusal prints code: message on stderr and exits 1")
    func refusal() throws {
        let fake = FakeService(replies: [
            Op.monitorOpen: Wire.encode(Reply<Empty>.failure(ServiceError(.monitorOwned, "monitor lunch is open by app-2"))),
        ])
        defer { fake.stop() }
        let result = try Self.cafectl(["monitor", "open", "lunch", "--owner", "app-1"], region: try fake.start())
        #expect(result.status == 1)
        #expect(result.out == "")
        #expect(result.err == "cafectl: monitor.owned: monitor lunch is open by app-2\n")
    }

    @Test("argument mistakes exit 2 with one line and send nothing", arguments: [
        (["monitor", "add", "lunch", "macs", "--owner", "app-1"], "give one of --beacon"),
        (["monitor", "add", "lunch", "macs", "--owner", "app-1", "--beacon", uuid, "--circle", "1,2,3"], "give one of --beacon"),
        (["monitor", "add", "lunch", "macs", "--owner", "app-1", "--beacon", "\(uuid)/one"], "--beacon is"),
        (["monitor", "add", "lunch", "macs", "--owner", "app-1", "--beacon", "\(uuid)/1/2/3"], "--beacon is"),
        (["monitor", "add", "lunch", "macs", "--owner", "app-1", "--beacon", uuid, "--dwell", "5"], "--dwell does not apply to a beacon condition"),
        (["monitor", "add", "lunch", "door", "--owner", "app-1", "--circle", "37.3,-122.0"], "--circle is"),
        (["monitor", "add", "lunch", "door", "--owner", "app-1", "--circle", "37.3,-122.0,60", "--exit-seconds", "5"], "--exit-seconds does not apply"),
        (["monitor", "add", "lunch", "door", "--owner", "app-1", "--circle", "37.3,-122.0,60", "--assume", "maybe"], "--assume must be one of"),
        (["monitor", "add", "lunch", "door", "--beacon", uuid], "missing --owner"),
        (["monitor", "open", "lunch"], "missing --owner"),
        (["monitor", "remove", "lunch", "--owner", "app-1"], "usage: cafectl monitor remove"),
        (["monitor", "identifiers"], "usage: cafectl monitor identifiers <name>"),
        (["monitor", "record", "lunch"], "usage: cafectl monitor record"),
        (["monitor", "record", "lunch", "macs", "--devcie", "phone-1"], "unknown flag --devcie"),
        (["nearest"], "usage: cafectl nearest <device>"),
        (["location", "confirm", "phone-1", "--code", "c"], "give one of --cafe"),
        (["location", "confirm", "phone-1", "--code", "c", "--cafe", "x", "--circle", "1,2,3"], "give one of --cafe"),
        (["location", "confirm", "phone-1", "--cafe", "x"], "missing --code"),
        (["location", "confirm", "phone-1", "--code", "c", "--cafe", "x", "--at", "noon"], "--at must be RFC 3339"),
    ] as [([String], String)])
    func usage(_ arguments: [String], _ expected: String) throws {
        let fake = FakeService(replies: Self.replies)
        defer { fake.stop() }
        let result = try Self.cafectl(arguments, region: try fake.start())
        #expect(result.status == 2)
        #expect(result.err.hasPrefix("cafectl: ") && result.err.contains(expected) && result.err.filter { $0 == "\n" }.count == 1, "\(result.err)")
        #expect(fake.requests.isEmpty)
    }
}
