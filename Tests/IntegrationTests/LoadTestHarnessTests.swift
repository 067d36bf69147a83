import Foundation
import LoadTestKit
import Testing

/// `load-test run` against the real platform: a short open-loop run at a modest rate must reach
/// its target, see every region event and order notification it caused, and lose nothing.
/// Only counts are asserted, never times.
@Suite(.serialized)
struct LoadTestHarnessTests {
    @Test("load-test run holds 2000 sightings/s with 200 phones and 2 orders/s for 3 s, and loses nothing")
    func shortRun() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let run = try LoadTestLaunch(platform, [
            "--rate", "2000", "--duration", "3", "--devices", "200", "--order-rate", "2", "--batch", "50",
            // The platform under test runs region-monitor with a 5 s exit timeout.
            "--beacon-exit-seconds", "5",
        ])
        let stderr = run.finish()
        try #require(run.process.terminationStatus == 0, "load-test run failed: \(stderr.suffix(2000))")

        let report = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: run.json))
        #expect(report.sightings.target == 2000)
        #expect(abs(report.sightings.achievedRatio - 1) <= 0.1, "achieved \(report.sightings.acceptedPerSecond)/s of \(report.sightings.target)/s")
        #expect(report.sightings.accepted == report.sightings.sent)
        #expect(report.regionEvents.latencyMs.count > 0)
        #expect(report.regionEvents.seen == report.regionEvents.expected)
        #expect(report.regionEvents.unexpected == 0)
        #expect(report.orders.started >= 5)
        #expect(report.orders.latencyMs.count > 0)
        #expect(report.orders.notified == report.orders.started)
        #expect(report.bus.measured)
        #expect(report.bus.consumedByRegionMonitor == report.bus.publishedBestEffort)
        #expect(report.lost == 0, "lost: \(report)")
        // The raw chains walked beside it, on their schedules (100/s and the order rate over 3 s).
        let raw = try #require(report.rawChains, "no raw chains in the report")
        #expect(raw.sightingMs.count + UInt64(raw.timeouts) >= 250 && raw.sightingMs.count > 0, "\(raw)")
        #expect(raw.orderMs.count >= 5 && raw.orderRoundTripMs.count == raw.orderMs.count && raw.orderHopsMs.count == raw.orderMs.count, "\(raw)")
        // load-test's own threads asked for nice -10; as root they have it, else the report says it was not permitted.
        let priority = try #require(report.generatorPriority, "no generator priority in the report")
        #expect(priority.asked == -10 && (priority.applied == nil || priority.applied == -10), "\(priority)")
        #expect(run.table.contains("generator priority: nice"), "\(run.table)")
        // Every walk's total holds its hops, so its percentiles hold theirs.
        #expect(raw.orderMs.p50 >= raw.orderHopsMs.p50 && raw.orderMs.p99 >= raw.orderHopsMs.p99, "\(raw)")
        // Percentiles are ordered.
        for latency in [report.regionEvents.latencyMs, report.orders.latencyMs, raw.sightingMs, raw.orderMs] {
            #expect(latency.p50 <= latency.p99 && latency.p99 <= latency.max)
        }

        // While it ran: one progress line a second on stderr; at the end a table on stdout.
        #expect(stderr.components(separatedBy: "\n").filter { $0.hasPrefix("[") && $0.contains("sent") && $0.contains("p99") }.count >= 2)
        let table = run.table
        for heading in ["sightings/s", "sighting → region event", "order → ready notification", "total lost: 0", "targets (issue 15)"] {
            #expect(table.contains(heading), "the table has no \(heading)")
        }
        // CPU per sighting from the processes' own rusage, the bus's included (its health endpoint was given).
        let cpu = try #require(table.split(separator: "\n").first { $0.hasPrefix("pipeline CPU per sighting:") }, "\(table)")
        #expect(cpu.contains("beacon-ingest") && cpu.contains("region-monitor") && cpu.contains("bus") && !cpu.contains("not measured"), "\(cpu)")
        // Every target line says met, by how much it was missed, or why it was not judged.
        let targetSection = table.components(separatedBy: "targets (issue 15)").last?.components(separatedBy: "beside the targets").first ?? ""
        let targets = targetSection.split(separator: "\n").filter { !$0.isEmpty }
        #expect(targets.count >= 5, "\(table)")
        #expect(targets.allSatisfy { $0.hasSuffix("met") || $0.contains("MISSED") || $0.contains("not judged") }, "\(targets)")
        // Each latency beside its raw chain, and whether the hops alone leave room for the target.
        for row in ["raw: a sighting's hand-offs", "raw: an order's hand-offs"] { #expect(table.contains(row), "\(table)") }
        let beside = table.components(separatedBy: "(raw chains)").last?.split(separator: "\n").filter { !$0.isEmpty } ?? []
        #expect(beside.filter { $0.contains("the raw chain's p99") }.count == 2, "\(table)")
        #expect(beside.allSatisfy { $0.contains("leave") || $0.contains("take the") || $0.contains("did not pass") }, "\(beside)")
    }

    @Test("load-test run refuses bad settings with one line and status 2", arguments: [
        ["--rate", "0"], ["--batch", "1001"], ["--raw-rate", "-1"], ["--ingest", "localhost:7410"], ["--devices", "0"], ["--bogus", "1"],
    ])
    func badSettings(arguments: [String]) throws {
        let process = Process()
        process.executableURL = try Platform.binaryDirectory().appendingPathComponent("load-test")
        process.arguments = ["run"] + arguments
        let err = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        try process.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 2)
        #expect(message.split(separator: "\n").count == 1, "\(message)")
    }

    @Test("load-test run --help lists every option with its default")
    func help() throws {
        let process = Process()
        process.executableURL = try Platform.binaryDirectory().appendingPathComponent("load-test")
        process.arguments = ["run", "--help"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        for flag in ["rate", "duration", "devices", "batch", "order-rate", "ingest", "orders", "kitchen", "notify", "bus-sub", "region", "campus", "json", "warmup"] {
            #expect(text.contains("--\(flag) <"), "--help does not list --\(flag)")
        }
        #expect(text.components(separatedBy: ", default ").count - 1 >= 14)
    }
}
