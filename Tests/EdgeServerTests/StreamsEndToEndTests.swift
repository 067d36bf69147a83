import EdgeCore
@testable import EdgeServer
import Foundation
import Messages
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// The whole way, with real processes and sockets: an order event published on the real bus
/// (the `bus` executable) reaches the streams' consumer on the edge host's reactor (its SUB
/// socket, its cursor, its publish timer), Pushpin, and a curl client held on the order's stream.
/// The ROUTER answering Pushpin is on the same reactor, as the edge server's will be.
@Suite("streams: bus to held client", .enabled(if: PushpinProcess.installed), .serialized)
struct StreamsEndToEndTests {
    static func binaryDirectory() throws -> URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if dir.path.hasSuffix(".xctest/Contents/MacOS") { dir = dir.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent() }
        for candidate in [dir, Bundle.main.bundleURL.deletingLastPathComponent()] where FileManager.default.isExecutableFile(atPath: candidate.appendingPathComponent("bus").path) {
            return candidate
        }
        throw ServiceErrorForTests("the executables are not built next to the tests in \(dir.path); run `swift build --build-tests` first")
    }

    @Test("an order.ready on the bus reaches a client held through Pushpin; repeats of an applied event do not")
    func busToClient() throws {
        let pushpin = try PushpinProcess()
        defer { pushpin.stop() }
        let ports = try LoopbackPorts.free(3)
        let bus = Process()
        bus.executableURL = try Self.binaryDirectory().appendingPathComponent("bus")
        bus.arguments = ["--xsub", "tcp://127.0.0.1:\(ports[0])", "--xpub", "tcp://127.0.0.1:\(ports[1])", "--listen", "tcp://127.0.0.1:\(ports[2])",
                         "--log-level", "error"]
        bus.standardOutput = FileHandle.nullDevice
        bus.standardError = FileHandle.nullDevice
        try bus.run()
        defer {
            // SIGKILL: a child of the test runner never sees a SIGTERM (see PushpinProcess.stop).
            kill(bus.processIdentifier, SIGKILL)
            bus.waitUntilExit()
        }

        let harness = try StreamsHarness(publishEndpoint: "tcp://127.0.0.1:\(pushpin.pushInPort)", busSub: "tcp://127.0.0.1:\(ports[1])")
        let context = try Context()
        let router = try Socket(context, .router)
        try router.setLinger(milliseconds: 0)
        try router.connect("tcp://127.0.0.1:\(pushpin.zhttpPort)")
        let streams = harness.streams
        // Both are used on the reactor's thread only (the test's thread made them before it runs).
        let answering = ReactorOwned(router)
        harness.host.reactor.onReadable(router) {
            while let frames = try router.tryReceiveMultipart() {
                guard let envelope = ZhttpEnvelope(frames: frames), let request = try? ZhttpRequest.decode(envelope.frame),
                      let call = try? EdgeRouter().resolve(request, role: .phone), case .stream(let action) = call.action else { continue }
                streams.open(action: .stream(action), pathParameters: call.pathParameters, headers: request.headers, principal: StreamsHarness.alice) { answer in
                    try? answering.value.send(multipart: envelope.reply(answer.zhttp(answering: request.id)))
                }
            }
        }
        let reactor = ReactorOwned(harness.host.reactor)
        let stopped = DispatchSemaphore(value: 0)
        Thread { reactor.value.run(); stopped.signal() }.start()
        defer {
            harness.host.shutdown.request()
            stopped.wait()
            router.close()
        }

        let url = "http://127.0.0.1:\(pushpin.httpPort)/v1/orders/ord-1/events"
        // Pushpin's proxy answers 500 "Accept service unavailable" until it reaches its handler: again then.
        var client = try HeldClient(url: url)
        var attempts = 1
        let holdDeadline = Date().addingTimeInterval(15)
        while Date() < holdDeadline {
            if client.waitFor("\r\n\r\n", seconds: 3), !client.text.contains("Accept service unavailable") { break }
            client.stop()
            Thread.sleep(forTimeInterval: 0.1)
            client = try HeldClient(url: url)
            attempts += 1
        }
        defer { client.stop() }
        #expect(client.text.hasPrefix("HTTP/1.1 200"), "held after \(attempts) attempts: \(client.text) \(pushpin.logs)")

        let publisher = try Socket(context, .pub)
        defer { publisher.close() }
        try publisher.setLinger(milliseconds: 0)
        try publisher.connect("tcp://127.0.0.1:\(ports[0])")
        func publish(_ event: (Envelope, String)) throws {
            try publisher.send(multipart: [Data(event.1.utf8), Wire.encode(event.0)])
        }
        // Until the subscription has reached the bus (a PUB drops what no subscriber holds yet),
        // order-service's seq 1 again and again: applied once, then a duplicate each time.
        let placed = StreamsHarness.orderEvent(.orderPlaced, seq: 1, state: .placed)
        let subscribeDeadline = Date().addingTimeInterval(10)
        while !client.text.contains("id: 1\n"), Date() < subscribeDeadline {
            try publish(placed)
            _ = client.waitFor("id: 1\n", seconds: 0.1)
        }
        #expect(client.text.contains("id: 1\nevent: order.placed\n"), "\(client.text)")

        let started = Reactor.monotonic()
        try publish(StreamsHarness.orderEvent(.orderReady, seq: 2, state: .ready))
        #expect(client.waitFor("id: 2\nevent: order.ready\n"), "\(client.text)")
        print("streams: bus publish → held client read order.ready in \(Int((Reactor.monotonic() - started) * 1000)) ms (curl's output polled every 10 ms)")
        Thread.sleep(forTimeInterval: 0.2)
        #expect(client.text.components(separatedBy: "id: 1\n").count == 2, "event 1, published many times, reached the client once")
    }
}

/// Something handed to the reactor's thread, which alone uses it from then on.
final class ReactorOwned<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
