import ServiceRuntime
import Testing

/// A tool's commands read their flags through the same typed options as the services: declared
/// once per command, refused when a command does not take them, repeated where it does.
@Suite("Command arguments")
struct CommandArgumentsTests {
    enum Channel: String, CaseIterable, Sendable { case app, kiosk }

    static let pretty = Option.flag("pretty", default: false, help: "indented JSON")
    static let item = Option("item", default: "", help: "one line of the order")
    static let cafe = Option<String?>("cafe", help: "the café")
    static let count = Option.count("count", 1...100, default: 8, help: "how many")
    static let channel = Option.choice("channel", default: Channel.app, help: "where it is placed")
    static let by = Option<Channel?>.optionalChoice("by", help: "who")
    static let since = Option<UInt64?>.optional("since-seq", .count(0...Int.max), help: "from") { UInt64($0) }
    static let speed = Option.measure("speed", .positive, default: 1, help: "walk seconds per second")
    static let endpoint = Option("orders", .endpoint, default: "tcp://127.0.0.1:7430", help: "order-service")

    static let switches = [CommandFlag(pretty, .switchOnly)]
    static let place = [CommandFlag(pretty, .switchOnly), CommandFlag(item, .repeated), CommandFlag(cafe), CommandFlag(count), CommandFlag(channel),
                        CommandFlag(by), CommandFlag(since), CommandFlag(speed, refusal: "a number above 0"),
                        CommandFlag(endpoint, environment: "CAFE_ORDERS_ENDPOINT")]
    static let get = [CommandFlag(cafe)]

    func arguments(_ line: [String]) throws -> CommandArguments {
        try CommandArguments(line, switches: Self.switches, seeAlso: "tool help")
    }

    func refusal(_ line: [String], _ flags: [CommandFlag] = place, environment: [String: String] = [:]) -> String? {
        do {
            _ = try arguments(line).values(taking: flags, environment: environment)
            return nil
        } catch let error as ConfigurationError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test("words, switches and typed values; a flag left out reads its default, or nil when it has none")
    func typedValues() throws {
        let line = try arguments(["order", "place", "--pretty", "--item", "latte:2:oat,extra", "--cafe=caffe-macs", "--count", "3", "--channel", "kiosk", "--since-seq", "7"])
        #expect(line.words == ["order", "place"])
        let values = try line.values(taking: Self.place, environment: [:])
        #expect(values[Self.pretty])
        #expect(values[Self.item] == "latte:2:oat,extra", "a repeated flag's value is not split at commas")
        #expect(values[Self.cafe] == "caffe-macs")
        #expect(values[Self.count] == 3)
        #expect(values[Self.channel] == .kiosk)
        #expect(values[Self.since] == 7)
        #expect(values[Self.by] == nil && !values.isGiven(Self.by))
        #expect(values[Self.speed] == 1)
        #expect(try line.values(taking: Self.place, environment: [:]).required(Self.cafe) == "caffe-macs")
        let bare = try arguments(["order", "place"]).values(taking: Self.place, environment: [:])
        #expect(!bare[Self.pretty] && bare[Self.count] == 8 && bare[Self.cafe] == nil && bare.every(Self.item).isEmpty)
    }

    @Test("a switch never takes the next word; a flag given twice keeps its last value, a repeated one every value")
    func forms() throws {
        let line = try arguments(["tail", "--pretty", "order.", "--item", "a", "--item", "b", "--cafe", "x", "--cafe", "y"])
        #expect(line.words == ["tail", "order."])
        let values = try line.values(taking: Self.place, environment: [:])
        #expect(values.every(Self.item) == ["a", "b"])
        #expect(values[Self.cafe] == "y")
    }

    @Test("a flag the command does not take is refused, the first by name, pointing at the tool's help")
    func unknownFlags() throws {
        #expect(refusal(["order", "get", "--count", "3"], Self.get) == "unknown flag --count for this command (see tool help)")
        #expect(refusal(["order", "get", "--zeta", "1", "--alpha", "2"], Self.get) == "unknown flag --alpha for this command (see tool help)")
        #expect(refusal(["order", "place", "--count", "3"]) == nil)
        // Flags every command shares are read before the command is known, leaving the refusal to it.
        let shared = try arguments(["order", "get", "--count", "3", "--cafe", "x"]).values(taking: Self.get, refusingOthers: false, environment: [:])
        #expect(shared[Self.cafe] == "x")
    }

    @Test("values outside an option's kind are refused in one line naming the flag or its variable", arguments: [
        (["--count", "0"], [:], "--count must be a whole number 1…100, not \"0\""),
        (["--channel", "fax"], [:], "--channel must be one of app, kiosk, not \"fax\""),
        (["--by", "nobody"], [:], "--by must be one of app, kiosk, not \"nobody\""),
        (["--since-seq", "-3"], [:], "--since-seq must be a whole number ≥ 0, not \"-3\""),
        (["--speed", "-2"], [:], "--speed must be a number above 0, not \"-2\""),
        (["--pretty", "--orders", "nowhere"], [:], "--orders must be a ZeroMQ endpoint like tcp://127.0.0.1:7401, not \"nowhere\""),
        ([], ["CAFE_ORDERS_ENDPOINT": "nowhere"], "CAFE_ORDERS_ENDPOINT must be a ZeroMQ endpoint like tcp://127.0.0.1:7401, not \"nowhere\""),
        (["--cafe"], [:], "flag --cafe needs a value"),
    ] as [([String], [String: String], String)])
    func refusals(flags: [String], environment: [String: String], message: String) {
        #expect(refusal(["order", "place"] + flags, environment: environment) == message)
    }

    @Test("an environment variable counts only where the flag names one, and only when not empty")
    func environment() throws {
        let line = try arguments(["order", "place"])
        #expect(try line.values(taking: Self.place, environment: ["CAFE_ORDERS_ENDPOINT": "tcp://10.0.0.1:7430"])[Self.endpoint] == "tcp://10.0.0.1:7430")
        #expect(try line.values(taking: Self.place, environment: ["CAFE_ORDERS_ENDPOINT": ""])[Self.endpoint] == "tcp://127.0.0.1:7430")
        #expect(try line.values(taking: Self.place, environment: ["CAFE_CAFE": "x", "CAFE_COUNT": "9"])[Self.cafe] == nil)
        let flagWins = try arguments(["order", "place", "--orders", "tcp://10.0.0.2:7430"])
        #expect(try flagWins.values(taking: Self.place, environment: ["CAFE_ORDERS_ENDPOINT": "tcp://10.0.0.1:7430"])[Self.endpoint] == "tcp://10.0.0.2:7430")
    }

    @Test("a required flag left out says which")
    func required() throws {
        let values = try arguments(["order", "get"]).values(taking: Self.get, environment: [:])
        #expect(throws: ConfigurationError.self) { try values.required(Self.cafe) }
        do {
            _ = try values.required(Self.cafe)
        } catch let error as ConfigurationError {
            #expect(error.message == "missing --cafe")
        } catch {}
    }

    @Test("help lines list each flag of a command from its declaration")
    func help() {
        let text = CommandFlag.helpLines(Self.place).joined(separator: "\n")
        #expect(text.contains("  --pretty\n      indented JSON"))
        #expect(text.contains("  --item <text> (repeatable)"))
        #expect(text.contains("  --count <integer>\n      how many\n      default 8"))
        #expect(text.contains("env CAFE_ORDERS_ENDPOINT, default tcp://127.0.0.1:7430"))
    }
}
