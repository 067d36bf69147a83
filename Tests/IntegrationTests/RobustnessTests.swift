import Foundation
import Messages
import ServiceRuntime
import Testing
import ZeroMQ

/// Bad input gets a typed error and changes nothing; signals stop every process promptly.
@Suite(.serialized)
struct RobustnessTests {
    @Test("every request socket answers garbage with a typed error and keeps serving")
    func badRequests() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        for service in ["bus"] + Platform.services {
            let client = RequestClient(context: context, endpoint: platform.endpoint(service))
            defer { client.close() }
            let cases: [(Data, String)] = [
                (Data("not json".utf8), "request.malformed"),
                (Data("{\"op\":\"no.such.op\",\"id\":\"1\",\"body\":{}}".utf8), "request.unknownOp"),
                (Data("{\"id\":\"1\"}".utf8), "request.malformed"),
                (Data(repeating: UInt8(ascii: " "), count: 300_000), "request.tooLarge"),
            ]
            for (frame, code) in cases {
                let reply = try Wire.decodeReply(try client.send(raw: frame), body: Empty.self)
                #expect(reply.ok == false && reply.error?.code == code, "\(service): \(String(decoding: frame.prefix(40), as: UTF8.self)) → \(String(describing: reply.error))")
            }
            #expect(try client.call(Op.health, Empty(), as: HealthStatus.self).status == "ok")
        }
        let orders = RequestClient(context: context, endpoint: platform.endpoint("order-service"))
        defer { orders.close() }
        let refusals: [(PlaceOrderRequest, String)] = [
            (.init(idempotencyKey: "short", channel: .app, userId: "u", deviceId: nil, cafeId: "caffe-macs", reservationId: "r", items: [], paymentToken: nil, locale: "en_US"), "order.invalidIdempotencyKey"),
            (.init(idempotencyKey: "key-unknown-cafe", channel: .app, userId: "u", deviceId: nil, cafeId: "nowhere", reservationId: "r", items: [], paymentToken: "tok_abcdefabcdefabcdef", locale: "en_US"), "order.unknownCafe"),
            (.init(idempotencyKey: "key-no-payment", channel: .app, userId: "u", deviceId: nil, cafeId: "caffe-macs", reservationId: "r", items: [.init(itemId: "burger", quantity: 1)], paymentToken: nil, locale: "en_US"), "order.paymentRequired"),
            (.init(idempotencyKey: "key-bad-item", channel: .app, userId: "u", deviceId: nil, cafeId: "caffe-macs", reservationId: "r", items: [.init(itemId: "latte", quantity: 1)], paymentToken: "tok_abcdefabcdefabcdef", locale: "en_US"), "order.unknownItem"),
            (.init(idempotencyKey: "key-negative", channel: .app, userId: "u", deviceId: nil, cafeId: "caffe-macs", reservationId: "r", items: [.init(itemId: "burger", quantity: -1)], paymentToken: "tok_abcdefabcdefabcdef", locale: "en_US"), "order.invalidQuantity"),
            (.init(idempotencyKey: "key-no-reservation", channel: .app, userId: "u", deviceId: nil, cafeId: "caffe-macs", reservationId: "res_nope", items: [.init(itemId: "burger", quantity: 1)], paymentToken: "tok_abcdefabcdefabcdef", locale: "en_US"), "order.unknownReservation"),
        ]
        for (request, code) in refusals {
            #expect(throws: ServiceError.self) { try orders.call(Op.orderPlace, request, as: OrderView.self) }
            do { _ = try orders.call(Op.orderPlace, request, as: OrderView.self) } catch let error as ServiceError { #expect(error.code == code) }
        }
        // Nothing was half-written: no order exists, no event was published.
        let health = try orders.call(Op.health, Empty(), as: HealthStatus.self)
        #expect(health.details["orders.open"] == "0")
        #expect(health.streams["order"] == nil)
    }

    @Test("a message a service cannot use goes to its dead-letter topic with the reason")
    func deadLetters() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        let watcher = try BusWatcher(context: context, endpoint: platform.busSub, prefixes: ["deadletter."], probe: platform.busPub)
        defer { watcher.close() }
        // Published again until the dead letter shows: the consumers' subscriptions may still be
        // on their way through the bus when the first one goes out.
        let bogus = #"{"v":1,"type":"order.exploded","id":"x","source":"intruder","stream":"order","seq":1,"time":"2026-01-01T00:00:00.000Z","body":{}}"#
        let letter = try watcher.waitFor("deadletter.kitchen-display.", timeout: 20, resending: {
            let published = try platform.cafectl(["publish", "order.placed.caffe-macs.", bogus])
            #expect(published.status == 0, "\(published.err)")
        })
        guard case .deadLetter(let d) = letter.envelope.body else { Issue.record("not a dead letter"); return }
        #expect(d.code == "message.unknownType" && d.topic == "order.placed.caffe-macs." && d.message.contains("order.exploded"))
        let missing = #"{"v":1,"type":"order.placed","id":"y","source":"intruder","stream":"order","seq":1,"time":"2026-01-01T00:00:00.000Z","body":{"at":"2026-01-01T00:00:00.000Z"}}"#
        let second = try watcher.waitFor("deadletter.notification-service.", timeout: 20, resending: {
            _ = try platform.cafectl(["publish", "order.placed.caffe-macs.", missing])
        }, where: { if case .deadLetter(let d) = $0.envelope.body { d.excerpt.contains(#""id":"y""#) } else { false } })
        guard case .deadLetter(let d2) = second.envelope.body else { return }
        #expect(d2.code == "message.malformed", "\(d2)")
        #expect(d2.message.contains("missing field body.order"), "\(d2)")
    }

    @Test("SIGTERM stops every executable within 2 s with status 0", arguments: ["bus"] + Platform.services)
    func sigterm(service: String) throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let stopped = try #require(platform.terminate(service), "\(service) still running 5 s after SIGTERM")
        #expect(stopped.seconds < 2, "\(service) took \(stopped.seconds) s")
        #expect(stopped.status == 0)
        #expect(platform.log(service).contains("\"msg\":\"stopped\""))
    }

    @Test("SIGTERM stops a service within 2 s with status 0 while its bus is gone (killed, not restarted)", arguments: ["order-service", "region-monitor"])
    func sigtermWithPeerGone(service: String) throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.start(busAnd: ["region-monitor", "order-service"])
        platform.kill9("bus")
        // Once it has noticed, its publisher and subscription redial a port nobody listens on:
        // wait until no connection to the bus's ports is left open (or half-closed, the bus's end
        // gone and the service's not yet closed).
        let busPorts = ["bus-xsub", "bus-xpub"].compactMap { platform.ports[$0] }
        _ = try eventually("every connection to the dead bus closed") { () -> Bool? in
            TCPConnection.all().contains { $0.isOpen && busPorts.contains($0.remotePort) } ? nil : true
        }
        let stopped = try #require(platform.terminate(service), "\(service) still running 5 s after SIGTERM with the bus gone")
        #expect(stopped.seconds < 2, "\(service) took \(stopped.seconds) s with the bus gone")
        #expect(stopped.status == 0)
        #expect(platform.log(service).contains("\"msg\":\"stopped\""))
    }

    @Test("with its bus gone a service is degraded: cafectl health exits 1, health --live true exits 0; a service that is gone fails both")
    func liveness() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.start(busAnd: ["order-service"])
        #expect(try platform.cafectl(["health", "order-service"]).status == 0)
        platform.kill9("bus")
        let degraded = try eventually("order-service reports its bus unreachable") {
            let result = try platform.cafectl(["health", "order-service", "--json"])
            return result.out.contains("\"degraded\"") ? result : nil
        }
        #expect(degraded.status == 1, "\(degraded.out)")
        #expect(degraded.out.contains("bus.unreachable"), "\(degraded.out)")
        // The table says the same on the service's line, with the same exit status.
        let table = try platform.cafectl(["health", "order-service"])
        #expect(table.status == 1 && table.out.split(separator: "\n").last.map { $0.contains(" degraded ") && $0.hasSuffix("bus.unreachable") } == true, "\(table.out)")
        let live = try platform.cafectl(["health", "order-service", "--live", "true"])
        #expect(live.status == 0, "a degraded service is alive: \(live.out) \(live.err)")
        platform.kill9("order-service")
        let gone = try platform.cafectl(["health", "order-service", "--live", "true", "--timeout-ms", "500"])
        #expect(gone.status == 1 && gone.out.contains("unreachable"), "\(gone.out)")
    }

    @Test("an unknown flag or a bad value exits 2 with one line", arguments: ["bus", "order-service", "region-monitor"])
    func badFlags(service: String) throws {
        let bin = try Platform.binaryDirectory()
        // --hwm beyond a C int: the bus refuses it at start (it used to trap converting it); the others do not know it.
        for args in [["--no-such-flag", "1"], ["--log-level", "loud"], ["--hwm", "99999999999"]] {
            let result = try runCommand(bin.appendingPathComponent(service), args)
            #expect(result.status == 2)
            #expect(result.err.split(separator: "\n").count == 1 && result.err.contains(service))
        }
    }
}
