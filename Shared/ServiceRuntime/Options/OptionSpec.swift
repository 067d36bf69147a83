import Foundation

/// One configuration key: a flag, the environment variable that can set it, its kind (which says
/// what values are allowed), a default and help.
public struct OptionSpec: Sendable {
    /// What a value must be. Every number has a range: a count, a duration or a rate outside it
    /// is refused at start (exit 2), never clamped or trapped on later.
    public enum Kind: Sendable {
        case string, flag, endpoint, path
        /// A name that goes into file names, topics and envelopes: 1–64 of letters, digits, `-`, `_`, `.`.
        case token
        /// ZeroMQ endpoints separated by commas, at least one.
        case endpointList
        /// A whole number in the range.
        case count(ClosedRange<Int>)
        /// Seconds, finite, within the bounds.
        case duration(Bounds)
        /// Events per second, finite, within the bounds.
        case rate(Bounds)
        /// Rates per second separated by commas, at least one, each within the bounds.
        case rateList(Bounds)
        /// A finite number (metres, a ratio) within the bounds.
        case measure(Bounds)
        /// One of the listed words.
        case choice([String])
        /// A whole number ≥ 0, or within `range:` (`count` by another name).
        case integer
        /// A finite number ≥ 0 (`measure(.nonNegative)` by another name).
        case number
    }

    /// Where a number may lie: above (or at) a lower bound, at most an upper one.
    public struct Bounds: Sendable, Equatable {
        public let lower: Double
        public let lowerInclusive: Bool
        public let upper: Double

        public init(lower: Double, inclusive: Bool = true, upper: Double = .infinity) {
            self.lower = lower
            self.lowerInclusive = inclusive
            self.upper = upper
        }

        /// More than 0: a period, a timeout, a window.
        public static let positive = Bounds(lower: 0, inclusive: false)
        /// 0 or more: a margin or a delay that may be switched off.
        public static let nonNegative = Bounds(lower: 0)

        public func contains(_ value: Double) -> Bool {
            value.isFinite && (lowerInclusive ? value >= lower : value > lower) && value <= upper
        }

        var text: String {
            let low = lowerInclusive ? "≥ \(OptionSpec.format(lower))" : "more than \(OptionSpec.format(lower))"
            return upper.isFinite ? "\(low) and at most \(OptionSpec.format(upper))" : low
        }
    }

    public let name: String
    public let kind: Kind
    public let defaultValue: String
    public let help: String
    /// For `.integer`: the values allowed (otherwise any whole number ≥ 0).
    public let range: ClosedRange<Int>?

    public init(_ name: String, _ kind: Kind = .string, default defaultValue: String, range: ClosedRange<Int>? = nil, help: String) {
        self.name = name
        self.kind = kind
        self.defaultValue = defaultValue
        self.range = range
        self.help = help
    }

    /// A seconds option whose default is a settings type's value (declared there, once).
    public static func seconds(_ name: String, _ bounds: Bounds = .positive, default value: Double, help: String) -> OptionSpec {
        OptionSpec(name, .duration(bounds), default: format(value), help: help)
    }

    /// A count option whose default is a settings type's value.
    public static func count(_ name: String, _ range: ClosedRange<Int> = 0...Int.max, default value: Int, help: String) -> OptionSpec {
        OptionSpec(name, .count(range), default: String(value), help: help)
    }

    /// "30" for 30.0, "0.5" for 0.5: defaults print as an operator would type them.
    public static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// `--bus-pub` is read from `CAFE_BUS_PUB`.
    public var environmentName: String { "CAFE_" + name.uppercased().replacingOccurrences(of: "-", with: "_") }

    /// Why `value` is not allowed ("must be …"), or nil when it is.
    public func problem(with value: String) -> String? { validate(value) }

    func validate(_ value: String) -> String? {
        let quoted = "\"\(value.prefix(64))\"" + (value.count > 64 ? "… (\(value.count) characters)" : "")
        switch kind {
        case .string, .path: return value.isEmpty && !defaultValue.isEmpty ? "must not be empty" : nil
        case .token:
            let ok = (1...64).contains(value.count) && value.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0)) }
            return ok ? nil : "must be 1–64 letters, digits, -, _ or ., not \(quoted)"
        // Every count, size, duration and rate here is zero or more: a negative one is a typo.
        case .integer, .count:
            let allowed: ClosedRange<Int> = if case .count(let r) = kind { r } else { range ?? 0...Int.max }
            let wanted = allowed.upperBound == Int.max ? "≥ \(allowed.lowerBound)" : "\(allowed.lowerBound)…\(allowed.upperBound)"
            return Int(value).map(allowed.contains) == true ? nil : "must be a whole number \(wanted), not \(quoted)"
        case .number: return Double(value).map { $0.isFinite && $0 >= 0 } == true ? nil : "must be a number ≥ 0, not \(quoted)"
        case .duration(let bounds):
            return Double(value).map(bounds.contains) == true ? nil : "must be a number of seconds \(bounds.text), not \(quoted)"
        case .rate(let bounds):
            return Double(value).map(bounds.contains) == true ? nil : "must be a rate per second \(bounds.text), not \(quoted)"
        case .rateList(let bounds):
            let parts = Self.list(value)
            let ok = !parts.isEmpty && parts.allSatisfy { Double($0).map(bounds.contains) == true }
            return ok ? nil : "must be rates per second separated by commas, each \(bounds.text), not \(quoted)"
        case .measure(let bounds):
            return Double(value).map(bounds.contains) == true ? nil : "must be a number \(bounds.text), not \(quoted)"
        case .flag: return ["true", "false", "1", "0", "yes", "no"].contains(value.lowercased()) ? nil : "must be true or false, not \(quoted)"
        case .endpoint:
            return Self.isEndpoint(value) ? nil : "must be a ZeroMQ endpoint like tcp://127.0.0.1:7401, not \(quoted)"
        case .endpointList:
            let parts = Self.list(value)
            return !parts.isEmpty && parts.allSatisfy(Self.isEndpoint) ? nil : "must be ZeroMQ endpoints separated by commas, not \(quoted)"
        case .choice(let words): return words.contains(value) ? nil : "must be one of \(words.joined(separator: ", ")), not \(quoted)"
        }
    }

    /// A ZeroMQ endpoint, optionally with the principal name of the server behind it
    /// (`name@tcp://host:port`, see `PeerEndpoint`).
    static func isEndpoint(_ value: String) -> Bool {
        let (name, endpoint) = PeerEndpoint.split(value, defaultName: "")
        if !name.isEmpty && !KeyRegistry.isName(name) { return false }
        return ["tcp://", "ipc://", "inproc://"].contains { endpoint.hasPrefix($0) } && endpoint.count > 7
    }

    /// A `.flag` value that means true (`true`, `1`, `yes`, any case).
    static func isTrue(_ value: String) -> Bool { ["true", "1", "yes"].contains(value.lowercased()) }

    /// The items of a comma-separated value, trimmed, empty ones dropped.
    static func list(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    var kindLabel: String {
        switch kind {
        case .string: "text"
        case .token: "name"
        case .integer, .count: "integer"
        case .number, .measure: "number"
        case .duration: "seconds"
        case .rate: "per-second"
        case .rateList: "per-second,per-second…"
        case .flag: "true|false"
        case .endpoint: "endpoint"
        case .endpointList: "endpoint,endpoint…"
        case .path: "path"
        case .choice(let words): words.joined(separator: "|")
        }
    }
}
