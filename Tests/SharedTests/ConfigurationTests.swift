import Foundation
import ServiceRuntime
import Testing

@Suite("Configuration")
struct ConfigurationTests {
    // Each kind once, `.integer` and `.number` among them, read as typed options.
    static let listen = Option<String>("listen", .endpoint, default: "tcp://127.0.0.1:7430", help: "where requests are answered")
    static let workers = Option<Int>(OptionSpec("workers", .integer, default: "4", help: "worker count")) { Int($0) ?? -1 }
    static let ratio = Option<Double>(OptionSpec("ratio", .number, default: "0.5", help: "a fraction")) { Double($0) ?? -1 }
    static let days = Option<Int>(OptionSpec("days", .integer, default: "30", range: 1...3650, help: "days kept")) { Int($0) ?? -1 }
    static let verbose = Option.flag("verbose", default: false, help: "say more")
    static let logLevel = Option<String>("log-level", .choice(["debug", "info", "warning", "error"]), default: "info", help: "least important level logged")
    static let dataDir = Option<String>("data-dir", .path, default: "data", help: "database folder")
    static let advertise = Option<String>("advertise", .string, default: "", help: "endpoint others dial")
    static let specs = [listen.spec, workers.spec, ratio.spec, days.spec, verbose.spec, logLevel.spec, dataDir.spec, advertise.spec]

    func parse(_ arguments: [String], _ environment: [String: String] = [:], allowPositional: Bool = false) throws -> Configuration {
        try Configuration(program: "order-service", specs: Self.specs, arguments: arguments, environment: environment, allowPositional: allowPositional)
    }

    @Test("a flag beats the environment, which beats the default", arguments: [
        ([], [:], "4", "default"),
        ([], ["CAFE_WORKERS": "8"], "8", "environment"),
        (["--workers", "16"], ["CAFE_WORKERS": "8"], "16", "flag"),
        (["--workers=32"], ["CAFE_WORKERS": "8"], "32", "flag"),
        (["--workers", "16"], [:], "16", "flag"),
    ] as [([String], [String: String], String, String)])
    func precedence(arguments: [String], environment: [String: String], value: String, source: String) throws {
        let config = try parse(arguments, environment)
        #expect(config[Self.workers] == Int(value))
        #expect(config.sources["workers"] == source)
        #expect(config.isSet(Self.workers) == (source != "default"))
        #expect(config.changedValues["workers"] == (source == "default" ? nil : "\(value) (\(source))"))
    }

    @Test("environment names are CAFE_ plus the flag in upper case with underscores", arguments: [
        ("listen", "CAFE_LISTEN"), ("log-level", "CAFE_LOG_LEVEL"), ("data-dir", "CAFE_DATA_DIR"), ("bus-pub", "CAFE_BUS_PUB"),
    ])
    func environmentNames(flag: String, environment: String) {
        #expect(OptionSpec(flag, default: "", help: "").environmentName == environment)
    }

    @Test("typed readers and flag forms")
    func typedValues() throws {
        let config = try parse(["--verbose", "--ratio", "0.25", "--log-level=debug"], ["CAFE_DATA_DIR": "/var/lib/cafe"])
        #expect(config[Self.verbose])
        #expect(config[Self.ratio] == 0.25)
        #expect(config[Self.logLevel] == "debug")
        #expect(config[Self.dataDir] == "/var/lib/cafe")
        #expect(config[Self.advertise] == "")
        #expect(config[Self.listen] == "tcp://127.0.0.1:7430")
        #expect(config[Self.days] == 30 && Self.days.defaultValue == 30)
        #expect(try parse(["--verbose=false"])[Self.verbose] == false)
        #expect(try parse(["--verbose", "--workers", "2"])[Self.verbose], "a bare flag before another flag means true")
        #expect(try parse(["--verbose", "no"])[Self.verbose] == false)
        #expect(try parse([], ["CAFE_VERBOSE": "yes"])[Self.verbose])
    }

    @Test("positional arguments are kept only where the program takes them")
    func positional() throws {
        let config = try parse(["tail", "--workers", "2", "order.", "--", "--not-a-flag"], allowPositional: true)
        #expect(config.positional == ["tail", "order.", "--not-a-flag"])
        #expect(config[Self.workers] == 2)
        let error = #expect(throws: ConfigurationError.self) { try parse(["tail"]) }
        #expect(error?.message == "order-service: unexpected argument \"tail\" (see --help)")
    }

    @Test("unknown flags and bad values are ConfigurationErrors naming the flag or variable", arguments: [
        (["--nope"], [:], "order-service: unknown flag --nope (see --help)"),
        (["--nope=1"], [:], "order-service: unknown flag --nope (see --help)"),
        (["--workers", "many"], [:], "order-service: --workers must be a whole number ≥ 0, not \"many\""),
        ([], ["CAFE_WORKERS": "many"], "order-service: CAFE_WORKERS must be a whole number ≥ 0, not \"many\""),
        (["--workers", "-2"], [:], "order-service: --workers must be a whole number ≥ 0, not \"-2\""),
        (["--days", "0"], [:], "order-service: --days must be a whole number 1…3650, not \"0\""),
        ([], ["CAFE_DAYS": "3651"], "order-service: CAFE_DAYS must be a whole number 1…3650, not \"3651\""),
        (["--ratio=half"], [:], "order-service: --ratio must be a number ≥ 0, not \"half\""),
        (["--ratio=-0.5"], [:], "order-service: --ratio must be a number ≥ 0, not \"-0.5\""),
        (["--ratio=nan"], [:], "order-service: --ratio must be a number ≥ 0, not \"nan\""),
        (["--verbose", "maybe"], [:], "order-service: --verbose must be true or false, not \"maybe\""),
        (["--log-level", "loud"], [:], "order-service: --log-level must be one of debug, info, warning, error, not \"loud\""),
        (["--listen", "localhost:7430"], [:], "order-service: --listen must be a ZeroMQ endpoint like tcp://127.0.0.1:7401, not \"localhost:7430\""),
        ([], ["CAFE_LISTEN": "tcp://"], "order-service: CAFE_LISTEN must be a ZeroMQ endpoint like tcp://127.0.0.1:7401, not \"tcp://\""),
        (["--data-dir="], [:], "order-service: --data-dir must not be empty"),
        (["--workers"], [:], "order-service: flag --workers needs a value"),
    ] as [([String], [String: String], String)])
    func errors(arguments: [String], environment: [String: String], message: String) {
        let error = #expect(throws: ConfigurationError.self) { try parse(arguments, environment) }
        #expect(error?.message == message)
        #expect(error?.description == message)
    }

    @Test("--help and -h ask for help wherever they appear", arguments: [["--help"], ["-h"], ["--workers", "3", "--help"]])
    func help(_ arguments: [String]) {
        #expect(throws: HelpRequested.self) { try parse(arguments) }
    }

    @Test("the help text lists every option with its environment variable and default")
    func helpText() {
        let text = Configuration.helpText(program: "order-service", summary: "orders and pickup windows", specs: Self.specs)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "order-service: orders and pickup windows")
        #expect(lines.contains("usage: order-service [options]"))
        for spec in Self.specs {
            let shown = spec.defaultValue.isEmpty ? "(none)" : spec.defaultValue
            guard let flagLine = lines.firstIndex(where: { $0.hasPrefix("  --\(spec.name) ") }) else {
                Issue.record("help lacks --\(spec.name)")
                continue
            }
            #expect(lines[flagLine + 1].trimmingCharacters(in: .whitespaces) == spec.help)
            #expect(lines[flagLine + 2].trimmingCharacters(in: .whitespaces) == "env \(spec.environmentName), default \(shown)")
        }
        #expect(lines.contains("  --log-level <debug|info|warning|error>"))
        #expect(lines.contains("  --workers <integer>"))
        #expect(lines.contains("  --help"))
    }

    @Test("the options every service shares are documented and parse with their defaults")
    func commonSpecs() throws {
        let common = CommonOptions(service: "order-service", listenPort: 7430)
        let specs = common.specs
        let config = try Configuration(program: "order-service", specs: specs, arguments: [], environment: [:])
        #expect(config[common.listen] == "tcp://127.0.0.1:7430")
        #expect(config[common.instance] == "order-service")
        #expect(config[CommonOptions.maxMessageBytes] == 262_144)
        #expect(config.changedValues.isEmpty)
        let help = Configuration.helpText(program: "order-service", summary: "s", specs: specs)
        for spec in specs {
            #expect(help.contains("--\(spec.name) "))
            #expect(help.contains("env \(spec.environmentName), default "))
        }
    }
}
