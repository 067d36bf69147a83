import Foundation
import Messages
import Metrics
import Policy
import ServiceRuntime
import Testing

/// The figures health carries for a scraper: latency buckets and their health form, requests per
/// op (bounded, whatever callers send), the Prometheus page, and the router recording each request.
@Suite("Metrics figures")
struct MetricsFiguresTests {
    @Test("a value lands in the first bucket whose bound holds it; the form health carries reads back")
    func buckets() throws {
        var latency = LatencyBuckets()
        for seconds in [0.0005, 0.0006, 0.2, 0.25, 31, -1, .nan] { latency.record(seconds: seconds) }
        #expect(latency.count == 7)
        let cumulative = latency.cumulative
        // -1 and NaN count as 0, with 0.0005 in the first bucket; 0.0006 in the 1 ms one; 0.2 and 0.25 in 0.25; 31 above all.
        #expect(cumulative[0] == 3 && cumulative[1] == 4 && cumulative[7] == 4 && cumulative[8] == 6 && cumulative[14] == 6 && cumulative[15] == 7)
        #expect(abs(latency.sum - 31.4511) < 1e-9)
        let read = try #require(LatencyBuckets(encoded: latency.encoded))
        #expect(read == latency)
    }

    @Test("a histogram form that is not exactly the writer's is refused", arguments: [
        "", "1;0;", "3;0.5;1,2,3", "3;0.5;1,2,3,3,3,3,3,3,3,3,3,3,3,3,3,3", "3;-1;0,0,0,0,0,0,0,0,0,0,0,0,0,0,0",
        "3;nan;0,0,0,0,0,0,0,0,0,0,0,0,0,0,0", "3;1;2,1,1,1,1,1,1,1,1,1,1,1,1,1,1", "3;1;4,4,4,4,4,4,4,4,4,4,4,4,4,4,4",
        "x;1;0,0,0,0,0,0,0,0,0,0,0,0,0,0,0", "3;1;0,0,0,0,0,0,0,0,0,0,0,0,0,0,-1", String(repeating: "9", count: 600),
    ])
    func malformedBuckets(_ text: String) {
        #expect(LatencyBuckets(encoded: text) == nil)
    }

    @Test("requests per op: counted with their error codes; ops past the bound count as other, so callers cannot add labels")
    func requestsPerOp() {
        var metrics = RequestMetrics()
        metrics.record(op: "order.place", seconds: 0.002, errorCode: nil)
        metrics.record(op: "order.place", seconds: 0.004, errorCode: "auth.forbidden")
        for index in 0..<(RequestMetrics.maxOps + 10) { metrics.record(op: "op\(index)", seconds: 0, errorCode: nil) }
        #expect(metrics.ops.count == RequestMetrics.maxOps + 1)
        #expect(metrics.ops[RequestMetrics.otherOp]?.requests == 11)
        let details = metrics.healthDetails
        #expect(details["op:order.place:requests"] == "2" && details["op:order.place:error:auth.forbidden"] == "1")
        #expect(LatencyBuckets(encoded: details["op:order.place:latency"] ?? "")?.count == 2)
    }

    @Test("the router records every request under the op it answers, unknown ops as other, with the refusal's code")
    func routerRecords() throws {
        let router = RequestRouter(logger: silentLogger)
        router.on(Op.health, Empty.self) { _ in Empty() }
        router.on("kds.bump", Empty.self) { _, _ in Empty() }
        _ = router.handle(Data(#"{"op":"health","id":"1"}"#.utf8))
        _ = router.handle(Data(#"{"op":"made.up.\#(UUID())","id":"2"}"#.utf8))
        let phone = Caller(principal: Principal(name: "phone-1", role: .phone, publicKey: "", deviceId: "D1", userId: "U1"))
        _ = router.handle(Data(#"{"op":"kds.bump","id":"3"}"#.utf8), caller: phone)
        #expect(router.metrics.ops["health"]?.requests == 1)
        #expect(router.metrics.ops[RequestMetrics.otherOp]?.errors["request.unknownOp"] == 1)
        #expect(router.metrics.ops["kds.bump"]?.errors["auth.forbidden"] == 1)
        #expect(router.metrics.ops.count == 3)
    }

    @Test("the page: one HELP and TYPE per family, samples together, label values escaped, histograms cumulative to +Inf")
    func page() {
        var page = PrometheusText()
        page.add("cafe_up", .gauge, help: "up", labels: [("service", "bus")], value: 1)
        var latency = LatencyBuckets()
        latency.record(seconds: 0.003)
        page.add("cafe_request_duration_seconds", help: "latency", labels: [("op", "a\"b\\c\nd")], histogram: latency)
        page.add("cafe_up", .gauge, help: "up", labels: [("service", "edge")], value: 0)
        let text = page.render()
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0 == "# TYPE cafe_up gauge" }.count == 1)
        #expect(lines[2] == #"cafe_up{service="bus"} 1"# && lines[3] == #"cafe_up{service="edge"} 0"#)
        #expect(lines.contains(#"cafe_request_duration_seconds_bucket{op="a\"b\\c\nd",le="0.005"} 1"#))
        #expect(lines.contains(#"cafe_request_duration_seconds_bucket{op="a\"b\\c\nd",le="0.0025"} 0"#))
        #expect(lines.contains(#"cafe_request_duration_seconds_bucket{op="a\"b\\c\nd",le="+Inf"} 1"#))
        #expect(lines.contains(#"cafe_request_duration_seconds_count{op="a\"b\\c\nd"} 1"#))
        #expect(PrometheusText.metricName("9x-y.z") == "_x_y_z")
    }

    @Test("storage figures: the database, its WAL and the file system under it")
    func storage() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("x.sqlite").path
        try Data(repeating: 1, count: 4_096).write(to: URL(fileURLWithPath: path))
        let details = StorageUsage.healthDetails(databasePath: path)
        #expect(details["db.bytes"] == "4096" && details["db.walBytes"] == "0")
        let size = try #require(UInt64(details["fs.bytes"] ?? "")), available = try #require(UInt64(details["fs.availableBytes"] ?? ""))
        #expect(size > 0 && available <= size)
    }
}
