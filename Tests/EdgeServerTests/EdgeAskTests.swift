import EdgeCore
@testable import EdgeServer
import Foundation
import Identity
import Messages
import ServiceRuntime
import Synchronization
import Testing
import TestSupport
import ZeroMQ

/// `EdgeServer.ask` (the streams part's way to ask a service) in process, on the server's own
/// reactor: a REP socket playing order-service inside this test, over inproc.
@Suite("The edge asks a service on behalf of a principal: the answer, 504 past the deadline, 503 when not connected")
struct EdgeAskTests {
    let tag = UUID().uuidString.prefix(8)
    let folder: URL
    let clock = ManualClock()
    let host: ServiceHost
    let edge: EdgeServer
    /// order-service's stand-in, bound before the edge connects.
    let orders: Socket

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("edge-ask-\(tag)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let config = try Configuration(program: "edge", specs: EdgeSettings.specs,
                                       arguments: ["--listen", "inproc://edge-\(tag)", "--bus-pub", "inproc://bus-pub-\(tag)", "--bus-sub", "inproc://bus-sub-\(tag)",
                                                   "--data-dir", folder.path, "--log-level", "error", "--zhttp-endpoint", "inproc://zhttp-\(tag)",
                                                   "--orders-endpoint", "inproc://orders-\(tag)", "--kitchen-endpoint", "tcp://127.0.0.1:\(try LoopbackPorts.free(1)[0])",
                                                   "--deadline-ms", "1000", "--max-in-flight", "2"],
                                       environment: [:])
        host = try ServiceHost(options: EdgeSettings.common, config: config, clock: clock)
        orders = try Socket(host.context, .rep)
        try orders.setLinger(milliseconds: 0)
        try orders.bind("inproc://orders-\(tag)")
        edge = try EdgeServer(host: host, settings: EdgeSettings(config), issuers: IssuerConfiguration())
        edge.start()
    }

    /// Runs the edge's reactor until `ask`'s answer comes (or 5 s of real time), with `serve`
    /// answering what reaches the stand-in; the answer and the request frame the stand-in read.
    func ask(_ op: String, principal: OnBehalfOf, serve: ((Data) -> Data?)?, advanceAfterSend: Double = 0) -> (EdgeResponse?, Data?) {
        let answer = Mutex<EdgeResponse?>(nil)
        var received: Data?
        host.reactor.onReadable(orders) { [orders] in
            guard let frames = try orders.tryReceiveMultipart() else { return }
            received = frames.last
            if let reply = serve?(frames.last ?? Data()) { try orders.send(reply) }
        }
        let shutdown = host.shutdown
        edge.ask(op, Array(#"{"orderId":"ord-1"}"#.utf8), principal) { response in
            answer.withLock { $0 = response }
            shutdown.request()
        }
        if advanceAfterSend > 0 { clock.advance(seconds: advanceAfterSend) }
        let started = Date()
        host.reactor.every(0.05, name: "test.limit") { if Date().timeIntervalSince(started) > 5 { shutdown.request() } }
        host.reactor.run()
        return (answer.withLock { $0 }, received)
    }

    func close() {
        edge.close()
        orders.close()
        host.requests.close()
        host.publisher.close()
        host.db.close()
        try? FileManager.default.removeItem(at: folder)
    }

    @Test("the service's reply body comes back as 200 JSON; the request named the op, an id and the principal")
    func answered() throws {
        defer { close() }
        let alice = OnBehalfOf.phone("s1", userId: "alice", deviceId: "phone-1")
        let (response, frame) = ask(Op.orderGet, principal: alice) { _ in Data(#"{"ok":true,"body":{"order":{"orderId":"ord-1"}}}"#.utf8) }
        #expect(response == .json(Array(#"{"order":{"orderId":"ord-1"}}"#.utf8)))
        let request = try Wire.decodeRequest(try requireValue(frame), body: OrderQuery.self, maxBytes: 1 << 20)
        #expect(request.op == Op.orderGet && request.onBehalfOf == alice && request.body.orderId == "ord-1" && request.id.hasPrefix("edge-"))
    }

    @Test("a service's refusal is its problem")
    func refused() {
        defer { close() }
        let (response, _) = ask(Op.orderGet, principal: .phone("s1", userId: "alice", deviceId: "phone-1")) { _ in
            Data(#"{"ok":false,"error":{"code":"auth.forbidden","message":"not yours"}}"#.utf8)
        }
        #expect(response?.status == 403)
    }

    @Test("no answer by the deadline on the injected clock is 504 client.timeout")
    func deadline() throws {
        defer { close() }
        let (response, frame) = ask(Op.orderGet, principal: .phone("s1", userId: "alice", deviceId: "phone-1"), serve: nil, advanceAfterSend: 1.5)
        #expect(frame != nil)
        #expect(response?.status == 504)
        let body = String(decoding: response?.body ?? [], as: UTF8.self)
        #expect(body.contains("client.timeout"))
    }

    @Test("beyond --max-in-flight requests waiting for services, the next is 503 at once")
    func inFlightLimit() throws {
        defer { close() }
        let alice = OnBehalfOf.phone("s1", userId: "alice", deviceId: "phone-1")
        let answers = Mutex<[Int]>([])
        // Two wait (the stand-in never answers); the third is refused before it is sent.
        for _ in 0..<3 {
            edge.ask(Op.orderGet, Array(#"{"orderId":"ord-1"}"#.utf8), alice) { response in answers.withLock { $0.append(response.status) } }
        }
        #expect(answers.withLock { $0 } == [503])
        // Past the deadline the two waiting are answered 504.
        clock.advance(seconds: 1.5)
        let started = Date()
        let shutdown = host.shutdown
        host.reactor.every(0.02, name: "test.until") {
            if answers.withLock({ $0.count }) == 3 || Date().timeIntervalSince(started) > 5 { shutdown.request() }
        }
        host.reactor.run()
        #expect(answers.withLock { $0 } == [503, 504, 504])
    }

    @Test("beyond --max-in-flight-per-instance waiting for one service, the next is 503 with Retry-After at once; another service is still asked")
    func perInstanceLimit() throws {
        defer { close() }
        let config = try Configuration(program: "edge", specs: EdgeSettings.specs,
                                       arguments: ["--max-in-flight-per-instance", "1", "--max-in-flight", "10"], environment: [:])
        #expect(EdgeSettings(config).maxInFlightPerInstance == 1)
        #expect(throws: (any Error).self) {
            try Configuration(program: "edge", specs: EdgeSettings.specs, arguments: ["--max-in-flight-per-instance", "0"], environment: [:])
        }
        var settings = EdgeSettings(config)
        settings.ordersEndpoint = "inproc://orders-\(tag)"
        settings.kitchenEndpoint = "inproc://kitchen-\(tag)"
        let kitchen = try Socket(host.context, .rep)
        defer { kitchen.close() }
        try kitchen.setLinger(milliseconds: 0)
        try kitchen.bind("inproc://kitchen-\(tag)")
        let limited = try EdgeServer(host: host, settings: settings, issuers: IssuerConfiguration())
        defer { limited.close() }
        let alice = OnBehalfOf.phone("s1", userId: "alice", deviceId: "phone-1")
        let answers = Mutex<[EdgeResponse]>([])
        // One waits at order-service (the stand-in does not answer); the second is refused unsent.
        for _ in 0..<2 {
            limited.ask(Op.orderGet, Array(#"{"orderId":"ord-1"}"#.utf8), alice) { response in answers.withLock { $0.append(response) } }
        }
        let refused = try #require(answers.withLock { $0 }.first)
        #expect(refused.status == 503)
        #expect(refused.headers.contains { $0.0 == "Retry-After" && $0.1 == "1" })
        #expect(String(decoding: refused.body, as: UTF8.self).contains("order-service"))
        #expect(limited.healthDetails["forward.order-service.shed"] == "1")
        #expect(limited.healthDetails["forward.order-service.inFlight"] == "1")
        // kitchen-display has room of its own: its request is sent, not refused.
        limited.ask(Op.kdsTickets, Array(#"{"cafeId":"caffe-macs"}"#.utf8), .counter("kitchen", "s2", cafeId: "caffe-macs")) { response in
            answers.withLock { $0.append(response) }
        }
        #expect(answers.withLock { $0.count } == 1)
        #expect(limited.healthDetails["forward.kitchen-display.inFlight"] == "1")
    }

    @Test("a service that is not connected (tcp, nobody listening) is 503 at once, naming it")
    func notConnected() throws {
        defer { close() }
        let (response, _) = ask(Op.kdsTickets, principal: .counter("kitchen", "s2", cafeId: "caffe-macs"), serve: nil)
        #expect(response?.status == 503)
        let body = String(decoding: response?.body ?? [], as: UTF8.self)
        #expect(body.contains("kitchen-display"))
    }
}
