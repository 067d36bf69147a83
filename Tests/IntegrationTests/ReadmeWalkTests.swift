import Foundation
import Testing

/// The README's first screen promises a new user a ready notification from a clean clone. Its
/// walk is run here as written, against a real platform: every `$C …` line with cafectl, the ids
/// the user is told to copy taken from the answers they come in, and the last line must show the
/// order's ready notification in the phone's inbox.
@Suite("README walk")
struct ReadmeWalkTests {
    /// The walk's command lines: continuations joined, comments kept apart.
    static func walk() throws -> [(command: String, comment: String)] {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let section = try #require(text.range(of: "## From a clean clone to a ready notification"), "README.md has no walk section")
        let rest = text[section.upperBound...]
        let open = try #require(rest.range(of: "```sh\n"), "the walk has no ```sh block")
        let close = try #require(rest.range(of: "\n```", range: open.upperBound..<rest.endIndex))
        var lines: [(String, String)] = []
        var pending = ""
        for raw in rest[open.upperBound..<close.lowerBound].components(separatedBy: "\n") {
            // A comment starts at a # after blanks; the walk has no # inside an argument.
            let parts = raw.components(separatedBy: " #")
            let code = parts[0].trimmingCharacters(in: .whitespaces)
            let comment = parts.dropFirst().joined(separator: " #").trimmingCharacters(in: .whitespaces)
            if code.hasSuffix("\\") { pending += code.dropLast() + " "; continue }
            lines.append((pending + code, comment))
            pending = ""
        }
        return lines.filter { !$0.0.isEmpty }
    }

    /// The JSON object a command printed.
    static func object(_ output: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "not a JSON object: \(output.prefix(200))")
    }

    @Test("the README's walk, run as written, ends with the order's ready notification in the inbox")
    func walkToReadyNotification() throws {
        let walk = try Self.walk()
        #expect(walk.first?.command == "deploy/run-local.sh --detach", "the walk starts the platform")
        #expect(walk.last?.command == "deploy/stop-local.sh", "the walk stops the platform")

        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        var ids: [String: String] = [:]
        var last: (command: String, output: String)?
        for (command, comment) in walk {
            if command.hasPrefix("deploy/") || command.hasPrefix("C=") { continue }
            try #require(command.hasPrefix("$C "), "a walk line that is not cafectl: \(command)")
            let arguments = command.dropFirst(3).split(separator: " ").map { word -> String in
                var word = String(word)
                for (name, value) in ids { word = word.replacingOccurrences(of: "<\(name)>", with: value) }
                return word
            }
            #expect(!arguments.contains { $0.contains("<") }, "\(command): an id the walk never gave: \(arguments)")
            // What the comment says the answer holds ("rule":"nearestBeacon", "Your order is ready")
            // arrives over the bus: asked again until it is there.
            let expected = comment.range(of: #""[^"]+"(:"[^"]+")?"#, options: .regularExpression).map { String(comment[$0]) } ?? ""
            let first = try platform.cafectl(arguments)
            try #require(first.status == 0, "\(command) exited \(first.status): \(first.err)")
            let holds = { (out: String) in expected.isEmpty || out.replacingOccurrences(of: "\" : ", with: "\":").contains(expected) }
            let output = holds(first.out) ? first.out : try eventually("\(command) answering \(expected)", timeout: 20) { () -> String? in
                let again = try platform.cafectl(arguments)
                return again.status == 0 && holds(again.out) ? again.out : nil
            }
            if arguments.prefix(1) == ["reserve"] { ids["reservationId"] = try Self.object(output)["reservationId"] as? String }
            if arguments.prefix(2) == ["order", "place"] {
                ids["orderId"] = try (Self.object(output)["order"] as? [String: Any])?["orderId"] as? String
            }
            last = (command, output)
        }
        let inbox = try #require(last, "the walk ran no cafectl command")
        #expect(inbox.command.hasPrefix("$C inbox"), "the walk ends with the inbox")
        let notifications = try Self.object(inbox.output)["notifications"] as? [[String: Any]] ?? []
        #expect(notifications.contains { $0["kind"] as? String == "orderReady" && $0["orderId"] as? String == ids["orderId"] },
                "no ready notification for \(ids["orderId"] ?? "the order") in \(inbox.output.prefix(400))")
    }
}
