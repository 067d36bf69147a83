import Foundation

/// Just enough Markdown for `ManualsTests`: sections, table rows, links, code spans, heading anchors.
enum MarkdownText {
    /// The text from the heading line that starts with `heading` to the next heading of the same or a higher level.
    static func section(_ heading: String, in text: String) -> String? {
        let level = heading.prefix { $0 == "#" }.count
        let lines = withoutCodeBlocks(text).components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.hasPrefix(heading) }) else { return nil }
        let end = lines[(start + 1)...].firstIndex { line in
            let hashes = line.prefix { $0 == "#" }.count
            return hashes > 0 && hashes <= level && line.dropFirst(hashes).hasPrefix(" ")
        } ?? lines.endIndex
        return lines[start..<end].joined(separator: "\n")
    }

    /// The cells of each table row, without the header and the separator row.
    static func tableRows(in text: String) -> [[String]] {
        var rows: [[String]] = []
        var inTable = false
        for line in text.components(separatedBy: "\n") {
            guard line.hasPrefix("|") else { inTable = false; continue }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            if !inTable { inTable = true; continue }   // the header
            if cells.allSatisfy({ $0.allSatisfy { "-: ".contains($0) } }) { continue }
            rows.append(cells)
        }
        return rows
    }

    /// The text with every fenced code block blanked out (its lines kept, so line counts hold).
    static func withoutCodeBlocks(_ text: String) -> String {
        var inside = false
        return text.components(separatedBy: "\n").map { line in
            if line.hasPrefix("```") { inside.toggle(); return "" }
            return inside ? "" : line
        }.joined(separator: "\n")
    }

    /// Every inline link `[text](path#anchor)`.
    static func links(in text: String) -> [(path: String, anchor: String?)] {
        let pattern = try! NSRegularExpression(pattern: #"\]\(([^)\s]+)\)"#)
        let range = NSRange(text.startIndex..., in: text)
        return pattern.matches(in: text, range: range).compactMap { match in
            guard let found = Range(match.range(at: 1), in: text) else { return nil }
            let target = String(text[found])
            guard let hash = target.firstIndex(of: "#") else { return (target, nil) }
            return (String(target[..<hash]), String(target[target.index(after: hash)...]))
        }
    }

    /// The contents of every `code span`.
    static func codeSpans(in text: String) -> [String] {
        text.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
    }

    /// `a/b/../c` → `a/c`.
    static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == ".." { _ = parts.popLast() } else if part != "." { parts.append(part) }
        }
        return parts.joined(separator: "/")
    }

    /// The anchors GitHub gives a document's headings: lower case, punctuation dropped, spaces as hyphens.
    static func anchors(in text: String) -> Set<String> {
        var anchors: Set<String> = []
        for line in withoutCodeBlocks(text).components(separatedBy: "\n") where line.hasPrefix("#") {
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
            let slug = title.lowercased().unicodeScalars.compactMap { scalar -> String? in
                if scalar == " " { return "-" }
                if scalar == "-" || scalar == "_" || CharacterSet.alphanumerics.contains(scalar) { return String(scalar) }
                return nil
            }.joined()
            anchors.insert(slug)
        }
        return anchors
    }
}
