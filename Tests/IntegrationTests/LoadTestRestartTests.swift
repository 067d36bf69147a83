import Foundation
import LoadTestKit
import Testing
import ZeroMQ

/// `load-test run` while services are killed with SIGKILL and started again: its published and
/// consumed figures count across the restart (the health counters start at 0 again), and the
/// order requests that were in flight inside the killed order-service are sent again with the
/// same idempotency key, so every order still ends in its notification.
@Suite(.serialized)
struct LoadTestRestartTests {
    @Test("beacon-ingest and order-service killed -9 and restarted mid-run: counts go on across the restart, order requests are sent again and every order is notified")
    func killedMidRun() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let run = try LoadTestLaunch(platform, [
            "--rate", "1000", "--duration", "5", "--devices", "100", "--order-rate", "4", "--batch", "20",
            "--beacon-exit-seconds", "5", "--timeout", "8", "--retry-seconds", "0.5",
            // No raw chains beside this run: their figures mean nothing across a kill.
            "--raw-rate", "0",
        ])

        let context = try Context()
        func published(_ details: [String: String]) -> Int { Int(details["published.bestEffort"] ?? "") ?? 0 }
        // The run under way (its first quarter second of sightings published, so load-test has
        // read beacon-ingest's counters): beacon-ingest dies and comes straight back (its
        // counters start at 0 again).
        try platform.waitForHealth("beacon-ingest", "the run's sightings published", context, timeout: 30) { published($0) >= 250 }
        platform.kill9("beacon-ingest")
        try platform.start("beacon-ingest")
        // Once it publishes again and order-service has taken an order since, order-service hangs
        // (the requests sent meanwhile sit in its socket), is killed -9 with one in flight, and is
        // back half a second later: they get an answer only because they are sent again.
        try platform.waitForHealth("beacon-ingest", "sightings published after its restart", context) { published($0) > 0 }
        let ordersBefore = try platform.lastSeq("order-service", "order", context)
        _ = try eventually("an order taken after beacon-ingest's restart") { try platform.lastSeq("order-service", "order", context) > ordersBefore ? true : nil }
        let orderService = try #require(platform.process("order-service"))
        kill(orderService.processIdentifier, SIGSTOP)
        let orderPort = try #require(platform.ports["order-service"])
        _ = try eventually("a request of load-test's unread in the stopped order-service's socket", timeout: 5) {
            TCPConnection.unread(at: orderPort, from: run.process.processIdentifier) ? true : nil
        }
        platform.kill9("order-service")
        // Not a wait: down for a moment, as a crashed container is, so the requests sent again
        // first meet no one.
        usleep(500_000)
        try platform.start("order-service")
        let stderr = run.finish()
        try #require(run.process.terminationStatus == 0, "load-test run failed: \(stderr.suffix(2000))")

        let report = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: run.json))
        #expect(report.rawChains == nil, "raw chains walked with --raw-rate 0")
        #expect(report.bus.measured)
        #expect(report.bus.restarts["beacon-ingest"] == 1, "\(report.bus)")
        #expect(report.bus.restarts["region-monitor"] == 0, "\(report.bus)")
        // Counted across the restart: about every sighting accepted was counted as published
        // (only what the killed process published after its last health read, a quarter of a
        // second at most, is unknown), and neither count exceeds what was sent (a batch the
        // killed process published but never answered is sent, not accepted).
        #expect(Double(report.bus.publishedBestEffort) >= 0.8 * Double(report.sightings.accepted), "\(report.bus) of \(report.sightings.accepted) accepted")
        #expect(report.bus.publishedBestEffort <= report.sightings.sent, "\(report.bus)")
        #expect(report.bus.consumedByRegionMonitor <= report.sightings.sent)
        #expect(report.bus.shed == max(0, report.bus.publishedBestEffort - report.bus.consumedByRegionMonitor))

        #expect(report.orders.resent > 0, "requests sent again: \(report.orders)")
        #expect(report.orders.started >= 15)
        #expect(report.orders.failed == 0 && report.orders.lost == 0, "\(report.orders) \(stderr.suffix(1500))")
        #expect(report.orders.notified == report.orders.started, "\(report.orders)")
        let table = run.table
        #expect(table.contains("restarts seen: beacon-ingest 1×") && table.contains("requests sent again"), "\(table)")
    }
}
