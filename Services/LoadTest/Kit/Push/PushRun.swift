import Campus
import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// `load-test push`: phones with APNs tokens arrive at the café and get their "ready" push, through
/// a platform of its own (bus and the five services, plain mode, free loopback ports, a fresh data
/// folder) whose notification-service pushes to the local APNs peer (`deploy/local-apns.sh`).
///
/// Each phone first registers on the apns channel and orders one item for a window at least 15
/// minutes ahead, so its ticket holds. Then the phones arrive, open loop at `rate` (Poisson,
/// seeded): each reports three readings of a station beacon, as an app batches its ranging. The
/// kitchen fires the order (`kitchen.paced`, reason arrival) and a crew that never cooks bumps
/// every fired ticket at once. Per phone: the sighting's due time, the `order.ready` event's time
/// (order-service's, in milliseconds), and when the peer accepted the `orderReady` alert (its
/// record's time: the same machine's clock).
final class PushRun {
    struct Settings {
        var phones: Int
        var rate: Double
        var seed: UInt64
        var campus: String
        var script: String
        var timeout: Double
        /// order.ready events played onto the bus at once after the arrivals (0: none).
        var burst = 0
    }

    struct Phone {
        var device: String
        var token: String
        var orderId = ""
        var due = 0.0
        var sightingAt: Double?
        var readyAt: Double?
        var acceptedAt: Double?
        var bumped = false
    }

    /// What the peer answered beyond the phones' accepted alerts.
    struct PeerTally {
        var connections = 0
        var refused = 0
    }

    let settings: Settings
    let root: URL
    private var processes: [Process] = []

    init(settings: Settings) {
        self.settings = settings
        root = FileManager.default.temporaryDirectory.appendingPathComponent("cafe-push-\(getpid())")
    }

    func stop() {
        for process in processes where process.isRunning { process.terminate() }
        for process in processes { process.waitUntilExit() }
        if ProcessInfo.processInfo.environment["CAFE_KEEP_BENCH_DATA"] == nil { try? FileManager.default.removeItem(at: root) }
    }

    private var wall: Double { Date().timeIntervalSince1970 }
    private var apns: URL { root.appendingPathComponent("apns") }

    func run(progress: (String) -> Void) throws -> (phones: [Phone], peer: PeerTally, burst: PushBurst.Outcome?) {
        let bin = Bench.binaryDirectory
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let catalog = try CampusCatalog.load(path: settings.campus)
        guard let cafe = catalog.cafe(catalog.defaultCafe), let item = cafe.menu.first,
              let station = cafe.stations.first(where: { $0.id == item.station }) ?? cafe.stations.first else {
            throw ServiceError(.internalError, "the campus has no default café with a station and a menu")
        }
        let flags = try startPeer()
        let ports = try LoopbackPorts.free(9)
        func endpoint(_ i: Int) -> String { "tcp://127.0.0.1:\(ports[i])" }
        let (xsub, xpub, fixes) = (endpoint(0), endpoint(1), endpoint(8))
        let data = root.appendingPathComponent("data").path
        let common = ["--bus-pub", xsub, "--bus-sub", xpub, "--data-dir", data, "--log-level", "warning"]
        try spawn(bin, "bus", ["--xsub", xsub, "--xpub", xpub, "--listen", endpoint(2)])
        try spawn(bin, "beacon-ingest", ["--listen", endpoint(3), "--fix-endpoints", fixes] + common)
        try spawn(bin, "region-monitor", ["--listen", endpoint(4), "--campus", settings.campus, "--fix-listen", fixes] + common)
        try spawn(bin, "order-service", ["--listen", endpoint(5), "--campus", settings.campus, "--region-endpoints", endpoint(4)] + common)
        try spawn(bin, "kitchen-display", ["--listen", endpoint(6)] + common)
        try spawn(bin, "notification-service", ["--listen", endpoint(7), "--campus", settings.campus, "--pickup-reminder-lead-seconds", "0"] + common + flags)

        let context = try Context()
        let ingest = RequestClient(context: context, endpoint: endpoint(3), timeoutMilliseconds: 5_000)
        let orders = RequestClient(context: context, endpoint: endpoint(5), timeoutMilliseconds: 5_000)
        let kitchen = RequestClient(context: context, endpoint: endpoint(6), timeoutMilliseconds: 5_000)
        let notify = RequestClient(context: context, endpoint: endpoint(7), timeoutMilliseconds: 5_000)
        defer { [ingest, orders, kitchen, notify].forEach { $0.close() } }
        try Bench.awaitHealthy([(ingest, "beacon-ingest"), (orders, "order-service"), (kitchen, "kitchen-display"), (notify, "notification-service")], logsIn: root)
        let sub = try Socket(context, .sub)
        defer { sub.close() }
        try sub.setLinger(milliseconds: 0)
        for prefix in ["kitchen.paced.", "order.ready."] { try sub.subscribe(prefix) }
        try sub.connect(xpub)
        usleep(300_000)  // the subscription reaches the publishers through the bus

        // Every phone registers on the apns channel and orders for a window far enough ahead that its ticket holds.
        var phones = (0..<settings.phones).map { Phone(device: "push-\($0)", token: String(repeating: "0", count: 56) + String(format: "%08x", $0 + 1)) }
        let now = Timestamp(Date())
        var windows = try orders.call(Op.windowsList, WindowsRequest(cafeId: cafe.id, locale: "en_US", count: 96), as: WindowsReply.self).windows
            .filter { $0.start.seconds(since: now) >= 900 && $0.remaining > 0 }
        for index in phones.indices {
            let device = phones[index].device
            guard let w = windows.indices.first else { throw ServiceError(.windowFull, "no free window for phone \(index): fewer --phones") }
            _ = try ingest.call(Op.ingestReport, IngestReport(deviceId: device, status: DeviceStatusReport(authorization: .whenInUse, foreground: true)), as: IngestResult.self)
            _ = try notify.call(Op.deviceRegister, RegisterDevice(deviceId: device, userId: device, channel: "apns", language: "en", locale: "en_US", authorization: .authorized,
                                                                  apns: APNsDestination(token: phones[index].token, environment: .sandbox, topic: "edu.campus.cafe")),
                                as: Registration.self)
            let held = try orders.call(Op.windowReserve, ReserveRequest(cafeId: cafe.id, start: windows[w].start, userId: device, locale: "en_US"), as: ReservationView.self)
            windows[w].remaining -= 1
            if windows[w].remaining <= 0 { windows.remove(at: w) }
            phones[index].orderId = try orders.call(Op.orderPlace, PlaceOrderRequest(
                idempotencyKey: "push-\(device)", channel: .app, userId: device, deviceId: device, cafeId: cafe.id, reservationId: held.reservationId,
                items: [OrderItemRequest(itemId: item.id, quantity: 1)], paymentToken: "tok_4242424242424242", locale: "en_US"), as: OrderView.self).order.orderId
        }
        progress("\(phones.count) phones registered on the apns channel, each with an order held for a window 15+ minutes ahead")
        var byOrder: [String: Int] = [:]
        for (index, phone) in phones.enumerated() { byOrder[phone.orderId] = index }

        // Arrivals, open loop: a Poisson process at the rate, from a seeded generator.
        var random = SeededRandom(seed: settings.seed)
        let start = wall + 0.5
        var offset = 0.0
        for index in phones.indices {
            phones[index].due = start + offset
            offset += -log(1 - random.unit()) / settings.rate
        }
        var next = 0
        var lastRead = 0.0
        var tally = PeerTally()
        let deadline = start + offset + settings.timeout
        while wall < deadline {
            while next < phones.count, phones[next].due <= wall {
                let at = Timestamp(Date())
                phones[next].sightingAt = phones[next].due
                _ = try? ingest.call(Op.ingestReport, IngestReport(deviceId: phones[next].device, sightings: (0..<3).map { ago in
                    RangingReport(uuid: catalog.beaconUUID, major: cafe.beaconMajor, minor: station.minor, rssi: -60, measuredPower: -59, timestamp: at.adding(seconds: Double(ago - 2)))
                }), as: IngestResult.self)
                next += 1
            }
            // Everything the bus holds now (waiting a millisecond for the first).
            var wait: Int32 = 1
            while let frames = try sub.receiveMultipart(timeoutMilliseconds: wait) {
                wait = 0
                guard frames.count == 2, let envelope = try? Wire.decodeEnvelope(frames[1]) else { continue }
                switch envelope.body {
                case .paced(let pacing):
                    // The crew: every ticket the arrival fired is bumped at once.
                    if let index = byOrder[pacing.orderId], phones[index].sightingAt != nil, !phones[index].bumped, pacing.reason == .arrival {
                        phones[index].bumped = true
                        for fire in pacing.fires { bump(fire.ticketId, kitchen) }
                    }
                case .order(let event) where envelope.type == .orderReady:
                    // order-service's own time of the event (milliseconds), not when this loop got to it.
                    if let index = byOrder[event.order.orderId], phones[index].readyAt == nil { phones[index].readyAt = envelope.time.date.timeIntervalSince1970 }
                default:
                    break
                }
            }
            if wall - lastRead >= 0.5 {
                lastRead = wall
                tally = readRecord(into: &phones)
                if next == phones.count, phones.allSatisfy({ $0.acceptedAt != nil }) { break }
            }
        }
        tally = readRecord(into: &phones)
        guard settings.burst > 0 else { return (phones, tally, nil) }
        progress("\(settings.burst) order.ready events played onto the bus at once")
        let burst = try PushBurst(count: settings.burst, cafeId: cafe.id).run(devices: phones.map(\.device), busPub: xsub, notify: notify, context: context,
                                                                            record: apns.appendingPathComponent("record.jsonl"), timeout: settings.timeout)
        return (phones, readRecord(into: &phones), burst)
    }

    /// A bump as the crew does it; a ticket the kitchen wants started first is started.
    private func bump(_ ticketId: String, _ kitchen: RequestClient) {
        if (try? kitchen.call(Op.kdsBump, TicketCommand(ticketId: ticketId), as: TicketView.self)) == nil {
            _ = try? kitchen.call(Op.kdsStart, TicketCommand(ticketId: ticketId), as: TicketView.self)
            _ = try? kitchen.call(Op.kdsBump, TicketCommand(ticketId: ticketId), as: TicketView.self)
        }
    }

    /// The peer's record: each phone's first accepted alert (the peer's clock at its 200).
    private func readRecord(into phones: inout [Phone]) -> PeerTally {
        guard let text = try? String(contentsOf: apns.appendingPathComponent("record.jsonl"), encoding: .utf8) else { return PeerTally() }
        var byToken: [String: Int] = [:]
        for (index, phone) in phones.enumerated() { byToken[phone.token] = index }
        var tally = PeerTally()
        var connections = Set<Int>()
        for line in text.split(separator: "\n") {
            guard let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
            if let connection = entry["connection"] as? Int { connections.insert(connection) }
            guard entry["status"] as? Int == 200 else { tally.refused += 1; continue }
            if let token = entry["token"] as? String, let index = byToken[token], phones[index].acceptedAt == nil,
               (entry["payload"] as? [String: Any])?["kind"] as? String == "orderReady" {
                phones[index].acceptedAt = entry["t"] as? Double
            }
        }
        tally.connections = connections.count
        return tally
    }

    /// Makes the peer's CA, certificate and key, starts it and returns notification-service's flags.
    private func startPeer() throws -> [String] {
        guard FileManager.default.fileExists(atPath: settings.script) else {
            throw ServiceError(.internalError, "\(settings.script) not found: run load-test push from the repository root, or give --apns-script")
        }
        _ = try script(["init", apns.path])
        let peer = Process()
        peer.executableURL = URL(fileURLWithPath: "/bin/bash")
        peer.arguments = [settings.script, "peer", apns.path]
        let log = root.appendingPathComponent("apns-peer.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        peer.standardOutput = try FileHandle(forWritingTo: log)
        peer.standardError = try FileHandle(forWritingTo: log)
        try peer.run()
        processes.append(peer)
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: apns.appendingPathComponent("port").path) { usleep(100_000) }
        return try script(["flags", apns.path]).split(separator: "\n").map(String.init)
    }

    /// Runs the local APNs script; its output.
    private func script(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [settings.script] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ServiceError(.internalError, "\(settings.script) \(arguments.joined(separator: " ")) failed") }
        return String(decoding: output, as: UTF8.self)
    }

    private func spawn(_ bin: URL, _ name: String, _ arguments: [String]) throws {
        processes.append(try Bench.spawn(bin, name, arguments, logsIn: root))
    }
}
