import Campus
import Foundation
import Messages
import ServiceRuntime
import Testing

/// `cafectl walk` against a real beacon-ingest (shard 0 of 2, behind a real bus): every walk
/// second goes out as one report at its own time, and the summary counts what the replies said.
@Suite(.serialized)
struct CafectlWalkTests {
    static let speed = 50.0
    static let campus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy/campus.json").path

    /// A bus and beacon-ingest serving shard 0 of 2; returns the ingest endpoint.
    static func startIngest(_ children: ChildProcesses) throws -> String {
        let endpoints = try LoopbackPorts.free(5).map { "tcp://127.0.0.1:\($0)" }
        let (xsub, xpub, bus, ingest, fixes) = (endpoints[0], endpoints[1], endpoints[2], endpoints[3], endpoints[4])
        try children.start("bus", executable: "bus", arguments: ["--xsub", xsub, "--xpub", xpub, "--listen", bus])
        // Fixes go to a port nobody listens on, never to a region-monitor that may run on this
        // machine's default one (set through the environment, which a build without the option ignores).
        try children.start("beacon-ingest", executable: "beacon-ingest",
                           arguments: ["--listen", ingest, "--bus-pub", xsub, "--bus-sub", xpub, "--data-dir", try children.folder("ingest").path,
                                       "--shards", "2", "--shard", "0"],
                           environment: environmentWithoutCafeVariables().merging(["CAFE_FIX_ENDPOINTS": fixes]) { $1 })
        try children.waitHealthy("bus", endpoint: bus)
        try children.waitHealthy("beacon-ingest", endpoint: ingest)
        return ingest
    }

    static func walk(device: String, ingest: String) throws -> (result: CommandResult, seconds: Double) {
        let started = Date()
        let result = try runCommand(try Platform.binaryDirectory().appendingPathComponent("cafectl"),
                                    ["walk", "--device", device, "--seed", "7", "--speed", "\(Int(speed))", "--campus", campus, "--ingest", ingest],
                                    environment: environmentWithoutCafeVariables(), timeout: 60)
        return (result, Date().timeIntervalSince(started))
    }

    @Test("a walk at 50× sends one report per walk second, paced, and every reading and fix is accepted")
    func walk() throws {
        let children = try ChildProcesses()
        defer { children.stop() }
        let ingest = try Self.startIngest(children)
        #expect(Topic.shard(of: "phone-2", count: 2) == 0)

        let (result, seconds) = try Self.walk(device: "phone-2", ingest: ingest)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.err == "")
        let expected = try CampusWalk(catalog: try CampusCatalog.load(path: Self.campus), seed: 7).steps(start: Timestamp(Date()))
        let sightings = expected.reduce(0) { $0 + $1.sightings.count }
        #expect(sightings > 100)
        // The last report is due (duration - 1) / speed after the first: the walk waits for it.
        #expect(seconds >= Double(expected.count - 1) / Self.speed, "\(seconds) s")

        let lines = result.out.split(separator: "\n").map(String.init)
        let summary = try #require(lines.last)
        #expect(summary.hasPrefix("walk: \(expected.count) reports sent in "), "\(summary)")
        #expect(summary.hasSuffix("s; sightings \(sightings) accepted, 0 rejected; fixes \(expected.count) accepted, 0 rejected"), "\(summary)")
        for place in ["walking to caffe-macs", "at the caffe-macs counter", "walking to macs-coffee", "at the macs-coffee counter",
                      "walking away from macs-coffee", "200 m past macs-coffee"] {
            #expect(lines.contains { $0.contains(place) }, "no progress line says \(place)")
        }
        #expect(lines.contains { $0.hasPrefix("t=133 s  -1.0 m  at the caffe-macs counter  hears 1/1 ") })
    }

    @Test("a report beacon-ingest refuses ends the walk with its code and exit 1")
    func refused() throws {
        let children = try ChildProcesses()
        defer { children.stop() }
        let ingest = try Self.startIngest(children)
        #expect(Topic.shard(of: "phone-1", count: 2) == 1)

        let (result, _) = try Self.walk(device: "phone-1", ingest: ingest)
        #expect(result.status == 1)
        #expect(result.err.hasPrefix("cafectl: ingest.wrongShard: device phone-1 belongs to shard 1 of 2"), "\(result.err)")
        #expect(!result.out.contains("reports sent"))
    }

    @Test("argument mistakes exit 2 with one line, before any report", arguments: [
        (["walk"], "missing --device"),
        (["walk", "--device", "phone-2", "--speed", "-2"], "--speed must be a number above 0"),
        (["walk", "--device", "phone-2", "--seed", "x"], "--seed must be a whole number"),
        (["walk", "--device", "phone-2", "--campus", campus, "--to", "macs-park"], "no café has id \"macs-park\""),
        (["walk", "--device", "phone-2", "--campus", "/nonexistent/campus.json"], "/nonexistent/campus.json: cannot read the file"),
        (["walk", "--device", "phone-2", "--campus", campus, "--pace", "2"], "unknown flag --pace"),
    ] as [([String], String)])
    func usage(_ arguments: [String], _ expected: String) throws {
        // Nothing listens here: a report would wait for the timeout and fail with exit 1.
        let result = try runCommand(try Platform.binaryDirectory().appendingPathComponent("cafectl"),
                                    arguments + ["--ingest", "tcp://127.0.0.1:\(try LoopbackPorts.free(1)[0])", "--timeout-ms", "500"],
                                    environment: environmentWithoutCafeVariables())
        #expect(result.status == 2)
        #expect(result.err.hasPrefix("cafectl: ") && result.err.contains(expected) && result.err.filter { $0 == "\n" }.count == 1, "\(result.err)")
        #expect(result.out == "")
    }
}
