import Foundation
import Messages

/// `cafectl health`'s table: one line per process, at most 120 columns, as `kubectl get` and
/// `docker ps` print theirs (`--json` keeps the JSON lines for scripts).
///
/// LAG is the worst of the process's consumer streams, in events: from its own `lag.*` health
/// details where it reports them, else its cursors (`cursor.<source>/<stream>`) against what the
/// publishers asked in the same round say they have written; `-` when it follows no stream (or
/// none of its publishers was asked). CPU is the process's CPU time over its uptime, as `ps`
/// counts %CPU; MEM its resident memory.
struct HealthTable {
    /// One process's answer, or why there was none.
    struct Row {
        var service: String
        var status: HealthStatus?
        /// "refused" or "unreachable" when `status` is nil.
        var failure: String?
        var error: String?
    }

    static let width = 120
    static let headers = ["SERVICE", "INSTANCE", "STATUS", "UPTIME", "OUTBOX", "LAG", "CPU", "MEM", "REASONS"]

    let rows: [Row]

    /// The table's lines, the header first.
    func lines() -> [String] {
        let cells = rows.map(cells(of:))
        var widths = Self.headers.dropLast().map(\.count)
        for row in cells {
            for (index, cell) in row.dropLast().enumerated() { widths[index] = min(max(widths[index], cell.count), 22) }
        }
        let fixed = widths.reduce(0, +) + 2 * widths.count
        let reasonsWidth = max(Self.width - fixed, 12)
        return ([Self.headers] + cells).map { row in
            var line = ""
            for (index, width) in widths.enumerated() {
                let cell = Self.cut(row[index], to: width)
                // Numbers right-aligned, words left-aligned.
                let pad = String(repeating: " ", count: width - cell.count)
                line += (index >= 3 && index <= 7 ? pad + cell : cell + pad) + "  "
            }
            let full = line + Self.fit(row.last ?? "", width: reasonsWidth)
            return String(full.reversed().drop { $0 == " " }.reversed())
        }
    }

    private func cells(of row: Row) -> [String] {
        guard let status = row.status else {
            return [row.service, "-", row.failure ?? "unreachable", "-", "-", "-", "-", "-", row.error ?? ""]
        }
        let reasons = status.details["reasons"] ?? ""
        return [row.service, status.instance, status.status, Self.duration(status.uptimeSeconds), "\(status.outboxPending)",
                lag(of: status), cpu(of: status), Self.memory(status.details["process.residentBytes"]), reasons]
    }

    /// The worst consumer lag of `status`, in events ("12", "12/3.1s" when seconds are known).
    func lag(of status: HealthStatus) -> String {
        let details = status.details
        var events: UInt64?, seconds: Double?
        for (key, value) in details where key.hasPrefix("lag.") {
            if key.hasSuffix(".events"), let count = UInt64(value) { events = max(events ?? 0, count) }
            if key.hasSuffix(".seconds"), let age = Double(value) { seconds = max(seconds ?? 0, age) }
        }
        if events == nil {
            let published = Dictionary(rows.compactMap { $0.status }.map { ($0.instance, $0.streams) }, uniquingKeysWith: { a, _ in a })
            for (key, value) in details where key.hasPrefix("cursor.") {
                let name = key.dropFirst("cursor.".count)
                guard let slash = name.lastIndex(of: "/"), let cursor = UInt64(value),
                      let last = published[String(name[..<slash])]?[String(name[name.index(after: slash)...])] else { continue }
                events = max(events ?? 0, last > cursor ? last - cursor : 0)
            }
        }
        guard let events else { return "-" }
        guard let seconds, seconds >= 0.05 else { return "\(events)" }
        return "\(events)/" + (seconds < 100 ? String(format: "%.1fs", seconds) : Self.duration(seconds))
    }

    private func cpu(of status: HealthStatus) -> String {
        guard let micros = status.details["process.cpuMicros"].flatMap(Double.init), status.uptimeSeconds > 0 else { return "-" }
        return String(format: "%.1f%%", micros / 1e6 / status.uptimeSeconds * 100)
    }

    /// 59s, 12m03s, 3h12m, 2d04h.
    static func duration(_ seconds: Double) -> String {
        let s = Int(max(seconds, 0))
        if s < 60 { return "\(s)s" }
        if s < 3600 { return String(format: "%dm%02ds", s / 60, s % 60) }
        if s < 86_400 { return String(format: "%dh%02dm", s / 3600, s % 3600 / 60) }
        return String(format: "%dd%02dh", s / 86_400, s % 86_400 / 3600)
    }

    /// Resident bytes as 38M or 1.2G (binary units, as `ps` and `top` count).
    static func memory(_ bytes: String?) -> String {
        guard let bytes = bytes.flatMap(Double.init) else { return "-" }
        let mib = bytes / 1_048_576
        return mib < 1024 ? String(format: "%.0fM", mib) : String(format: "%.1fG", mib / 1024)
    }

    /// Comma-separated reasons within `width`: whole reasons while they fit, then `+N` for the
    /// rest; a first reason longer than the column is cut with `…`.
    static func fit(_ text: String, width: Int) -> String {
        guard text.count > width else { return text }
        let parts = text.split(separator: ",").map(String.init)
        guard parts.count > 1 else { return cut(text, to: width) }
        var shown: [String] = []
        for (index, part) in parts.enumerated() {
            let rest = parts.count - index - 1
            let candidate = (shown + [part]).joined(separator: ",") + (rest > 0 ? ",+\(rest)" : "")
            if candidate.count > width { break }
            shown.append(part)
        }
        if shown.isEmpty { return cut(parts[0], to: width - 4) + ",+\(parts.count - 1)" }
        return shown.joined(separator: ",") + ",+\(parts.count - shown.count)"
    }

    static func cut(_ text: String, to width: Int) -> String {
        text.count <= width ? text : String(text.prefix(max(width - 1, 0))) + "…"
    }
}
