import Foundation
import Messages
import ServiceRuntime
import Testing
import ZeroMQ

/// Watching the bus as an operator does: `cafectl tail` with its filters, `--count` and the
/// summary, and the three-line pyzmq client of deploy/README.md's "Watching the bus", against the real platform.
@Suite(.serialized)
struct TailTests {
    @Test("cafectl tail keeps only the asked stream, source and sequence, stops at --count, and sums up per topic")
    func filters() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        let orders = RequestClient(context: context, endpoint: platform.endpoint("order-service"))
        defer { orders.close() }
        let lastOrderSeq = try orders.call(Op.health, Empty(), as: HealthStatus.self).streams["order"] ?? 0

        // The order placed below is order.placed at lastOrderSeq + 1, then order.accepted, …, order.ready.
        let sinceSeq = lastOrderSeq + 2
        let subscriptionsBefore = try busSubscriptionChanges(platform, context: context)
        let orderStream = try TailProcess(platform, ["", "--stream", "order", "--source", "order-service", "--since-seq", "\(sinceSeq)"])
        let firstKitchen = try TailProcess(platform, ["", "--stream", "kitchen", "--count", "1"])
        let kitchenSource = try TailProcess(platform, ["order.", "kitchen.", "--source", "kitchen-display"])
        let nobody = try TailProcess(platform, ["", "--source", "nobody"])
        let all = [orderStream, firstKitchen, kitchenSource, nobody]
        defer { all.forEach { $0.stop() } }
        // Five subscriptions in all; the bus counts each as it passes it on to the publishers.
        _ = try eventually("the tails' subscriptions reach the bus") {
            try busSubscriptionChanges(platform, context: context) >= subscriptionsBefore + 5 ? true : nil
        }

        let orderId = try placeAndBumpOrder(platform, context: context, device: "tail-\(UUID().uuidString.prefix(8))")
        _ = try eventually("order \(orderId) ready") {
            (try? orders.call(Op.orderGet, OrderQuery(orderId: orderId), as: OrderView.self))?.order.state == .ready ? true : nil
        }
        // The last order event (ready) must have reached the tails before they are stopped.
        _ = try eventually("order.ready on the order-stream tail") { orderStream.lines().contains { $0.topic.hasPrefix("order.ready.") } ? true : nil }

        // --count 1: the tail stops by itself after the first kitchen message.
        let counted = try #require(firstKitchen.waitForExit(limit: 20), "cafectl tail --count 1 did not stop after its message")
        #expect(counted == 0)
        for tail in [orderStream, kitchenSource, nobody] { _ = tail.interrupt() }

        let ordered = orderStream.lines()
        #expect(ordered.count >= 2, "expected order events from seq \(sinceSeq) on, got \(ordered.map(\.topic))")
        for line in ordered {
            #expect(line.stream == "order" && line.source == "order-service", "\(line.topic) passed --stream order --source order-service")
            #expect(line.seq >= sinceSeq, "\(line.topic) seq \(line.seq) passed --since-seq \(sinceSeq)")
        }
        // order.placed came at seq lastOrderSeq + 1: below --since-seq, so not printed.
        #expect(!ordered.contains { $0.topic.hasPrefix("order.placed.") })
        #expect(orderStream.summary.contains("tail: \(ordered.count) messages"))
        #expect(orderStream.summary.contains("order.ready.  1  ("), "no per-topic line with a rate: \(orderStream.summary)")

        let kitchenLines = firstKitchen.lines()
        #expect(kitchenLines.count == 1 && kitchenLines.first?.stream == "kitchen")
        #expect(firstKitchen.summary.contains("tail: 1 messages"))
        #expect(firstKitchen.summary.contains("/s)"))

        let fromKitchen = kitchenSource.lines()
        #expect(!fromKitchen.isEmpty)
        #expect(fromKitchen.allSatisfy { $0.source == "kitchen-display" && $0.topic.hasPrefix("kitchen.") })

        #expect(nobody.lines().isEmpty)
        #expect(nobody.summary.contains("tail: 0 messages"))
        #expect(nobody.summary.contains("did not match --source nobody"))
    }

    @Test("cafectl tail prints beacon-ingest's compact sighting batch as its envelope's JSON, marked \"wire\":\"compact\", and filters it by source")
    func compactFrames() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.start(busAnd: ["beacon-ingest"])
        let context = try Context()
        let ingest = RequestClient(context: context, endpoint: platform.endpoint("beacon-ingest"), timeoutMilliseconds: 10_000)
        defer { ingest.close() }
        let subscriptionsBefore = try busSubscriptionChanges(platform, context: context)
        let tail = try TailProcess(platform, ["sighting.", "--source", "beacon-ingest", "--count", "1"])
        defer { tail.stop() }
        _ = try eventually("the tail's subscription reaches the bus") {
            try busSubscriptionChanges(platform, context: context) >= subscriptionsBefore + 1 ? true : nil
        }
        let phone = "tail-compact-\(UUID().uuidString.prefix(6))"
        _ = try ingest.call(Op.ingestReport, IngestReport(deviceId: phone, status: DeviceStatusReport(authorization: .always, foreground: false)), as: IngestResult.self)
        let result = try ingest.call(Op.ingestReport, IngestReport(deviceId: phone, sightings: [
            RangingReport(uuid: ScenarioTests.uuid, major: 1, minor: 2, rssi: -63, measuredPower: -59, timestamp: Timestamp(Date())),
        ]), as: IngestResult.self)
        #expect(result.accepted == 1)
        #expect(try #require(tail.waitForExit(limit: 20), "cafectl tail --count 1 did not stop") == 0)
        let text = try String(contentsOf: tail.out, encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first.map(String.init))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["wire"] as? String == "compact" && object["topic"] as? String == "sighting.s0.", "\(line)")
        // The envelope on the line is the JSON the compact frame reads as: it decodes, names the phone.
        let envelopeJSON = try JSONSerialization.data(withJSONObject: try #require(object["envelope"]))
        let envelope = try Wire.decodeEnvelope(envelopeJSON)
        guard case .sightings(let batch) = envelope.body else { Issue.record("not a sighting batch: \(line)"); return }
        #expect(envelope.type == .sightingBatch && envelope.source == "beacon-ingest" && batch.sightings.map(\.deviceId) == [phone])
        #expect(batch.sightings.first?.beacon == BeaconIdentity(uuid: ScenarioTests.uuid, major: 1, minor: 2))
    }

    @Test("cafectl tail refuses a --since-seq that is not a sequence number")
    func badSinceSeq() throws {
        let platform = try Platform()
        defer { platform.stop() }
        let result = try platform.cafectl(["tail", "", "--since-seq", "-3"])
        #expect(result.status == 2)
        #expect(result.err.contains("--since-seq"))
    }

    @Test("deploy/README.md's pyzmq example tails order events from the bus")
    func readmePythonExample() throws {
        let manual = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("deploy/README.md")
        let text = try String(contentsOf: manual, encoding: .utf8)
        let section = try #require(text.range(of: "## Watching the bus"), "deploy/README.md has no \"Watching the bus\" section")
        let example = try #require(codeBlock("python", in: String(text[section.upperBound...])),
                                   "deploy/README.md's \"Watching the bus\" has no ```python block")
        #expect(example.contains("7402"), "the pyzmq example no longer dials the bus's subscriber port 7402")
        try #require(pythonWithZeroMQ(),
                     "python3 with pyzmq is needed to check deploy/README.md's pyzmq example: install it with `python3 -m pip install pyzmq` (deploy/test.sh does)")

        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        let script = example.replacingOccurrences(of: "7402", with: "\(platform.ports["bus-xpub"]!)")
        let subscriptionsBefore = try busSubscriptionChanges(platform, context: context)
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // -u: unbuffered, so every line is in the file before the process is stopped.
        python.arguments = ["python3", "-u", "-c", script]
        let out = platform.root.appendingPathComponent("python.out").creatingEmptyFile()
        let err = platform.root.appendingPathComponent("python.err").creatingEmptyFile()
        python.standardOutput = try FileHandle(forWritingTo: out)
        python.standardError = try FileHandle(forWritingTo: err)
        try python.run()
        defer { if python.isRunning { kill(python.processIdentifier, SIGKILL); python.waitUntilExit() } }
        _ = try eventually("the script's subscription reaches the bus") {
            guard python.isRunning else { throw PlatformError("python3 exited: \((try? String(contentsOf: err, encoding: .utf8)) ?? "")") }
            return try busSubscriptionChanges(platform, context: context) > subscriptionsBefore ? true : nil
        }

        let orderId = try placeAndBumpOrder(platform, context: context, device: "py-\(UUID().uuidString.prefix(8))")
        let lines = try eventually("order lines from the script") { () -> [Substring]? in
            let lines = ((try? String(contentsOf: out, encoding: .utf8)) ?? "").split(separator: "\n")
            return lines.contains { $0.hasPrefix("order.ready.") } ? lines : nil
        }
        // The script loops forever; SIGKILL, as SIGTERM may be ignored in a child of the test runner.
        kill(python.processIdentifier, SIGKILL)
        python.waitUntilExit()
        #expect(!lines.isEmpty && lines.allSatisfy { $0.hasPrefix("order.") }, "the script printed more than order topics: \(lines.prefix(5))")
        // Each line is the topic, a space, and the envelope exactly as published.
        for line in lines {
            let parts = line.split(separator: " ", maxSplits: 1)
            #expect(parts.count == 2)
            if parts.count == 2 { _ = try Wire.decodeEnvelope(Data(parts[1].utf8)) }
        }
        #expect(lines.contains { $0.hasPrefix("order.placed.") && $0.contains(orderId) })
    }
}

/// One `cafectl tail` process with its output in files.
final class TailProcess {
    struct Line {
        var topic: String
        var stream: String
        var source: String
        var seq: UInt64
    }

    let process = Process()
    let out: URL
    let err: URL

    init(_ platform: Platform, _ arguments: [String]) throws {
        let name = "tail-\(UUID().uuidString.prefix(6))"
        out = platform.root.appendingPathComponent("\(name).out").creatingEmptyFile()
        err = platform.root.appendingPathComponent("\(name).err").creatingEmptyFile()
        process.executableURL = platform.bin.appendingPathComponent("cafectl")
        process.arguments = ["tail"] + arguments + ["--bus-sub", platform.busSub]
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
    }

    /// The JSON lines printed so far.
    func lines() -> [Line] {
        let text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let topic = object["topic"] as? String, let envelope = object["envelope"] as? [String: Any],
                  let stream = envelope["stream"] as? String, let source = envelope["source"] as? String, let seq = envelope["seq"] as? NSNumber
            else { return nil }
            return Line(topic: topic, stream: stream, source: source, seq: seq.uint64Value)
        }
    }

    /// What it printed on stderr (the summary, once it has exited).
    var summary: String { (try? String(contentsOf: err, encoding: .utf8)) ?? "" }

    /// Its exit status once it exits by itself, or nil if it still runs after `limit` seconds.
    func waitForExit(limit: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(limit)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// Ctrl-C, as an operator stops it; its exit status.
    func interrupt() -> Int32? {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, SIGINT)
        return waitForExit(limit: 5)
    }

    /// SIGKILL if it still runs (clean-up, pass or fail).
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// How many subscribe and unsubscribe messages the bus has passed on to the publishers.
func busSubscriptionChanges(_ platform: Platform, context: Context) throws -> Int {
    let client = RequestClient(context: context, endpoint: platform.endpoint("bus"), timeoutMilliseconds: 2_000)
    defer { client.close() }
    return Int(try client.call(Op.health, Empty(), as: HealthStatus.self).details["subscriptionChanges"] ?? "") ?? 0
}

/// A phone's order at Caffè Macs through the services' sockets, with both tickets bumped; its id.
private func placeAndBumpOrder(_ platform: Platform, context: Context, device: String) throws -> String {
    let ingest = RequestClient(context: context, endpoint: platform.endpoint("beacon-ingest"))
    let orders = RequestClient(context: context, endpoint: platform.endpoint("order-service"))
    let kitchen = RequestClient(context: context, endpoint: platform.endpoint("kitchen-display"))
    let notify = RequestClient(context: context, endpoint: platform.endpoint("notification-service"))
    defer { [ingest, orders, kitchen, notify].forEach { $0.close() } }
    _ = try ingest.call(Op.ingestReport, IngestReport(deviceId: device, status: DeviceStatusReport(authorization: .always, foreground: true)), as: IngestResult.self)
    _ = try notify.call(Op.deviceRegister, RegisterDevice(deviceId: device, userId: device, channel: "bus", language: "en", locale: "en_US", authorization: .authorized),
                        as: Registration.self)
    let windows = try orders.call(Op.windowsList, WindowsRequest(cafeId: "caffe-macs", locale: "en_US", count: 8), as: WindowsReply.self)
    let window = try #require(windows.windows.first { $0.remaining > 0 })
    let reservation = try orders.call(Op.windowReserve, ReserveRequest(cafeId: "caffe-macs", start: window.start, userId: device, locale: "en_US"),
                                      as: ReservationView.self)
    let placed = try orders.call(Op.orderPlace, PlaceOrderRequest(
        idempotencyKey: "tail-\(device)", channel: .app, userId: device, deviceId: device, cafeId: "caffe-macs", reservationId: reservation.reservationId,
        items: [OrderItemRequest(itemId: "burger", quantity: 1), OrderItemRequest(itemId: "caesar", quantity: 1)],
        paymentToken: "tok_4242424242424242", locale: "en_US"), as: OrderView.self)
    let orderId = placed.order.orderId
    for station in Set(placed.order.lines.map(\.station)) {
        _ = try eventually("ticket \(orderId):\(station) bumped") {
            try? kitchen.call(Op.kdsBump, TicketCommand(ticketId: "\(orderId):\(station)"), as: TicketView.self)
        }
    }
    return orderId
}

/// The body of the first fenced code block with this info string.
private func codeBlock(_ language: String, in markdown: String) -> String? {
    guard let open = markdown.range(of: "```\(language)\n") else { return nil }
    guard let close = markdown.range(of: "\n```", range: open.upperBound..<markdown.endIndex) else { return nil }
    return String(markdown[open.upperBound..<close.lowerBound])
}

/// Whether `python3` runs here and can import pyzmq.
private func pythonWithZeroMQ() -> Bool {
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    probe.arguments = ["python3", "-c", "import zmq"]
    probe.standardOutput = FileHandle.nullDevice
    probe.standardError = FileHandle.nullDevice
    guard (try? probe.run()) != nil else { return false }
    probe.waitUntilExit()
    return probe.terminationStatus == 0
}
