import Foundation
import ServiceRuntime
import Testing

/// Typed options: every count, duration, rate and list is checked where it is read, at start.
@Suite("Option kinds")
struct OptionKindsTests {
    static let exitSeconds = Option.seconds("exit-seconds", default: 30, help: "exit timeout")
    static let shards = Option.count("shards", 1...64, default: 1, help: "shards")
    static let regionEndpoints = Option.endpoints("region-endpoints", default: ["tcp://127.0.0.1:7420"], help: "one per shard")
    static let specs = [
        exitSeconds.spec,
        Option.seconds("dwell-seconds", .nonNegative, default: 0, help: "dwell").spec,
        shards.spec,
        Option.rate("rate", default: 1000, help: "sightings per second").spec,
        Option.measure("hysteresis", OptionSpec.Bounds(lower: 0, upper: 1_000), default: 20, help: "metres").spec,
        regionEndpoints.spec,
        Option<String>("instance", .token, default: "region-monitor", help: "instance name").spec,
    ]

    func parse(_ arguments: [String], _ environment: [String: String] = [:]) throws -> Configuration {
        try Configuration(program: "region-monitor", specs: Self.specs, arguments: arguments, environment: environment)
    }

    @Test("defaults declared as numbers print as an operator types them")
    func defaults() throws {
        let config = try parse([])
        #expect(Self.specs[0].defaultValue == "30")
        #expect(OptionSpec.seconds("tick", default: 0.5, help: "").defaultValue == "0.5")
        #expect(config[Self.exitSeconds] == 30)
        #expect(config[Self.shards] == 1)
        #expect(config[Self.regionEndpoints] == ["tcp://127.0.0.1:7420"])
        let help = Configuration.helpText(program: "region-monitor", summary: "s", specs: Self.specs)
        #expect(help.contains("  --exit-seconds <seconds>"))
        #expect(help.contains("  --region-endpoints <endpoint,endpoint…>"))
    }

    @Test("values in range are taken", arguments: [
        ["--exit-seconds", "0.25"], ["--dwell-seconds", "0"], ["--shards", "64"], ["--rate=0.5"], ["--hysteresis", "1000"],
        ["--region-endpoints", "tcp://a:1, ipc:///tmp/b"], ["--instance", "region-monitor-s1"],
    ])
    func accepted(_ arguments: [String]) throws {
        _ = try parse(arguments)
    }

    @Test("values out of range or of the wrong kind exit with one line naming the flag", arguments: [
        (["--exit-seconds", "0"], "region-monitor: --exit-seconds must be a number of seconds more than 0, not \"0\""),
        (["--exit-seconds", "-5"], "region-monitor: --exit-seconds must be a number of seconds more than 0, not \"-5\""),
        (["--exit-seconds", "inf"], "region-monitor: --exit-seconds must be a number of seconds more than 0, not \"inf\""),
        (["--dwell-seconds", "nan"], "region-monitor: --dwell-seconds must be a number of seconds ≥ 0, not \"nan\""),
        (["--shards", "0"], "region-monitor: --shards must be a whole number 1…64, not \"0\""),
        (["--shards", "9223372036854775808"], "region-monitor: --shards must be a whole number 1…64, not \"9223372036854775808\""),
        (["--rate", "0"], "region-monitor: --rate must be a rate per second more than 0, not \"0\""),
        (["--hysteresis", "1001"], "region-monitor: --hysteresis must be a number ≥ 0 and at most 1000, not \"1001\""),
        (["--region-endpoints", " , "], "region-monitor: --region-endpoints must be ZeroMQ endpoints separated by commas, not \" , \""),
        (["--region-endpoints", "tcp://a:1,localhost:2"], "region-monitor: --region-endpoints must be ZeroMQ endpoints separated by commas, not \"tcp://a:1,localhost:2\""),
        (["--instance", "a/b"], "region-monitor: --instance must be 1–64 letters, digits, -, _ or ., not \"a/b\""),
    ] as [([String], String)])
    func refused(arguments: [String], message: String) {
        let error = #expect(throws: ConfigurationError.self) { try parse(arguments) }
        #expect(error?.message == message)
    }

    @Test("a long bad value is quoted cut, with its length")
    func longValueQuotedCut() {
        let long = String(repeating: "x", count: 500)
        let error = #expect(throws: ConfigurationError.self) { try parse(["--instance", long]) }
        #expect(error?.message == "region-monitor: --instance must be 1–64 letters, digits, -, _ or ., not \"\(String(repeating: "x", count: 64))\"… (500 characters)")
    }

    @Test("one tokenizer: values, =, booleans, switches, -- and help", arguments: [
        (["a", "--x", "1", "--y=2", "--", "--z"], ["x=1", "y=2"], ["a", "--z"], false),
        (["--pretty", "order.", "--x", "1"], ["pretty=true", "x=1"], ["order."], false),
        (["--verbose", "no", "--help"], ["verbose=no"], [], true),
        (["--verbose", "--x", "1"], ["verbose=true", "x=1"], [], false),
        (["-h", "--x", "1", "--x", "2"], ["x=1", "x=2"], [], true),
    ] as [([String], [String], [String], Bool)])
    func tokens(arguments: [String], flags: [String], words: [String], help: Bool) throws {
        let tokens = try CommandLineTokens(arguments) { name in
            switch name {
            case "pretty": .switchOnly
            case "verbose": .boolean
            default: .value
            }
        }
        #expect(tokens.flags.map { "\($0.name)=\($0.value)" } == flags)
        #expect(tokens.words == words)
        #expect(tokens.helpRequested == help)
    }
}
