/// Builds a page in Prometheus's text exposition format (version 0.0.4): each metric family once,
/// its `# HELP` and `# TYPE` lines, then all its samples together, whatever order they were added
/// in. Label values are escaped as the format says (`\\`, `\"`, `\n`); names are held to
/// `[a-zA-Z_:][a-zA-Z0-9_:]*` by replacing anything else with `_`.
public struct PrometheusText: Sendable {
    /// A family's type, as `# TYPE` writes it.
    public enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    private struct Family {
        var kind: Kind
        var help: String
        var lines: [String] = []
    }

    private var families: [String: Family] = [:]
    private var order: [String] = []

    /// The content type a scraper expects for this format.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public init() {}

    /// Adds one sample of the counter or gauge `name`.
    public mutating func add(_ name: String, _ kind: Kind, help: String, labels: [(String, String)] = [], value: Double) {
        let family = Self.metricName(name)
        append(family, kind, help: help, line: family + Self.labelText(labels) + " " + Self.number(value))
    }

    /// Adds one histogram of the family `name`: its `_bucket` samples (one per bound and `+Inf`),
    /// `_sum` and `_count`.
    public mutating func add(_ name: String, help: String, labels: [(String, String)] = [], histogram: LatencyBuckets) {
        let family = Self.metricName(name)
        let cumulative = histogram.cumulative
        for (index, bound) in LatencyBuckets.bounds.enumerated() {
            append(family, .histogram, help: help,
                   line: family + "_bucket" + Self.labelText(labels + [("le", Self.number(bound))]) + " \(cumulative[index])")
        }
        append(family, .histogram, help: help, line: family + "_bucket" + Self.labelText(labels + [("le", "+Inf")]) + " \(histogram.count)")
        append(family, .histogram, help: help, line: family + "_sum" + Self.labelText(labels) + " " + Self.number(histogram.sum))
        append(family, .histogram, help: help, line: family + "_count" + Self.labelText(labels) + " \(histogram.count)")
    }

    /// The families that have samples, in the order first added.
    public var familyNames: [String] { order }

    /// The page: every family with its samples, ending in a newline.
    public func render() -> String {
        var out = ""
        for name in order {
            guard let family = families[name] else { continue }
            out += "# HELP \(name) \(Self.escapeHelp(family.help))\n# TYPE \(name) \(family.kind.rawValue)\n"
            for line in family.lines { out += line + "\n" }
        }
        return out
    }

    private mutating func append(_ family: String, _ kind: Kind, help: String, line: String) {
        if families[family] == nil {
            families[family] = Family(kind: kind, help: help)
            order.append(family)
        }
        families[family]?.lines.append(line)
    }

    /// `name` with every character the format does not allow in a metric name replaced by `_`.
    public static func metricName(_ name: String) -> String {
        var out = ""
        for (index, scalar) in name.unicodeScalars.enumerated() {
            let letter = (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || scalar == "_" || scalar == ":"
            let digit = scalar >= "0" && scalar <= "9"
            out.unicodeScalars.append(letter || (digit && index > 0) ? scalar : "_")
        }
        return out.isEmpty ? "_" : out
    }

    static func labelText(_ labels: [(String, String)]) -> String {
        guard !labels.isEmpty else { return "" }
        return "{" + labels.map { name, value in
            metricName(name).replacingColons() + "=\"" + escapeLabel(value) + "\""
        }.joined(separator: ",") + "}"
    }

    static func escapeLabel(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    static func escapeHelp(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }

    /// A sample value as the format writes it: integers without a fraction, `+Inf`, `-Inf`, `NaN`.
    public static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}

private extension String {
    /// Label names may not hold a colon, which metric names may.
    func replacingColons() -> String { replacingOccurrences(of: ":", with: "_") }
}
