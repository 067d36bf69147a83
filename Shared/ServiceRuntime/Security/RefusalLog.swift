/// What the log says about refusals (handshakes, requests): the first of each reason at once, with
/// who it was, and the rest as one summary line per reason every `window` seconds: how many, how
/// many distinct keys, principals or addresses, and a few of them.
///
/// A line per refused key let a flood of 16,000 distinct unknown keys write 15,421 warnings (3.9 MB)
/// in 30 s (issue 28). Now a flood writes at most one line per reason per window, whatever the
/// number of attackers, and its memory is bounded: a few reasons, each with at most
/// `distinctLimit` names remembered.
public struct RefusalLog: Sendable {
    /// A line for the logger.
    public struct Line: Equatable, Sendable {
        public let message: String
        public let metadata: [String: String]
    }

    static let window = 10.0
    static let sampleCount = 3
    static let distinctLimit = 1_024

    private struct Window {
        var since: Double
        var count = 0
        var distinct: Set<String> = []
        var samples: [String] = []
    }

    /// The open window of each reason: opened by a refusal logged at once, kept while refusals come.
    private var windows: [String: Window] = [:]
    /// The message of a refusal logged at once, and of a summary.
    private let first: String, summary: String

    public init(first: String = "handshake refused", summary: String = "handshakes refused") {
        self.first = first
        self.summary = summary
    }

    /// Records a refusal for `reason` by `who` (a key or an address) at `now` (seconds, monotonic):
    /// the lines to log now. `metadata` is the first refusal's detail.
    public mutating func refused(_ reason: String, who: String, _ metadata: [String: String], now: Double) -> [Line] {
        var lines = due(now: now)
        guard var window = windows[reason] else {
            windows[reason] = Window(since: now)
            var first = metadata
            first["reason"] = reason
            lines.append(Line(message: self.first, metadata: first))
            return lines
        }
        window.count += 1
        if window.distinct.count < Self.distinctLimit { window.distinct.insert(who) }
        if window.samples.count < Self.sampleCount, !window.samples.contains(who) { window.samples.append(who) }
        windows[reason] = window
        return lines
    }

    /// The summaries of windows that ended by `now`. A window with refusals is summarized and a new
    /// one opened, so a flood that goes on writes one line a window; a quiet one closes, and the
    /// next refusal is logged at once again.
    public mutating func due(now: Double) -> [Line] {
        var lines: [Line] = []
        for (reason, window) in windows.sorted(by: { $0.key < $1.key }) where now - window.since >= Self.window {
            guard window.count > 0 else {
                windows[reason] = nil
                continue
            }
            let distinct = window.distinct.count >= Self.distinctLimit ? "≥\(Self.distinctLimit)" : "\(window.distinct.count)"
            lines.append(Line(message: summary, metadata: [
                "reason": reason, "refused": "\(window.count)", "distinct": distinct,
                "samples": window.samples.joined(separator: ","), "seconds": "\(Int((now - window.since).rounded()))",
            ]))
            windows[reason] = Window(since: now)
        }
        return lines
    }
}
