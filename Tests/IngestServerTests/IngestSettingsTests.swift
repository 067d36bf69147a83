import BeaconIngestServer
import ServiceRuntime
import Testing

/// beacon-ingest's options: the defaults `--help` shows, and the mistakes that stop it with one
/// line and exit 2 before it opens a socket.
@Suite
struct IngestSettingsTests {
    static func settings(_ arguments: [String]) throws -> IngestSettings {
        try IngestSettings(config: Configuration(program: "beacon-ingest", specs: IngestSettings.specs, arguments: arguments, environment: [:]))
    }

    @Test("no options: one shard, every shard served, region-monitor's default fix endpoint, a 10 s smoothing window")
    func defaults() throws {
        let settings = try Self.settings([])
        #expect(settings == IngestSettings())
        #expect(settings.shards == 1 && settings.ownedShard == nil && settings.fixEndpoints == ["tcp://127.0.0.1:7425"] && settings.smoothingWindowSeconds == 10)
        let shown = Dictionary(uniqueKeysWithValues: IngestSettings.specs.map { ($0.name, $0.defaultValue) })
        #expect(shown["shards"] == "1" && shown["shard"] == "" && shown["fix-endpoints"] == "tcp://127.0.0.1:7425" && shown["smoothing-window-seconds"] == "10")
        // A sighting batch is bounded by what the bus and region-monitor accept by default.
        #expect(settings.sightingBatchBytes == 262_144 && shown["sighting-batch-bytes"] == "262144")
        #expect(try Self.settings(["--sighting-batch-bytes", "4096"]).sightingBatchBytes == 4_096)
        #expect(throws: ConfigurationError.self) { try Self.settings(["--sighting-batch-bytes", "512"]) }
    }

    @Test("options as given: a shard of several, one fix endpoint per shard, a short window")
    func given() throws {
        let settings = try Self.settings(["--shards", "2", "--shard", "1", "--fix-endpoints", "tcp://a:1, tcp://b:2", "--smoothing-window-seconds", "0.5"])
        #expect(settings.shards == 2 && settings.ownedShard == 1 && settings.fixEndpoints == ["tcp://a:1", "tcp://b:2"] && settings.smoothingWindowSeconds == 0.5)
    }

    @Test("values of the wrong kind or out of range are refused while the options are read", arguments: [
        (["--smoothing-window-seconds", "0"], #"beacon-ingest: --smoothing-window-seconds must be a number of seconds more than 0, not "0""#),
        (["--shards", "0"], #"beacon-ingest: --shards must be a whole number 1…256, not "0""#),
        (["--fix-endpoints", " , "], #"beacon-ingest: --fix-endpoints must be ZeroMQ endpoints separated by commas, not " , ""#),
    ])
    func refusedByKind(arguments: [String], line: String) throws {
        let error = #expect(throws: ConfigurationError.self) { try Self.settings(arguments) }
        #expect(error?.description == line)
    }

    @Test("options that do not fit together are refused with the one line main prints", arguments: [
        (["--shards", "2", "--shard", "2"], #"beacon-ingest: --shard must be empty or 0…1, not "2""#),
        (["--shard", "x"], #"beacon-ingest: --shard must be empty or 0…0, not "x""#),
        (["--shards", "3", "--fix-endpoints", "tcp://a:1,tcp://b:2"], "beacon-ingest: --fix-endpoints must name one endpoint, or one per shard (3), not 2"),
    ])
    func refused(arguments: [String], line: String) throws {
        let error = #expect(throws: IngestSettings.Invalid.self) { try Self.settings(arguments) }
        #expect(error?.description == line)
    }
}
