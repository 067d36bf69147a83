import Foundation
import Messages
import ServiceRuntime
import XCTest
import ZeroMQ

/// The kitchen's terminal screen in a real terminal: tmux runs it in a detached pane, the test
/// types keys with `send-keys` and reads the screen back with `capture-pane -p`.
final class KitchenScreenTests: XCTestCase {
    /// A private tmux server (its own socket name), so the test never touches a user's sessions.
    final class Tmux {
        let binary: URL
        let server = "cafe-kds-\(UUID().uuidString.prefix(8))"
        let session = "kds"

        init() throws {
            let candidates = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/opt/homebrew/bin/tmux"]
                + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/tmux" }
            guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
                throw XCTSkip("tmux is not installed (apt-get install tmux); the terminal screen test needs it to run the screen in a pane")
            }
            binary = URL(fileURLWithPath: path)
        }

        /// Runs one tmux command with posix_spawn and waitpid. Not with Foundation's `Process`:
        /// it learns that a child exited when a pipe the child inherited closes, and the tmux
        /// server that `new-session` forks keeps that pipe open, so the wait would never end.
        @discardableResult
        func run(_ arguments: [String]) throws -> String {
            let out = FileManager.default.temporaryDirectory.appendingPathComponent("\(server)-\(UUID().uuidString.prefix(6)).out")
            let err = out.appendingPathExtension("err")
            defer {
                try? FileManager.default.removeItem(at: out)
                try? FileManager.default.removeItem(at: err)
            }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, out.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_addopen(&actions, 2, err.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            let argv: [UnsafeMutablePointer<CChar>?] = ([binary.path, "-L", server] + arguments).map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            var pid: pid_t = 0
            let spawned = posix_spawn(&pid, binary.path, &actions, nil, argv, environ)
            guard spawned == 0 else { throw PlatformError("could not start tmux: \(String(cString: strerror(spawned)))") }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            let text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            // WIFEXITED && WEXITSTATUS == 0, spelled out: the C macros are not imported.
            guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
                throw PlatformError("tmux \(arguments.joined(separator: " ")) failed (status \(status)): \((try? String(contentsOf: err, encoding: .utf8)) ?? "")")
            }
            return text
        }

        /// Opens the pane. A tmux that cannot open one at all (no pseudo-terminals in this sandbox,
        /// say) skips the test with tmux's own words; anything after this point is a real failure.
        func start(_ command: [String], columns: Int, rows: Int) throws {
            do {
                // The words go to tmux as separate arguments, so it executes them directly, with no
                // shell between; a pane whose program exits stays on screen with its last words.
                try run(["start-server", ";", "set-option", "-g", "remain-on-exit", "on", ";",
                         "new-session", "-d", "-s", session, "-x", "\(columns)", "-y", "\(rows)"] + command)
            } catch {
                throw XCTSkip("tmux is installed but could not open a pane here, so the screen cannot be driven: \(error)")
            }
        }

        func keys(_ keys: String...) throws { try run(["send-keys", "-t", session] + keys) }

        func screen() throws -> String { try run(["capture-pane", "-p", "-t", session]) }

        func resize(columns: Int, rows: Int) throws { try run(["resize-window", "-t", session, "-x", "\(columns)", "-y", "\(rows)"]) }

        /// Waits until the pane shows what `match` wants; the last screen goes in the error.
        func waitFor(_ what: String, timeout: Double = 30, _ match: (String) -> Bool) throws -> String {
            var last = ""
            return try eventually("\(what) on the screen", timeout: timeout) {
                last = try screen()
                return match(last) ? last : nil
            }
        }

        func kill() { _ = try? run(["kill-server"]) }
    }

    func testBumpOnTheScreenInTmux() throws {
        let tmux = try Tmux()
        let platform = try Platform()
        defer {
            tmux.kill()
            platform.stop()
        }
        try platform.startAll()
        let context = try Context()
        let orders = RequestClient(context: context, endpoint: platform.endpoint("order-service"), timeoutMilliseconds: 3_000)
        let kitchen = RequestClient(context: context, endpoint: platform.endpoint("kitchen-display"), timeoutMilliseconds: 3_000)
        defer { [orders, kitchen].forEach { $0.close() } }
        let orderId = try KitchenDisplayTests.placeTwoStationOrder(orders, key: "kds-screen-1")
        let short = "#" + orderId.suffix(6)

        // The grill's screen, attached to the running kitchen-display.
        try tmux.start([platform.bin.appendingPathComponent("kitchen-display").path, "--attach", platform.endpoint("kitchen-display"), "--station", "grill"],
                       columns: 120, rows: 30)
        let before = try tmux.waitFor("the order's grill ticket, links up") { $0.contains(short) && $0.contains("links: bus up, order-service up") }
        let lines = before.components(separatedBy: "\n")
        XCTAssertTrue(lines[0].contains("[grill]"), "the grill view is selected:\n\(before)")
        let row = try XCTUnwrap(lines.first { $0.contains(short) }, before)
        // A kiosk order fires at once: the grill (240 s) now, the salad (150 s) held to finish with it.
        XCTAssertTrue(row.hasPrefix(">") && row.contains("FIRE") && row.contains("2x Grass-fed burger (Add cheese)"), "selected, fired, the grill's lines only:\n\(before)")
        XCTAssertFalse(row.contains("Caesar"), "the salad's line is not on the grill:\n\(before)")
        XCTAssertTrue(before.contains("all day: 2 "), "all-day count:\n\(before)")

        // Start, then bump with the keys: the ticket leaves the grill's screen and the kitchen says so.
        try tmux.keys("s")
        _ = try tmux.waitFor("the ticket cooking") { $0.components(separatedBy: "\n").contains { $0.contains(short) && $0.contains("COOKING") } }
        try tmux.keys("b")
        let bumped = try tmux.waitFor("the ticket bumped off the grill") { screen in
            screen.contains("\(orderId):grill → BUMPED") && !screen.components(separatedBy: "\n").contains { $0.hasPrefix(">") || $0.hasPrefix(" #") }
        }
        XCTAssertTrue(bumped.contains("no open tickets"), bumped)
        let grill = try kitchen.call(Op.kdsTickets, TicketsQuery(includeDone: true), as: TicketsReply.self).tickets.first { $0.ticketId == "\(orderId):grill" }
        XCTAssertEqual(grill?.state, .ready, "the screen's key went through the kitchen's command")

        // Recall brings it back; the expediter view (→ past the salad's) shows the whole order.
        try tmux.keys("r")
        _ = try tmux.waitFor("the recalled ticket") { $0.contains("recalled \(orderId):grill") && $0.components(separatedBy: "\n").contains { $0.contains(short) && $0.contains("COOKING") } }
        try tmux.keys("Right", "Right")
        let expediter = try tmux.waitFor("the expediter's order") { $0.contains("[EXPEDITER]") && $0.contains("grill:COOKING") && $0.contains("salad:NEW") }
        XCTAssertTrue(expediter.components(separatedBy: "\n").contains { $0.contains(short) }, expediter)

        // A resize redraws cleanly: the header and the key line fit the new width, nothing left over.
        try tmux.resize(columns: 60, rows: 12)
        let small = try tmux.waitFor("a redraw at 60x12") { screen in
            let lines = screen.components(separatedBy: "\n")
            return lines.first?.hasPrefix("KITCHEN") == true && lines.contains { $0.hasPrefix("keys:") }
        }
        let smallLines = small.components(separatedBy: "\n").filter { !$0.isEmpty }
        XCTAssertTrue(smallLines.allSatisfy { $0.count <= 60 }, small)
        XCTAssertLessThanOrEqual(smallLines.count, 12, small)

        // The kitchen-display process dies: the screen says so, instead of going quietly empty.
        platform.kill9("kitchen-display")
        _ = try tmux.waitFor("the not-answering banner") { $0.contains("KITCHEN-DISPLAY NOT ANSWERING") }
        try tmux.keys("q")
    }

    /// `--screen`: the service itself runs with the screen on its terminal, and its command socket
    /// stays open; a key and a `cafectl kds` command change the same queue.
    func testScreenModeKeepsTheCommandSocket() throws {
        let tmux = try Tmux()
        let platform = try Platform()
        defer {
            tmux.kill()
            platform.stop()
        }
        try platform.startAll()
        // The platform's headless kitchen makes way for one with its screen, same port and database.
        platform.kill9("kitchen-display")
        try tmux.start([platform.bin.appendingPathComponent("kitchen-display").path, "--screen"] + platform.arguments(for: "kitchen-display"),
                       columns: 120, rows: 30)
        let context = try Context()
        let orders = RequestClient(context: context, endpoint: platform.endpoint("order-service"), timeoutMilliseconds: 3_000)
        defer { orders.close() }
        let orderId = try KitchenDisplayTests.placeTwoStationOrder(orders, key: "kds-screen-mode-1")
        let short = "#" + orderId.suffix(6)
        // Right after a start the link line may still say "connecting" for a moment; it has to
        // settle on both links up while the tickets are there.
        _ = try tmux.waitFor("both tickets on the in-process screen, links up") { screen in
            let rows = screen.components(separatedBy: "\n").filter { $0.contains(short) }
            return rows.count == 2 && rows.contains { $0.contains("grill") && $0.contains("FIRE") } && rows.contains { $0.contains("salad") && $0.contains("HOLD 1:") }
                && screen.contains("links: bus up, order-service up")
        }

        // The socket answers while the screen runs; a bump through it shows on the screen.
        let bumped = try platform.cafectl(["kds", "bump", "\(orderId):salad"])
        XCTAssertEqual(bumped.status, 0, bumped.err)
        _ = try tmux.waitFor("the salad gone after the socket's bump") { screen in
            let rows = screen.components(separatedBy: "\n").filter { $0.contains(short) }
            return rows.count == 1 && rows[0].contains("grill")
        }
        // And the key bumps the last station: the order is ready at order-service.
        try tmux.keys("b")
        _ = try tmux.waitFor("the grill bumped by key") { $0.contains("\(orderId):grill → BUMPED") }
        _ = try eventually("order ready at order-service") {
            try orders.call(Op.orderGet, OrderQuery(orderId: orderId), as: OrderView.self).order.state == .ready ? true : nil
        }
        let listed = try platform.cafectl(["kds", "tickets", "--all", "true"])
        XCTAssertTrue(listed.out.contains("\"state\":\"ready\""), listed.out)
    }
}
