import Foundation
import Messages
import Policy
import Testing

/// Keeps the manuals' tables and links true to the repository and the code: the README stays a
/// front door, the manuals it lists exist and every link between them lands, PROTOCOL.md's
/// stream-owner table is `StreamOwners`, and deploy/README.md's topic and port tables agree with
/// the code and with PROTOCOL.md. (The ports' numbers are held to the executables' `--help` by
/// `IntegrationTests/ManualPortsTests`, which can run them.)
@Suite("Manuals")
struct ManualsTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()   // SharedTests
        .deletingLastPathComponent()   // Tests
        .deletingLastPathComponent()

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path)
    }

    /// Every manual of the repository: README.md, PROTOCOL.md and each README.md one or two folders down.
    static func manuals() throws -> [String] {
        var found = ["README.md", "Shared/Messages/PROTOCOL.md"]
        for top in ["deploy", "Tests", "Services", "Shared"] {
            if exists("\(top)/README.md") { found.append("\(top)/README.md") }
            let folders = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(top).path)) ?? []
            for folder in folders.sorted() where exists("\(top)/\(folder)/README.md") {
                found.append("\(top)/\(folder)/README.md")
            }
        }
        return found
    }

    @Test("the README is a front door of at most 200 lines")
    func readmeLength() throws {
        let lines = try Self.read("README.md").split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(lines <= 200, "README.md has \(lines) lines; move reference text to the manual it belongs in")
    }

    @Test("the README's manuals table lists every manual, and each exists")
    func manualsTable() throws {
        let readme = try Self.read("README.md")
        let section = try #require(MarkdownText.section("## Manuals", in: readme), "README.md has no \"## Manuals\" section")
        let rows = MarkdownText.tableRows(in: section)
        #expect(!rows.isEmpty, "the manuals table has no rows")
        var listed: Set<String> = []
        for row in rows {
            let links = MarkdownText.links(in: row.first ?? "")
            #expect(links.count == 1, "a manuals row names one file: \(row)")
            for link in links {
                listed.insert(link.path)
                #expect(Self.exists(link.path), "the manuals table lists \(link.path), which does not exist")
                #expect(row.count == 2 && !row[1].isEmpty, "\(link.path) has no one-line description")
            }
        }
        let manuals = Set(try Self.manuals()).subtracting(["README.md"])
        #expect(manuals.subtracting(listed).sorted() == [], "manuals the README's table does not list")
    }

    @Test("every link between the manuals resolves, anchors included")
    func links() throws {
        for manual in try Self.manuals() {
            let text = try Self.read(manual)
            let folder = (manual as NSString).deletingLastPathComponent
            for link in MarkdownText.links(in: MarkdownText.withoutCodeBlocks(text)) where !link.path.contains("://") && !link.path.hasPrefix("mailto:") {
                let target = link.path.isEmpty ? manual : MarkdownText.normalized(folder.isEmpty ? link.path : "\(folder)/\(link.path)")
                #expect(Self.exists(target), "\(manual) links to \(link.path), which does not exist (\(target))")
                guard let anchor = link.anchor, target.hasSuffix(".md"), Self.exists(target) else { continue }
                let anchors = MarkdownText.anchors(in: try Self.read(target))
                #expect(anchors.contains(anchor), "\(manual) links to \(target)#\(anchor); it has no such heading")
            }
        }
    }

    @Test("PROTOCOL.md section 7's stream-owner table is StreamOwners")
    func streamOwnersTable() throws {
        let text = try Self.read("Shared/Messages/PROTOCOL.md")
        let section = try #require(MarkdownText.section("### Whose events a consumer applies", in: text))
        let rows = MarkdownText.tableRows(in: section)
        var streams: Set<String> = []
        var streamOfType: [String: String] = [:]
        var prefixes: [(prefix: String, stream: String)] = []
        for row in rows {
            try #require(row.count == 3, "a stream-owner row has three columns: \(row)")
            let stream = try #require(MarkdownText.codeSpans(in: row[0]).first, "no stream in \(row)")
            streams.insert(stream)
            if let owner = StreamOwners.owners[stream] {
                #expect(row[2] == owner, "PROTOCOL.md says \(row[2]) publishes \(stream); StreamOwners says \(owner)")
            } else {
                #expect(StreamOwners.anyService.contains(stream), "PROTOCOL.md lists stream \(stream), which StreamOwners does not know")
                #expect(row[2].hasPrefix("any service"), "\(stream) is published by any service, not \(row[2])")
            }
            for type in MarkdownText.codeSpans(in: row[1]) {
                if type.hasSuffix(".*") { prefixes.append((String(type.dropLast()), stream)) } else { streamOfType[type] = stream }
            }
        }
        #expect(streams == Set(StreamOwners.owners.keys).union(StreamOwners.anyService), "the table's streams differ from StreamOwners'")
        for type in EventType.allCases {
            let listed = streamOfType[type.rawValue] ?? prefixes.first { type.rawValue.hasPrefix($0.prefix) }?.stream
            #expect(listed == StreamOwners.stream(of: type),
                    "\(type.rawValue) travels on \(StreamOwners.stream(of: type)); PROTOCOL.md's table says \(listed ?? "nothing")")
        }
        for named in streamOfType.keys { #expect(EventType(rawValue: named) != nil, "the table names \(named), which is no event type") }
    }

    @Test("deploy/README.md's topics table lists every event that crosses the bus, on its stream and publisher")
    func topicsTable() throws {
        let text = try Self.read("deploy/README.md")
        let section = try #require(MarkdownText.section("### Topics", in: text), "deploy/README.md has no \"### Topics\" section")
        var listed: Set<String> = []
        for row in MarkdownText.tableRows(in: section) {
            try #require(row.count == 4, "a topics row has four columns: \(row)")
            let types = MarkdownText.codeSpans(in: row[1]).filter { EventType(rawValue: $0) != nil }
            #expect(!types.isEmpty, "no event type in \(row)")
            for name in types {
                let type = EventType(rawValue: name)!
                listed.insert(name)
                let stream = StreamOwners.stream(of: type)
                if row[2].hasPrefix("durable") {
                    #expect(row[2] == "durable `\(stream)`", "\(name) travels on \(stream), not \(row[2])")
                    #expect(row[3] == StreamOwners.owners[stream], "\(stream) is published by \(StreamOwners.owners[stream] ?? "?"), not \(row[3])")
                } else {
                    #expect(row[2] == "best-effort" && ["sighting", "heartbeat", "deadletter"].contains(stream), "\(name): \(row[2])")
                }
            }
        }
        // location.fix never crosses the bus: beacon-ingest pushes fixes straight to region-monitor.
        let expected = Set(EventType.allCases.filter { $0 != .locationFix }.map(\.rawValue))
        #expect(expected.subtracting(listed).sorted() == [], "event types missing from deploy/README.md's topics table")
        #expect(!listed.contains(EventType.locationFix.rawValue), "location.fix does not cross the bus")
    }

    @Test("deploy/README.md's ports table names the ops PROTOCOL.md section 5 says each process answers")
    func portsTableOps() throws {
        let ports = try #require(MarkdownText.section("## Ports", in: try Self.read("deploy/README.md")), "deploy/README.md has no \"## Ports\" section")
        var manual: [String: Set<String>] = [:]
        for row in MarkdownText.tableRows(in: ports) where row.count == 3 && row[2].hasPrefix("REP:") {
            for span in MarkdownText.codeSpans(in: row[2]) { manual[row[0], default: []].formUnion(Self.expand(span)) }
        }
        let protocolText = try Self.read("Shared/Messages/PROTOCOL.md")
        let operations = try #require(MarkdownText.section("## 5. Operations", in: protocolText))
        let services = ["beacon-ingest", "region-monitor", "order-service", "kitchen-display", "notification-service"]
        var documented: [String: Set<String>] = [:]
        for row in MarkdownText.tableRows(in: operations) where row.count == 4 {
            guard let op = MarkdownText.codeSpans(in: row[0]).first else { continue }
            let answeredBy: [String] = switch row[1] {
            case "every service, the edge and the bus": services + ["edge", "bus"]
            case "every publisher of durable streams": services
            default: row[1].components(separatedBy: ", ")
            }
            for process in answeredBy { documented[process, default: []].insert(op) }
        }
        #expect(Set(manual.keys) == Set(documented.keys), "processes with a REP port: \(manual.keys.sorted()) against \(documented.keys.sorted())")
        for (process, ops) in documented {
            #expect(manual[process] == ops, "\(process): the ports table says \((manual[process] ?? []).sorted()), PROTOCOL.md \(ops.sorted())")
        }
    }

    @Test("deploy/README.md's roles in short are PROTOCOL.md section 7's, op for op")
    func rolesInShort() throws {
        let manual = try Self.read("deploy/README.md")
        let start = try #require(manual.range(of: "In short:"), "deploy/README.md has no roles \"In short:\" table")
        let end = try #require(manual.range(of: "### What the bus and the consumers check", range: start.upperBound..<manual.endIndex))
        var short: [String: Set<String>] = [:]
        for row in MarkdownText.tableRows(in: String(manual[start.upperBound..<end.lowerBound])) where row.count == 2 {
            // "phone (its device), service (order-service only)": the roles, without their scopes.
            let roles = Self.withoutParentheses(row[1]).replacingOccurrences(of: " and ", with: ", ")
                .components(separatedBy: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            for span in MarkdownText.codeSpans(in: row[0]) {
                for op in Self.expand(span) { short[op] = Set(roles) }
            }
        }
        let protocolText = try Self.read("Shared/Messages/PROTOCOL.md")
        let section = try #require(MarkdownText.section("### Who may call each op", in: protocolText))
        var documented: [String: Set<String>] = [:]
        // | op | roles | edge for | scope |
        for row in MarkdownText.tableRows(in: section) where row.count == 4 {
            guard let op = MarkdownText.codeSpans(in: row[0]).first else { continue }
            documented[op] = Set(row[1].components(separatedBy: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        #expect(!documented.isEmpty)
        #expect(Set(short.keys) == Set(documented.keys), "ops only in deploy/README.md: \(Set(short.keys).subtracting(documented.keys).sorted()); only in PROTOCOL.md: \(Set(documented.keys).subtracting(short.keys).sorted())")
        for (op, roles) in documented where short[op] != nil {
            #expect(short[op] == roles, "\(op): deploy/README.md says \(short[op]!.sorted()), PROTOCOL.md \(roles.sorted())")
        }
    }

    static func withoutParentheses(_ text: String) -> String {
        var depth = 0
        return String(text.filter { character in
            if character == "(" { depth += 1 } else if character == ")" { depth -= 1; return false }
            return depth == 0
        })
    }

    /// `monitor.list/open/close` → monitor.list, monitor.open, monitor.close.
    static func expand(_ span: String) -> [String] {
        let parts = span.components(separatedBy: "/")
        guard let first = parts.first, let dot = first.lastIndex(of: ".") else { return [span] }
        let stem = first[...dot]
        return [first] + parts.dropFirst().map { stem + $0 }
    }
}
