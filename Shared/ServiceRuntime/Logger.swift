import Foundation
import Messages

/// Structured logs: one JSON object per line on stderr with a short message and dotted keys
/// (`order.id`, `bus.endpoint`). Passed into whatever logs; library code never builds its own.
public struct Logger: Sendable {
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error

        public var name: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }

        public init?(name: String) {
            guard let level = Level.allCases.first(where: { $0.name == name }) else { return nil }
            self = level
        }

        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    public let service: String
    public let instance: String
    public let minimum: Level
    private let sink: @Sendable (String) -> Void

    public init(service: String, instance: String, minimum: Level = .info, sink: @escaping @Sendable (String) -> Void = Logger.standardError) {
        self.service = service
        self.instance = instance
        self.minimum = minimum
        self.sink = sink
    }

    /// Writes a line to stderr in one write call, so lines from threads never interleave.
    public static let standardError: @Sendable (String) -> Void = { line in
        let data = Array((line + "\n").utf8)
        data.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
    }

    public func debug(_ message: String, _ metadata: [String: String] = [:]) { log(.debug, message, metadata) }
    public func info(_ message: String, _ metadata: [String: String] = [:]) { log(.info, message, metadata) }
    public func warning(_ message: String, _ metadata: [String: String] = [:]) { log(.warning, message, metadata) }
    public func error(_ message: String, _ metadata: [String: String] = [:]) { log(.error, message, metadata) }

    public func log(_ level: Level, _ message: String, _ metadata: [String: String]) {
        guard level >= minimum else { return }
        var fields = metadata
        fields["time"] = Timestamp(Date()).rfc3339
        fields["level"] = level.name
        fields["service"] = service
        fields["instance"] = instance
        fields["msg"] = message
        let head = ["time", "level", "service", "instance", "msg"]
        let ordered = head + fields.keys.filter { !head.contains($0) }.sorted()
        let body = ordered.map { "\(JSONText.quoted($0)):\(JSONText.quoted(fields[$0]!))" }.joined(separator: ",")
        sink("{\(body)}")
    }
}

extension Logger {
    /// Why a service process cannot start, as its last line on stderr (the same JSON as every
    /// other line: level `error`, `msg` saying what failed, `error` the reason), then the exit:
    /// `status` 2 for bad options, 1 for any other start failure. For mains and configuration
    /// loading, before or without a `ServiceHost`.
    public func exitStart(_ message: String, error: Any, status: Int32) -> Never {
        log(.error, message, ["error": "\(error)"])
        exit(status)
    }
}
