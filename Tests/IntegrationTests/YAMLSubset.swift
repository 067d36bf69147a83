import Foundation

/// A value read from the YAML subset that `deploy/docker-compose.yml` is written in.
///
/// The subset: block mappings and block sequences, `- key: value` items, inline `[a, "b"]` lists of
/// scalars, plain, single- and double-quoted scalars, comments and blank lines. Anything else
/// (anchors, tags, flow mappings, block scalars, several documents) is refused with the line
/// number, so the compose file cannot drift into YAML this reader would misread.
/// Scalars stay strings: the checks compare text, as compose does for environment values.
indirect enum YAMLValue: Equatable, CustomStringConvertible {
    case null
    case scalar(String)
    case sequence([YAMLValue])
    /// Keys in file order.
    case mapping([(key: String, value: YAMLValue)])

    static func == (a: YAMLValue, b: YAMLValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.scalar(let x), .scalar(let y)): x == y
        case (.sequence(let x), .sequence(let y)): x == y
        case (.mapping(let x), .mapping(let y)): x.map(\.key) == y.map(\.key) && x.map(\.value) == y.map(\.value)
        default: false
        }
    }

    var description: String {
        switch self {
        case .null: "null"
        case .scalar(let s): "\"\(s)\""
        case .sequence(let items): "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .mapping(let pairs): "{" + pairs.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        }
    }

    /// The value under `key` of a mapping; nil for a missing key or a value that is not a mapping.
    subscript(key: String) -> YAMLValue? {
        guard case .mapping(let pairs) = self else { return nil }
        return pairs.first { $0.key == key }?.value
    }

    var string: String? { if case .scalar(let s) = self { s } else { nil } }
    var items: [YAMLValue]? { if case .sequence(let items) = self { items } else { nil } }
    var pairs: [(key: String, value: YAMLValue)]? { if case .mapping(let pairs) = self { pairs } else { nil } }
    var keys: [String] { pairs?.map(\.key) ?? [] }
    /// A list of scalars (`[a, b]` or a block sequence), or a single scalar as a one-item list.
    var strings: [String]? {
        switch self {
        case .scalar(let s): [s]
        case .sequence(let items): items.compactMap(\.string).count == items.count ? items.compactMap(\.string) : nil
        default: nil
        }
    }
}

/// Why the text is not in the subset: the 1-based line and what was wrong.
struct YAMLError: Error, CustomStringConvertible {
    let line: Int
    let message: String
    var description: String { "YAML line \(line): \(message)" }
}

/// Reads the YAML subset described on `YAMLValue`.
struct YAMLSubset {
    private struct Line {
        let number: Int
        var indent: Int
        var text: String
    }

    private var lines: [Line] = []
    private var index = 0

    static func parse(_ text: String) throws -> YAMLValue {
        var parser = YAMLSubset()
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            let line = String(raw.hasSuffix("\r") ? raw.dropLast() : raw)
            let indent = line.prefix { $0 == " " }.count
            if line.dropFirst(indent).first == "\t" { throw YAMLError(line: number, message: "tabs are not allowed in indentation") }
            let content = try stripComment(String(line.dropFirst(indent)), line: number)
            if content.isEmpty { continue }
            if indent == 0, content == "---" || content == "..." { throw YAMLError(line: number, message: "document markers are outside the subset") }
            parser.lines.append(Line(number: number, indent: indent, text: content))
        }
        guard let first = parser.lines.first else { return .null }
        guard first.indent == 0 else { throw YAMLError(line: first.number, message: "the document must start at column 1") }
        let value = try parser.block(indent: 0)
        if parser.index < parser.lines.count {
            let line = parser.lines[parser.index]
            throw YAMLError(line: line.number, message: "unexpected indentation")
        }
        return value
    }

    /// Removes a comment: `#` at the start or after a space, outside quotes. Trailing spaces go too.
    private static func stripComment(_ text: String, line: Int) throws -> String {
        var quote: Character?
        var previous: Character = " "
        var result = ""
        var escaped = false
        for character in text {
            if let open = quote {
                if escaped {
                    escaped = false
                } else if open == "\"", character == "\\" {
                    escaped = true
                } else if character == open {
                    quote = nil
                }
            } else if character == "#", previous == " " {
                break
            } else if character == "\"" || character == "'", previous == " " || previous == "[" || previous == "," || result.isEmpty {
                quote = character
            }
            result.append(character)
            previous = character
        }
        while result.last == " " { result.removeLast() }
        return result
    }

    private static func isSequenceItem(_ text: String) -> Bool { text == "-" || text.hasPrefix("- ") }

    /// A mapping or a sequence whose lines start at exactly `indent`.
    private mutating func block(indent: Int) throws -> YAMLValue {
        let line = lines[index]
        guard line.indent == indent else { throw YAMLError(line: line.number, message: "expected indentation \(indent), found \(line.indent)") }
        return Self.isSequenceItem(line.text) ? try sequence(indent: indent) : try mapping(indent: indent)
    }

    private mutating func sequence(indent: Int) throws -> YAMLValue {
        var items: [YAMLValue] = []
        while index < lines.count, lines[index].indent == indent, Self.isSequenceItem(lines[index].text) {
            let line = lines[index]
            let rest = String(line.text.dropFirst(1).drop { $0 == " " })
            let startsBlock = try Self.isSequenceItem(rest) || Self.splitKey(rest, line: line.number) != nil
            if rest.isEmpty {
                index += 1
                items.append(try nested(deeperThan: indent) ?? .null)
            } else if startsBlock {
                // `- key: value` (or `- - x`): the item is a block starting at the text's column.
                lines[index].indent = indent + (line.text.count - rest.count)
                lines[index].text = rest
                items.append(try block(indent: lines[index].indent))
            } else {
                index += 1
                items.append(try Self.inline(rest, line: line.number))
            }
        }
        return .sequence(items)
    }

    private mutating func mapping(indent: Int) throws -> YAMLValue {
        var pairs: [(key: String, value: YAMLValue)] = []
        while index < lines.count, lines[index].indent == indent {
            let line = lines[index]
            if Self.isSequenceItem(line.text) { throw YAMLError(line: line.number, message: "a sequence item where a mapping key was expected") }
            guard let (key, rest) = try Self.splitKey(line.text, line: line.number) else {
                throw YAMLError(line: line.number, message: "expected `key: value`, found \"\(line.text)\"")
            }
            if pairs.contains(where: { $0.key == key }) { throw YAMLError(line: line.number, message: "duplicate key \"\(key)\"") }
            index += 1
            let value: YAMLValue
            if !rest.isEmpty {
                value = try Self.inline(rest, line: line.number)
            } else if index < lines.count, lines[index].indent == indent, Self.isSequenceItem(lines[index].text) {
                // `key:` followed by `- item` at the key's own indentation, as YAML allows.
                value = try sequence(indent: indent)
            } else {
                value = try nested(deeperThan: indent) ?? .null
            }
            pairs.append((key, value))
        }
        return .mapping(pairs)
    }

    /// The block on the following lines when they are indented deeper than `indent`.
    private mutating func nested(deeperThan indent: Int) throws -> YAMLValue? {
        guard index < lines.count, lines[index].indent > indent else { return nil }
        return try block(indent: lines[index].indent)
    }

    /// Splits `key: value` (or `key:`) at the first `:` outside quotes that ends the text or is
    /// followed by a space. Nil when the text is a plain scalar such as `tcp://bus:7401`.
    private static func splitKey(_ text: String, line: Int) throws -> (String, String)? {
        if text.hasPrefix("\"") || text.hasPrefix("'") {
            let (key, end) = try quoted(text, line: line)
            let after = text[end...]
            guard after.hasPrefix(":"), after.count == 1 || after.dropFirst().first == " " else { return nil }
            return (key, String(after.dropFirst()).trimmingCharacters(in: .whitespaces))
        }
        if text.hasPrefix("[") || text.hasPrefix("{") { return nil }
        var cursor = text.startIndex
        while let colon = text[cursor...].firstIndex(of: ":") {
            let next = text.index(after: colon)
            if next == text.endIndex || text[next] == " " {
                let key = String(text[..<colon]).trimmingCharacters(in: .whitespaces)
                guard !key.isEmpty else { throw YAMLError(line: line, message: "empty key") }
                if key.hasPrefix("?") { throw YAMLError(line: line, message: "complex keys are outside the subset") }
                return (key, String(text[next...]).trimmingCharacters(in: .whitespaces))
            }
            cursor = next
        }
        return nil
    }

    /// A value written on the same line: a quoted or plain scalar, or `[scalar, ...]`.
    private static func inline(_ text: String, line: Int) throws -> YAMLValue {
        guard let first = text.first else { return .null }
        switch first {
        case "[":
            guard text.hasSuffix("]") else { throw YAMLError(line: line, message: "an inline list must end with ] on the same line") }
            let inner = text.dropFirst().dropLast()
            return .sequence(try splitFlow(String(inner), line: line).map { try scalar($0, line: line) })
        case "{": throw YAMLError(line: line, message: "flow mappings are outside the subset")
        case "&", "*", "!": throw YAMLError(line: line, message: "anchors, aliases and tags are outside the subset")
        case "|", ">": throw YAMLError(line: line, message: "block scalars are outside the subset")
        default: return try scalar(text, line: line)
        }
    }

    private static func scalar(_ text: String, line: Int) throws -> YAMLValue {
        if text.hasPrefix("\"") || text.hasPrefix("'") {
            let (value, end) = try quoted(text, line: line)
            guard end == text.endIndex else { throw YAMLError(line: line, message: "text after a closing quote: \"\(text)\"") }
            return .scalar(value)
        }
        if let first = text.first, "[]{}&*!|>%@`".contains(first) {
            throw YAMLError(line: line, message: "\"\(text)\" starts with a character the subset does not allow in plain scalars")
        }
        if text == "~" || text == "null" { return .null }
        return .scalar(text)
    }

    /// The items of `a, "b, c", d` (without the brackets), split at commas outside quotes.
    private static func splitFlow(_ text: String, line: Int) throws -> [String] {
        var items: [String] = []
        var current = ""
        var quote: Character?
        var escaped = false
        for character in text {
            if let open = quote {
                current.append(character)
                if open == "\"", character == "\\", !escaped { escaped = true; continue }
                if character == open, !escaped { quote = nil }
                escaped = false
            } else if character == "\"" || character == "'" {
                quote = character
                current.append(character)
            } else if character == "," {
                items.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else if character == "[" || character == "{" {
                throw YAMLError(line: line, message: "nested flow collections are outside the subset")
            } else {
                current.append(character)
            }
        }
        if quote != nil { throw YAMLError(line: line, message: "unterminated quote in an inline list") }
        let last = current.trimmingCharacters(in: .whitespaces)
        if !last.isEmpty { items.append(last) } else if !items.isEmpty { throw YAMLError(line: line, message: "empty item in an inline list") }
        if items.contains(where: \.isEmpty) { throw YAMLError(line: line, message: "empty item in an inline list") }
        return items
    }

    /// Reads a quoted scalar at the start of `text`; returns it and the index after the closing quote.
    private static func quoted(_ text: String, line: Int) throws -> (String, String.Index) {
        let open = text.first!
        var value = ""
        var cursor = text.index(after: text.startIndex)
        while cursor < text.endIndex {
            let character = text[cursor]
            cursor = text.index(after: cursor)
            if open == "'" {
                if character == "'" {
                    if cursor < text.endIndex, text[cursor] == "'" { value.append("'"); cursor = text.index(after: cursor); continue }
                    return (value, cursor)
                }
                value.append(character)
            } else {
                if character == "\"" { return (value, cursor) }
                if character == "\\" {
                    guard cursor < text.endIndex else { break }
                    let escape = text[cursor]
                    cursor = text.index(after: cursor)
                    switch escape {
                    case "n": value.append("\n")
                    case "t": value.append("\t")
                    case "\"", "\\", "/": value.append(escape)
                    default: throw YAMLError(line: line, message: "unsupported escape \\\(escape)")
                    }
                    continue
                }
                value.append(character)
            }
        }
        throw YAMLError(line: line, message: "unterminated quoted scalar")
    }
}
