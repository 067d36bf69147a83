import Foundation
import Messages
import ServiceRuntime
import Testing
import ZeroMQ

/// What one subscriber may make the bus hold and do (issue 28), on a real bus: a subscriber that
/// stops reading is cut and what the bus holds for it meanwhile is bounded in bytes; a subscriber
/// flooding subscriptions is cut; a prefix above the bound drops its sender. The others go on.
@Suite(.serialized)
struct BusSubscriberBoundsTests {
    static func number(_ details: [String: String], _ key: String) -> Int { Int(details[key] ?? "") ?? 0 }

    @Test("a subscriber that never reads is cut, counted with its address, while the bus's memory stays within bounds and a reading subscriber goes on")
    func slowSubscriberIsCut() throws {
        let platform = try Platform()
        defer { platform.stop() }
        // 1 MiB a subscriber, 128 KiB the largest message: the bus holds 8 messages for it at most.
        platform.extraArguments["bus"] = ["--max-message-bytes", "65536", "--subscriber-max-bytes", "1048576", "--slow-subscriber-seconds", "1"]
        try platform.start(busAnd: [])
        let context = try Context()
        let slow = try Socket(context, .sub)
        defer { slow.close() }
        try slow.setLinger(milliseconds: 0)
        try slow.setReceiveHighWaterMark(1)
        try slow.subscribe("")
        try slow.connect(platform.busSub)
        let watcher = try BusWatcher(context: context, endpoint: platform.busSub, prefixes: ["bulk."], probe: platform.busPub)
        defer { watcher.close() }
        let publisher = try platform.busPublisher(context)
        defer { publisher.close() }
        let start = Self.number(try platform.healthDetails("bus", context), "process.residentBytes")

        // About 60 MB a second for as long as it takes the bus to cut the slow one (and 3 s more).
        let payload = Data(repeating: UInt8(ascii: "x"), count: 60_000)
        var peak = start, cutAt: Date?, details: [String: String] = [:]
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, cutAt.map({ Date().timeIntervalSince($0) < 3 }) ?? true {
            for _ in 0..<10 { try publisher.send(multipart: [Data("bulk.x.".utf8), payload], dontWait: true) }
            try watcher.pump(milliseconds: 10)
            if Int.random(in: 0..<20) == 0 {
                details = try platform.healthDetails("bus", context)
                peak = max(peak, Self.number(details, "process.residentBytes"))
                if cutAt == nil, Self.number(details, "subscribers.cut.slow") >= 1 { cutAt = Date() }
            }
        }
        #expect(cutAt != nil, "the bus never cut the subscriber that does not read: \(details)")
        #expect(details.keys.contains { $0.hasPrefix("subscribers.cut.slow.127.0.0.1:") }, "the cut is counted under the subscriber's address: \(details)")
        // Without the byte bound the bus held everything the slow one did not read (hundreds of MB here).
        #expect(peak - start < 64 * 1_048_576, "the bus grew from \(start) to \(peak) bytes")
        let heard = watcher.undecodable.count
        try watcher.pump(milliseconds: 200)
        #expect(heard > 100, "the reading subscriber got \(heard) messages")
        try platform.waitHealthy("bus")
    }

    @Test("deployed: a slow subscriber's cut is counted under its key name and role")
    func slowSubscriberNamed() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        _ = try platform.keys!.add(name: "tail-1", role: .operator)
        platform.extraArguments["bus"] = ["--max-message-bytes", "65536", "--subscriber-max-bytes", "1048576", "--slow-subscriber-seconds", "1"]
        try platform.start(busAnd: [])
        let context = try Context()
        let slow = try Socket(context, .sub)
        defer { slow.close() }
        try slow.setLinger(milliseconds: 0)
        try slow.setReceiveHighWaterMark(1)
        try slow.subscribe("")
        try platform.security(as: "tail-1").secureClient(slow, server: "bus")
        try slow.connect(platform.busSub)
        // The slow one is the only subscriber: its first subscription names its connection.
        try platform.waitForHealth("bus", "the slow subscriber's subscription", context) { Self.number($0, "subscriptions.held") >= 1 }
        let publisher = try platform.busPublisher(context, as: "kitchen-display")
        defer { publisher.close() }
        // kitchen-display's heartbeat, about 60 KB with its streams: the bus forwards a service's own.
        let streams = Dictionary(uniqueKeysWithValues: (0..<2_000).map { ("stream-\($0)-padding-padding", UInt64($0)) })
        let frames = Platform.frames("heartbeat.kitchen-display.", Envelope(type: .heartbeat, source: "kitchen-display", stream: "heartbeat", seq: 1, time: Timestamp(Date()),
                                                                            body: .heartbeat(Heartbeat(service: "kitchen-display", streams: streams, replayEndpoint: "tcp://127.0.0.1:1"))))
        let deadline = Date().addingTimeInterval(30)
        var details: [String: String] = [:]
        while Date() < deadline, Self.number(details, "subscribers.cut.slow") == 0 {
            for _ in 0..<50 { try publisher.send(multipart: frames, dontWait: true) }
            Thread.sleep(forTimeInterval: 0.05)
            details = try platform.healthDetails("bus", context)
        }
        #expect(details["subscribers.cut.slow.tail-1 (operator)"] == "1", "\(details)")
        try platform.waitHealthy("bus")
    }

    @Test("deployed: the XPUB side rebuilt on revocations, with subscribers connected and connections dropped all the while, keeps forwarding and answering")
    func rebuildWithSubscribers() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        try platform.start(busAnd: ["kitchen-display"])
        let context = try Context()
        let subscribers = try (0..<30).map { _ in try BusSubscriber(platform, context, as: "operator", prefixes: ["heartbeat."]) }
        defer { subscribers.forEach { $0.close() } }
        try platform.waitForHealth("bus", "30 subscriptions", context) { Self.number($0, "subscriptions.held") >= 30 }
        // And connections ending in error all the while (each sends a subscription above the
        // transport's bound, is dropped, and comes back 10 ms later): libzmq reports each end.
        let droppers = try (0..<4).map { _ -> Socket in
            let socket = try Socket(context, .sub)
            try socket.setLinger(milliseconds: 0)
            try socket.setReconnectInterval(milliseconds: 10, maxMilliseconds: 10)
            try socket.subscribe(String(repeating: "d", count: 600))
            try platform.security(as: "operator").secureClient(socket, server: "bus")
            try socket.connect(platform.busSub)
            return socket
        }
        defer { droppers.forEach { $0.close() } }
        Thread.sleep(forTimeInterval: 0.5)
        // Two revocations in a row, each cutting every subscriber: libzmq ends 30 connections of the old socket each time.
        for (round, key) in ["beacon-ingest-s1", "region-monitor-s1"].enumerated() {
            try platform.keys!.revoke(name: key)
            platform.hangUp("bus")
            try platform.waitForHealth("bus", "revocation \(round + 1)", context) { Self.number($0, "sessions.cut") == round + 1 }
        }
        let watcher = try BusWatcher(context: context, endpoint: platform.busSub, prefixes: ["heartbeat."], security: try platform.security(as: "operator"))
        defer { watcher.close() }
        _ = try watcher.waitFor("heartbeat.kitchen-display.", timeout: 10)
        try platform.waitHealthy("bus")
    }

    @Test("a subscriber sending thousands of subscriptions at once is cut as a flood; one sending a prefix above the bound is dropped; others go on")
    func subscriptionFloodIsCut() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.start(busAnd: ["kitchen-display"])
        let context = try Context()
        let flooder = try Socket(context, .sub)
        defer { flooder.close() }
        try flooder.setLinger(milliseconds: 0)
        try flooder.connect(platform.busSub)
        let long = try Socket(context, .sub)
        defer { long.close() }
        try long.setLinger(milliseconds: 0)
        try long.subscribe(String(repeating: "h", count: 600))
        try long.subscribe("heartbeat.")
        try long.connect(platform.busSub)
        // 200-byte prefixes, each within the bound: 4,000 of them are about 1 MB, far beyond 48 KiB at once.
        for index in 0..<4_000 { try flooder.subscribe("flood.\(index)." + String(repeating: "f", count: 190)) }
        try platform.waitForHealth("bus", "the flooder cut", context, timeout: 10) { Self.number($0, "subscribers.cut.subscriptionFlood") >= 1 }
        let watcher = try BusWatcher(context: context, endpoint: platform.busSub, prefixes: ["heartbeat."])
        defer { watcher.close() }
        _ = try watcher.waitFor("heartbeat.kitchen-display.", timeout: 5) { _ in watcher.all("heartbeat.").count >= 2 }
        #expect(try long.tryReceiveMultipart() == nil, "the subscriber of a 600-byte prefix heard heartbeats: its link was kept")
        try platform.waitHealthy("bus")
    }
}
