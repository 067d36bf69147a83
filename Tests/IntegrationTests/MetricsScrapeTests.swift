import Foundation
import Messages
import ServiceRuntime
import Testing
import TestSupport

/// The edge's `/metrics` on a real platform: the bus, the five services and the edge as
/// processes on free loopback ports, scraped with curl as Prometheus would and checked with
/// Debian's `promtool check metrics`; a process killed shows `cafe_up 0` rather than vanishing;
/// the listener refuses what is not a scrape, and plain mode will not bind it off loopback.
@Suite(.serialized)
struct MetricsScrapeTests {
    /// The platform with the edge (no Pushpin: the scrape never goes through it), its metrics port.
    final class Rig {
        let platform: Platform
        let edgePort: Int, metricsPort: Int, zhttpPort: Int

        init(security: SocketSecurity.Mode) throws {
            platform = try Platform(security: security)
            let ports = try LoopbackPorts.free(3)
            (edgePort, metricsPort, zhttpPort) = (ports[0], ports[1], ports[2])
            if let keys = platform.keys { _ = try keys.add(name: "edge", role: .edge) }
        }

        var metricsURL: String { "http://127.0.0.1:\(metricsPort)/metrics" }

        func start() throws {
            try platform.start(busAnd: Platform.services)
            var args = ["--listen", "tcp://127.0.0.1:\(edgePort)", "--bus-pub", platform.busPub, "--bus-sub", platform.busSub,
                        "--data-dir", platform.root.appendingPathComponent("data").path, "--zhttp-endpoint", "tcp://127.0.0.1:\(zhttpPort)",
                        "--ingest-endpoints", platform.endpoint("beacon-ingest"), "--region-endpoints", platform.endpoint("region-monitor"),
                        "--orders-endpoint", platform.endpoint("order-service"), "--kitchen-endpoint", platform.endpoint("kitchen-display"),
                        "--notify-endpoint", platform.endpoint("notification-service"), "--metrics-listen", "tcp://127.0.0.1:\(metricsPort)",
                        "--bus-health-endpoint", platform.endpoint("bus"), "--metrics-timeout-ms", "1000"]
            if let keys = platform.keys { args += ["--security", "deployed", "--keys", keys.path, "--instance", "edge"] }
            try platform.children.start("edge", executable: "edge", arguments: args, inRootFolder: false)
            let curve = try platform.keys.map { _ in try platform.security(as: KeyFolder.defaultOperator).clientKeys(server: "edge") } ?? nil
            try platform.children.waitHealthy("edge", endpoint: "tcp://127.0.0.1:\(edgePort)", curve: curve)
        }

        /// One HTTP exchange with curl: the status line's code, the header block and the body.
        func http(_ arguments: [String] = [], url: String? = nil) throws -> (status: Int, head: String, body: String) {
            let scratch = platform.root.appendingPathComponent("scrape-\(UUID().uuidString.prefix(8))")
            let result = try runCommand(URL(fileURLWithPath: "/usr/bin/curl"),
                                        ["-s", "-S", "-m", "10", "-D", scratch.path + ".head", "-o", scratch.path + ".body"] + arguments + [url ?? metricsURL])
            guard result.status == 0 else { throw PlatformError("curl failed: \(result.err)") }
            let head = (try? String(contentsOfFile: scratch.path + ".head", encoding: .utf8)) ?? ""
            let body = (try? String(contentsOfFile: scratch.path + ".body", encoding: .utf8)) ?? ""
            return (Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0, head, body)
        }

        /// `promtool check metrics` on a page: its exit status and what it said.
        func promtool(_ page: String) throws -> CommandResult {
            let file = platform.root.appendingPathComponent("page-\(UUID().uuidString.prefix(8)).txt")
            try page.write(to: file, atomically: true, encoding: .utf8)
            return try runCommand(URL(fileURLWithPath: "/bin/sh"), ["-c", "promtool check metrics < '\(file.path)'"])
        }

        /// The value of the sample written exactly as `series`, nil when the page has none.
        static func value(_ series: String, in page: String) -> Double? {
            page.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.dropFirst(series.count + 1)) }
        }

        func stop() { platform.stop() }
    }

    static let processes = ["bus", "beacon-ingest", "region-monitor", "order-service", "kitchen-display", "notification-service", "edge"]

    @Test("deployed mode: one scrape holds every process (the edge asks each over CURVE as itself), promtool check metrics passes; a killed process is cafe_up 0, the rest stay")
    func deployedScrape() throws {
        let rig = try Rig(security: .deployed)
        defer { rig.stop() }
        try rig.start()
        // Consumers report a publisher's heartbeat age once they have heard one: the beat at start
        // can go before their subscription is in place, the next comes a second later.
        var scrape = try rig.http()
        for _ in 0..<50 where !scrape.body.contains("\ncafe_heartbeat_age_seconds{") {
            Thread.sleep(forTimeInterval: 0.1)
            scrape = try rig.http()
        }
        #expect(scrape.status == 200 && scrape.head.lowercased().contains("content-type: text/plain; version=0.0.4"), "\(scrape.head)")
        let check = try rig.promtool(scrape.body)
        #expect(check.status == 0, "promtool check metrics: \(check.out) \(check.err)")
        for service in Self.processes {
            #expect(Rig.value(#"cafe_up{service="\#(service)",instance="\#(service)"}"#, in: scrape.body) == 1, "\(service)")
            #expect(Rig.value(#"cafe_requests_total{service="\#(service)",instance="\#(service)",op="health"}"#, in: scrape.body).map { $0 >= 1 } == true, "\(service)")
        }
        for family in ["cafe_process_cpu_seconds_total", "cafe_process_resident_memory_bytes", "cafe_database_bytes", "cafe_filesystem_avail_bytes",
                       "cafe_request_duration_seconds_bucket", "cafe_sighting_to_region_event_seconds_count", "cafe_order_to_notification_seconds_count",
                       "cafe_heartbeat_age_seconds", "cafe_kitchen_link", "cafe_push_credentials_ok", "cafe_dead_letters_total"] {
            #expect(scrape.body.contains("\n" + family + "{"), "\(family)")
        }

        rig.platform.kill9("order-service")
        let after = try rig.http()
        #expect(after.status == 200)
        #expect(Rig.value(#"cafe_up{service="order-service",instance="order-service"}"#, in: after.body) == 0)
        #expect(!after.body.contains(#"cafe_healthy{service="order-service""#))
        for service in Self.processes where service != "order-service" {
            #expect(Rig.value(#"cafe_up{service="\#(service)",instance="\#(service)"}"#, in: after.body) == 1, "\(service)")
        }
        #expect(try rig.promtool(after.body).status == 0)
    }

    @Test("plain mode: a sighting's region event is in the sighting → region event histogram; what is not a scrape is refused (404, 405, 431), HEAD has no body")
    func plainScrapeAndRefusals() throws {
        let rig = try Rig(security: .plain)
        defer { rig.stop() }
        try rig.start()
        let walk = [["phone", "status", "--device", "phone-1", "--authorization", "whenInUse", "--foreground", "true"],
                    ["phone", "sight", "--device", "phone-1", "--uuid", "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30", "--major", "1", "--minor", "1", "--rssi", "-62", "--count", "3"]]
        for command in walk {
            let result = try rig.platform.cafectl(command)
            #expect(result.status == 0, "\(result.err)")
        }
        let series = #"cafe_sighting_to_region_event_seconds_count{service="region-monitor",instance="region-monitor"}"#
        var page = ""
        let deadline = Date().addingTimeInterval(10)
        repeat {
            page = try rig.http().body
            if (Rig.value(series, in: page) ?? 0) >= 1 { break }
            usleep(200_000)
        } while Date() < deadline
        #expect((Rig.value(series, in: page) ?? 0) >= 1, "\(page.split(separator: "\n").filter { $0.contains("sighting") })")
        #expect(try rig.promtool(page).status == 0)

        #expect(try rig.http(url: "http://127.0.0.1:\(rig.metricsPort)/v1/menu").status == 404)
        #expect(try rig.http(["-X", "POST", "-d", "x"]).status == 405)
        #expect(try rig.http(["-H", "X-Padding: " + String(repeating: "a", count: 9_000)]).status == 431)
        // curl -I writes the header block where the body would go: no sample may follow it.
        let head = try rig.http(["-I"])
        #expect(head.status == 200 && !head.body.contains("cafe_up"), "\(head.body)")
        // The page still answers after the refusals.
        #expect(try rig.http().status == 200)
    }

    @Test("plain mode will not bind the metrics listener off loopback: the edge refuses to start and says why")
    func plainRefusesNonLoopback() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-bind-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        let ports = try LoopbackPorts.free(2)
        let result = try runCommand(try Platform.binaryDirectory().appendingPathComponent("edge"),
                                    ["--listen", "tcp://127.0.0.1:\(ports[0])", "--data-dir", folder.path, "--metrics-listen", "tcp://0.0.0.0:\(ports[1])"],
                                    timeout: 20)
        #expect(result.status == 1, "\(result.status) \(result.err)")
        #expect(result.err.contains("--metrics-listen") && result.err.contains("loopback"), "\(result.err)")
    }
}
