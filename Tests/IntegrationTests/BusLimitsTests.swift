import Foundation
import Messages
import ServiceRuntime
import Testing
import ZeroMQ

/// The bus holds no frame beyond its bound: a publisher of an oversize message is dropped by the
/// transport, and so is a subscriber that sends an oversize subscription; the bus goes on.
@Suite(.serialized)
struct BusLimitsTests {
    @Test("a publication above twice --max-message-bytes never reaches a subscriber, one within it does, and the bus stays up")
    func oversizePublication() throws {
        var platform = try Platform()
        defer { platform.stop() }
        platform.extraArguments["bus"] = ["--max-message-bytes", "1024"]
        try platform.start(busAnd: [])
        let context = try Context()
        let watcher = try BusWatcher(context: context, endpoint: platform.busSub, prefixes: ["limits."], probe: platform.busPub)
        defer { watcher.close() }
        let publisher = try platform.busPublisher(context)
        defer { publisher.close() }
        func arrived(_ topic: String) throws -> Bool {
            try watcher.pump(milliseconds: 100)
            return watcher.undecodable.contains { $0.topic == topic }
        }
        // First the publisher is known to be linked: a message within the bound gets through.
        _ = try eventually("a message within the bound arrives") { () -> Bool? in
            try publisher.send(multipart: [Data("limits.fits.".utf8), Data(repeating: UInt8(ascii: "y"), count: 1_500)])
            return try arrived("limits.fits.") ? true : nil
        }
        // Then an oversize one, and after it, on the same link, a marker: had the bus taken the big
        // one, it would have arrived before the marker.
        try publisher.send(multipart: [Data("limits.big.".utf8), Data(repeating: UInt8(ascii: "x"), count: 4_000)])
        _ = try eventually("the marker after it arrives") { () -> Bool? in
            try publisher.send(multipart: [Data("limits.after.".utf8), Data("{}".utf8)])
            return try arrived("limits.after.") ? true : nil
        }
        #expect(!watcher.undecodable.contains { $0.topic == "limits.big." })
        try platform.waitHealthy("bus")
    }

    @Test("a subscriber that sends a subscription above 4 KiB is dropped; the bus and its other subscribers go on")
    func oversizeSubscription() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.start(busAnd: ["kitchen-display"])
        let context = try Context()
        let hostile = try Socket(context, .sub)
        defer { hostile.close() }
        try hostile.setLinger(milliseconds: 0)
        // The oversize subscription goes first, so the link is dropped before "heartbeat." is applied.
        try hostile.subscribe(String(repeating: "h", count: 8_192))
        try hostile.subscribe("heartbeat.")
        try hostile.connect(platform.busSub)
        let watcher = try BusWatcher(context: context, endpoint: platform.busSub, prefixes: ["heartbeat."])
        defer { watcher.close() }
        _ = try watcher.waitFor("heartbeat.", timeout: 5)
        _ = try watcher.waitFor("heartbeat.kitchen-display.", timeout: 5) { _ in watcher.all("heartbeat.").count >= 2 }
        #expect(try hostile.tryReceiveMultipart() == nil, "the hostile subscriber heard heartbeats: its link was kept")
        try platform.waitHealthy("bus")
    }
}
