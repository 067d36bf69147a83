import EdgeServer
import Foundation
import Messages
import Metrics
import Testing

/// The edge's `/metrics`: a health reply as samples (counters as counters, gauges as gauges,
/// histograms from their health form), a process that did not answer as `cafe_up 0`, what the
/// listener reads from a connection, and the alert rules and dashboard held to the names exported.
@Suite("Metrics exposition")
struct MetricsExpositionTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func lines(_ health: HealthStatus) -> [String] {
        var page = PrometheusText()
        HealthExposition.add(health, service: "kitchen-display", instance: "kitchen-display", to: &page)
        return page.render().split(separator: "\n").map(String.init)
    }

    @Test("every kind of health key becomes the sample of its family, labelled with service and instance")
    func mapping() {
        var latency = LatencyBuckets()
        latency.record(seconds: 0.004)
        let health = HealthStatus(service: "kitchen-display", instance: "kitchen-display", status: "degraded", uptimeSeconds: 3, streams: ["kitchen": 12],
                                  outboxPending: 2, details: [
                                    "reasons": "consumer.behind", "process.cpuMicros": "2500000", "process.residentBytes": "1024", "deadLettered": "4",
                                    "op:kds.bump:requests": "7", "op:kds.bump:error:auth.forbidden": "2", "op:kds.bump:error:kds.unknownTicket": "1",
                                    "op:kds.bump:latency": latency.encoded, "cursor.order-service/order": "40", "lag.order-service/order.events": "3",
                                    "lag.order-service/order.seconds": "12.5", "heartbeat.order-service.ageSeconds": "0.5", "shed.beacon-ingest-s0": "9",
                                    "link.bus": "up", "link.orderService": "down", "tickets.open": "5", "bus.pub": "tcp://bus:7401", "monitors": "3",
                                    "catalog.digest": "ab12", "fs.bytes": "1000", "fs.availableBytes": "100", "forward.order-service.timedOut": "6",
                                  ])
        let lines = Self.lines(health)
        let base = #"service="kitchen-display",instance="kitchen-display""#
        for expected in [
            "cafe_up{\(base)} 1", "cafe_healthy{\(base)} 0", #"cafe_degraded{\#(base),reason="consumer.behind"} 1"#, "cafe_outbox_pending{\(base)} 2",
            #"cafe_stream_last_seq{\#(base),stream="kitchen"} 12"#, "cafe_process_cpu_seconds_total{\(base)} 2.5", "cafe_process_resident_memory_bytes{\(base)} 1024",
            "cafe_dead_letters_total{\(base)} 4", #"cafe_requests_total{\#(base),op="kds.bump"} 7"#,
            #"cafe_requests_refused_total{\#(base),op="kds.bump",code="auth.forbidden"} 2"#,
            #"cafe_request_errors_total{\#(base),op="kds.bump",code="kds.unknownTicket"} 1"#,
            #"cafe_request_duration_seconds_bucket{\#(base),op="kds.bump",le="0.005"} 1"#, #"cafe_request_duration_seconds_count{\#(base),op="kds.bump"} 1"#,
            #"cafe_consumer_cursor{\#(base),publisher="order-service",stream="order"} 40"#,
            #"cafe_consumer_lag_events{\#(base),publisher="order-service",stream="order"} 3"#,
            #"cafe_consumer_lag_seconds{\#(base),publisher="order-service",stream="order"} 12.5"#,
            #"cafe_heartbeat_age_seconds{\#(base),publisher="order-service"} 0.5"#, #"cafe_shed_total{\#(base),publisher="beacon-ingest-s0"} 9"#,
            #"cafe_kitchen_link{\#(base),link="bus",state="up"} 1"#, #"cafe_kitchen_link{\#(base),link="orderService",state="down"} 1"#,
            "cafe_tickets_open{\(base)} 5", #"cafe_health_value{\#(base),key="monitors"} 3"#, "cafe_filesystem_avail_bytes{\(base)} 100",
            #"cafe_edge_forward_failures_total{\#(base),target="order-service",outcome="timedOut"} 6"#,
        ] {
            #expect(lines.contains(expected), "\(expected)")
        }
        #expect(lines.contains("# TYPE cafe_dead_letters_total counter") && lines.contains("# TYPE cafe_tickets_open gauge"))
        #expect(lines.contains("# TYPE cafe_request_duration_seconds histogram"))
        // Text details are not samples.
        #expect(!lines.contains { $0.contains("bus.pub") || $0.contains("catalog.digest") })
    }

    @Test("a process that did not answer is cafe_up 0 and nothing else; an oversize reply's details are left out")
    func downAndBounded() {
        var page = PrometheusText()
        HealthExposition.addDown(service: "order-service", instance: "order-service", to: &page)
        #expect(page.render().split(separator: "\n").last == #"cafe_up{service="order-service",instance="order-service"} 0"#)
        var details: [String: String] = [:]
        for index in 0...HealthExposition.maxDetails { details["k\(index)"] = "1" }
        details[String(repeating: "k", count: 300)] = "1"
        let lines = Self.lines(HealthStatus(service: "x", instance: "x", status: "ok", uptimeSeconds: 1, streams: [:], outboxPending: 0, details: details))
        #expect(!lines.contains { $0.hasPrefix("cafe_health_value") })
        #expect(HealthExposition.decode(Array(String(repeating: "[", count: 100_000).utf8)) == nil)
    }

    @Test("what the listener reads from a connection", arguments: [
        ("GET /metrics HTTP/1.1\r\nHost: edge\r\n\r\n", MetricsHTTPRequest.request(method: "GET", path: "/metrics")),
        ("GET /metrics?x=1 HTTP/1.0\n\n", .request(method: "GET", path: "/metrics")),
        ("POST /other HTTP/1.1\r\n\r\n", .request(method: "POST", path: "/other")),
        ("GET /metrics HTTP/1.1\r\nHost: edge\r\n", .incomplete),
        ("GET /metrics HTTP/2\r\n\r\n", .invalid(status: 400)),
        ("get /metrics HTTP/1.1\r\n\r\n", .invalid(status: 400)),
        ("GET metrics HTTP/1.1\r\n\r\n", .invalid(status: 400)),
        ("GET /metrics HTTP/1.1\r\nX: " + String(repeating: "a", count: 9_000), .invalid(status: 431)),
    ])
    func requests(_ text: String, _ expected: MetricsHTTPRequest) {
        #expect(MetricsHTTPRequest.parse(Array(text.utf8)) == expected)
    }

    /// Identifiers in a PromQL expression that name series: not functions (followed by `(`), not
    /// keywords, not label names inside `{}` or `by (…)`, not quoted strings or durations.
    static func seriesNames(in expression: String) -> Set<String> {
        var text = expression.replacingOccurrences(of: #""[^"]*""#, with: "\"\"", options: .regularExpression)
        for pattern in [#"\{[^}]*\}"#, #"\[[^\]]*\]"#, #"\b(by|without|on|ignoring)\s*\([^)]*\)"#] {
            text = text.replacingOccurrences(of: pattern, with: " ", options: .regularExpression)
        }
        let keywords: Set<String> = ["and", "or", "unless", "bool", "offset", "group_left", "group_right"]
        var names: Set<String> = []
        let regex = try! NSRegularExpression(pattern: #"[A-Za-z_:][A-Za-z0-9_:]*(\s*\()?"#)
        for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            let token = String(text[Range(match.range, in: text)!])
            if token.hasSuffix("(") || keywords.contains(token) { continue }
            names.insert(token)
        }
        return names
    }

    @Test("every query of the dashboard and every alert rule names only series the edge exports")
    func queriesUseExportedNames() throws {
        let exported = MetricFamily.exportedNames.union(["up"])
        let dashboard = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.repository.appendingPathComponent("deploy/prometheus/grafana-lunch-rush.json"))) as? [String: Any]
        let panels = try #require(dashboard?["panels"] as? [[String: Any]])
        var expressions = panels.flatMap { ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String } }
        #expect(expressions.count >= 20)
        let rules = try String(contentsOf: Self.repository.appendingPathComponent("deploy/prometheus/alerts.yml"), encoding: .utf8)
        let ruleExpressions = rules.split(separator: "\n").compactMap { line -> String? in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.hasPrefix("expr:") ? String(trimmed.dropFirst(5)) : nil
        }
        #expect(ruleExpressions.count == 10)
        expressions += ruleExpressions
        var used: Set<String> = []
        for expression in expressions {
            let names = Self.seriesNames(in: expression)
            #expect(!names.isEmpty, "\(expression)")
            #expect(names.isSubset(of: exported), "\(expression): \(names.subtracting(exported).sorted())")
            used.formUnion(names)
        }
        // The dashboard shows the figures the lunch rush is judged by.
        for name in ["cafe_order_to_notification_seconds_bucket", "cafe_sighting_to_region_event_seconds_bucket", "cafe_request_duration_seconds_bucket",
                     "cafe_consumer_lag_seconds", "cafe_up"] {
            #expect(used.contains(name), "\(name)")
        }
        #expect(Self.seriesNames(in: #"sum by (op) (rate(cafe_requests_total{op="x"}[1m])) > bogus_name"#) == ["cafe_requests_total", "bogus_name"])
    }
}
