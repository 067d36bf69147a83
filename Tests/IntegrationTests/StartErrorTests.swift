import Foundation
import Testing

/// Every line a service process writes to stderr is one JSON object, start errors included, with
/// the exit codes operators script against (2 bad options, 1 any other start failure); `--help`
/// stays plain text on stdout. A missing or unreadable campus catalog stops every service that
/// needs one.
@Suite("Start errors of the real executables")
struct StartErrorTests {
    static let executables = ["bus"] + Platform.services

    /// Each line of `text` as a JSON object; records an issue for any that is not one.
    static func jsonLines(_ text: String, _ context: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                Issue.record("\(context): not a JSON object: \(line)")
                return nil
            }
            return object
        }
    }

    @Test("a bad flag or value: exit 2 and one JSON line naming the service, nothing on stdout", arguments: executables)
    func badOption(executable: String) throws {
        let bin = try Platform.binaryDirectory()
        for args in [["--no-such-flag", "1"], ["--log-level", "loud"]] {
            let result = try runCommand(bin.appendingPathComponent(executable), args, environment: environmentWithoutCafeVariables())
            #expect(result.status == 2, "\(executable) \(args)")
            #expect(result.out.isEmpty)
            let lines = Self.jsonLines(result.err, "\(executable) \(args)")
            #expect(lines.count == 1)
            #expect(lines.first?["level"] as? String == "error" && lines.first?["service"] as? String == executable, "\(result.err)")
            #expect((lines.first?["error"] as? String)?.contains(args[0]) == true, "the reason names the flag: \(result.err)")
        }
    }

    @Test("--help is plain text on stdout, exit 0, nothing on stderr", arguments: executables)
    func help(executable: String) throws {
        let result = try runCommand(try Platform.binaryDirectory().appendingPathComponent(executable), ["--help"], environment: environmentWithoutCafeVariables())
        #expect(result.status == 0)
        #expect(result.err.isEmpty, "\(result.err)")
        #expect(result.out.hasPrefix("\(executable):") && result.out.contains("--log-level"), "\(result.out.prefix(200))")
    }

    @Test("a setting the service refuses: exit 2, the refusal's exact text in the line's error field")
    func settingsRefusal() throws {
        let result = try runCommand(try Platform.binaryDirectory().appendingPathComponent("region-monitor"), ["--shard", "3"],
                                    environment: environmentWithoutCafeVariables())
        #expect(result.status == 2)
        let line = try #require(Self.jsonLines(result.err, "region-monitor --shard 3").first)
        #expect(line["error"] as? String == "--shard must be empty or 0…0, not \"3\"")
        #expect(line["msg"] as? String == "invalid configuration")
    }

    @Test("a missing or unreadable campus catalog stops each service that needs one: exit 1, one JSON line naming the file",
          arguments: ["order-service", "region-monitor", "notification-service"])
    func catalogRequired(service: String) throws {
        let platform = try Platform()
        defer { platform.stop() }
        let missing = platform.root.appendingPathComponent("no-such-campus.json").path
        // A folder where the file should be: it exists but cannot be read as one.
        let unreadable = platform.root.appendingPathComponent("campus-folder.json").path
        try FileManager.default.createDirectory(atPath: unreadable, withIntermediateDirectories: true)
        for path in [missing, unreadable] {
            var arguments = platform.arguments(for: service)
            arguments += ["--campus", path]
            let result = try runCommand(platform.bin.appendingPathComponent(service), arguments, environment: environmentWithoutCafeVariables())
            #expect(result.status == 1, "\(service) --campus \(path): \(result.err)")
            let lines = Self.jsonLines(result.err, service).filter { $0["level"] as? String == "error" }
            #expect(lines.count == 1, "\(result.err)")
            #expect(lines.first?["service"] as? String == service)
            #expect(lines.first?["error"] as? String == "campus catalog: \(path): cannot read the file", "\(result.err)")
        }
    }

    @Test("any other start failure (the request port taken): exit 1 with one JSON error line")
    func otherStartFailure() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.start(busAnd: ["beacon-ingest"])
        // A second beacon-ingest on the same request endpoint cannot bind it.
        var arguments = platform.arguments(for: "beacon-ingest")
        arguments += ["--data-dir", platform.root.appendingPathComponent("second").path]
        let result = try runCommand(platform.bin.appendingPathComponent("beacon-ingest"), arguments, environment: environmentWithoutCafeVariables())
        #expect(result.status == 1)
        let errors = Self.jsonLines(result.err, "second beacon-ingest").filter { $0["level"] as? String == "error" }
        #expect(errors.count == 1 && errors.first?["msg"] as? String == "start failed", "\(result.err)")
    }

    @Test("a whole run, start to SIGTERM: every line each service wrote is a JSON object with its level and service")
    func everyLineIsJSON() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        for executable in Platform.services + ["bus"] {
            #expect(platform.terminate(executable)?.status == 0, "\(executable)")
            let lines = Self.jsonLines(platform.log(executable), executable)
            #expect(lines.count >= 2, "\(executable): started and stopped")
            #expect(lines.allSatisfy { $0["level"] is String && $0["service"] as? String == executable && $0["msg"] is String }, "\(executable)")
        }
    }
}
