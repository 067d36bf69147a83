import Foundation
import LoadTestKit
import Messages
import ServiceRuntime
import Testing
import ZeroMQ

/// The operator tools against a running platform: `cafectl tail` shows every message as one JSON
/// line, and `load-test` drives the scenario once and reports what it measured.
@Suite(.serialized)
struct OperatorToolTests {
    @Test("cafectl tail \"\" prints one JSON line per message, and load-test measures the scenario")
    func tailAndLoadTest() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()

        let tail = Process()
        tail.executableURL = platform.bin.appendingPathComponent("cafectl")
        tail.arguments = ["tail", "", "--bus-sub", platform.busSub]
        let out = platform.root.appendingPathComponent("tail.out")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        tail.standardOutput = try FileHandle(forWritingTo: out)
        tail.standardError = try FileHandle(forWritingTo: platform.root.appendingPathComponent("tail.err").creatingEmptyFile())
        try tail.run()
        defer { if tail.isRunning { kill(tail.processIdentifier, SIGKILL) } }
        // Its subscription is live once it prints the first message (every service heartbeats each second).
        func printed() -> String { (try? String(contentsOf: out, encoding: .utf8)) ?? "" }
        _ = try eventually("cafectl tail printing the bus") { printed().contains("\"topic\":\"heartbeat.") ? true : nil }

        let load = Process()
        load.executableURL = platform.bin.appendingPathComponent("load-test")
        let json = platform.root.appendingPathComponent("load.json")
        load.arguments = ["--ingest", platform.endpoint("beacon-ingest"), "--orders", platform.endpoint("order-service"),
                          "--kitchen", platform.endpoint("kitchen-display"), "--notify", platform.endpoint("notification-service"),
                          "--bus-sub", platform.busSub, "--campus", platform.campus, "--json", json.path]
        load.standardOutput = FileHandle.nullDevice
        load.standardError = FileHandle.nullDevice
        try load.run()
        load.waitUntilExit()
        #expect(load.terminationStatus == 0)
        let measured = try JSONDecoder().decode([ScenarioDriver.Measurement].self, from: Data(contentsOf: json))
        #expect(measured.contains { $0.step == "sighting → region event" && $0.milliseconds > 0 })
        #expect(measured.contains { $0.step == "order placed → ready notification" && $0.milliseconds > 0 })

        // Stopped once it has printed a message of each step load-test drove (the last ones may still be on their way).
        let expected = ["device.", "sighting.", "region.event.campus.", "region.nearest.", "order.placed.", "order.accepted.", "kitchen.bumped.",
                        "kitchen.ready.", "order.ready.", "notify.delivery.", "heartbeat."]
        _ = try? eventually("cafectl tail printing every step") { expected.allSatisfy { printed().contains("\"topic\":\"\($0)") } ? true : nil }
        kill(tail.processIdentifier, SIGINT)
        tail.waitUntilExit()
        #expect(tail.terminationStatus == 0)
        let lines = try String(contentsOf: out, encoding: .utf8).split(separator: "\n")
        var topics: [String] = []
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
            let topic = try #require(object["topic"] as? String)
            let envelope = try #require(object["envelope"] as? [String: Any])
            // What tail printed is the envelope as published: it decodes strictly.
            _ = try Wire.decodeEnvelope(try JSONSerialization.data(withJSONObject: envelope))
            topics.append(topic)
        }
        for prefix in expected {
            #expect(topics.contains { $0.hasPrefix(prefix) }, "tail showed no \(prefix) message")
        }
        let summary = try String(contentsOf: platform.root.appendingPathComponent("tail.err"), encoding: .utf8)
        #expect(summary.contains("tail: \(lines.count) messages"))
    }
}

extension URL {
    func creatingEmptyFile() -> URL {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        return self
    }
}
