import EdgeServer
import Foundation
import Messages
import Metrics

/// The edge's metrics listener: what a scraper's connection sends through `MetricsHTTPRequest`,
/// and the same bytes as a process's health reply through `HealthExposition` into a page.
enum MetricsTarget {
    static func make() -> FuzzTarget {
        FuzzTarget("metrics", "HTTP request heads through the metrics listener's reader; health replies through HealthExposition into a /metrics page whose every sample line is well formed; LatencyBuckets' health form read back",
                   seeds: { seeds() }) { input in
            let bytes = [UInt8](input)
            switch MetricsHTTPRequest.parse(bytes) {
            case .request(let method, let path):
                if method.isEmpty || path.first != "/" || path.contains("?") { return "a request read as \(method) \(path)" }
            case .invalid(let status):
                if ![400, 431].contains(status) { return "an invalid head answered \(status)" }
            case .incomplete:
                if bytes.count > MetricsHTTPRequest.maxHeadBytes { return "a head over the limit still incomplete" }
            }
            if let buckets = LatencyBuckets(encoded: String(decoding: bytes, as: UTF8.self)) {
                guard LatencyBuckets(encoded: buckets.encoded) == buckets else { return "a histogram did not read back from its own form" }
            }
            guard let health = HealthExposition.decode(bytes) else { return nil }
            var page = PrometheusText()
            HealthExposition.add(health, service: "fuzz", instance: "fuzz-1", to: &page)
            for line in page.render().split(separator: "\n") where !line.hasPrefix("# ") {
                guard let space = line.lastIndex(of: " "), Double(line[line.index(after: space)...]) != nil || line.hasSuffix(" +Inf") || line.hasSuffix(" NaN"),
                      line.first.map({ $0.isLetter || $0 == "_" }) == true else {
                    return "a sample line that does not read: \(line.prefix(200))"
                }
            }
            return nil
        }
    }

    static func seeds() -> [Data] {
        var latency = LatencyBuckets()
        for seconds in [0.0004, 0.003, 0.2, 40] { latency.record(seconds: seconds) }
        let health = HealthStatus(service: "order-service", instance: "order-service", status: "degraded", uptimeSeconds: 12.5,
                                  streams: ["order": 42], outboxPending: 1,
                                  details: ["reasons": "bus.unreachable,consumer.behind", "op:order.place:requests": "3", "op:order.place:latency": latency.encoded,
                                            "op:order.place:error:auth.forbidden": "1", "cursor.region-monitor/region": "7", "lag.region-monitor/region.seconds": "1.5",
                                            "heartbeat.order-service.ageSeconds": "0.4", "link.bus": "up", "push.credentials": "missing key", "http.200": "9",
                                            "label\"with\\quote\nnewline": "1", "process.cpuMicros": "1200", "latency:order.notification": latency.encoded])
        return [Data("GET /metrics HTTP/1.1\r\nHost: edge:7464\r\nAccept: text/plain\r\n\r\n".utf8), Data("POST /metrics?x=1 HTTP/1.0\n\n".utf8),
                Data(latency.encoded.utf8), Wire.encode(health)]
    }
}
