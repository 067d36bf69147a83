import Foundation
import Messages
import Testing
import ZeroMQ

/// Frames, timeouts, errors and options of one socket.
@Suite("ZeroMQ sockets")
struct ZeroMQSocketTests {
    @Test("libzmq 4.x with CURVE is what we run against")
    func libraryVersion() {
        #expect(Context.version.major == 4)
        #expect(Context.has("curve"))
    }

    @Test("multipart messages keep every frame, empty and large ones included", arguments: Transport.allCases)
    func multipart(_ transport: Transport) throws {
        let context = try Context()
        let pull = try Socket(context, .pull)
        defer { pull.close() }
        let push = try Socket(context, .push)
        defer { push.close() }
        try push.connect(try bindFresh(pull, transport))

        let frames = [frame("order.placed.macs."), Data(), patternedFrame(bytes: 100_000), frame("z")]
        try push.send(multipart: frames)
        try push.send(multipart: [frame("next")])
        #expect(try pull.receiveMultipart(timeoutMilliseconds: 2_000) == frames)
        #expect(try pull.hasMore == false)
        #expect(try pull.receiveMultipart(timeoutMilliseconds: 2_000) == [frame("next")])
    }

    @Test("a 200 KiB frame arrives byte for byte", arguments: Transport.allCases)
    func largeFrame(_ transport: Transport) throws {
        let context = try Context()
        let pull = try Socket(context, .pull)
        defer { pull.close() }
        let push = try Socket(context, .push)
        defer { push.close() }
        try push.connect(try bindFresh(pull, transport))

        let big = patternedFrame(bytes: 200 * 1024)
        try push.send(big)
        let received = try #require(try pull.receiveMultipart(timeoutMilliseconds: 2_000))
        #expect(received.count == 1)
        #expect(received[0].count == 200 * 1024)
        #expect(received[0] == big)
    }

    @Test("empty frames are sent and received as empty Data", arguments: Transport.allCases)
    func emptyFrames(_ transport: Transport) throws {
        let context = try Context()
        let pull = try Socket(context, .pull)
        defer { pull.close() }
        let push = try Socket(context, .push)
        defer { push.close() }
        try push.connect(try bindFresh(pull, transport))

        try push.send(Data())
        try push.send("")
        try push.send(multipart: [Data(), Data()])
        #expect(try pull.receiveMultipart(timeoutMilliseconds: 2_000) == [Data()])
        #expect(try pull.receiveMultipart(timeoutMilliseconds: 2_000) == [Data()])
        #expect(try pull.receiveMultipart(timeoutMilliseconds: 2_000) == [Data(), Data()])
    }

    @Test("a string frame goes out as its UTF-8, whatever holds it: small, long, non-ASCII, a substring's copy, Foundation's")
    func stringFrames() throws {
        let context = try Context()
        let pull = try Socket(context, .pull)
        defer { pull.close() }
        let push = try Socket(context, .push)
        defer { push.close() }
        try push.connect(try bindFresh(pull, .inproc))

        let long = String(repeating: "region.event.caffe-macs.", count: 40)
        let texts = ["a", "order.placed.macs.", long, "Caffè Macs ☕️ 渋谷", String(long.dropFirst(7)),
                     NSString(string: "kitchen.ready.macs.").appending("x"), "nul\u{0}inside"]
        for text in texts {
            try push.send(text, more: true)
            try push.send(Data("end".utf8))
            #expect(try pull.receiveMultipart(timeoutMilliseconds: 2_000) == [Data(text.utf8), Data("end".utf8)])
        }
    }

    @Test("a receive that times out gives nil or isAgain, promptly")
    func receiveTimeout() throws {
        let context = try Context()
        let pull = try Socket(context, .pull)
        defer { pull.close() }
        try pull.bind(uniqueInproc())

        let started = Date()
        #expect(try pull.receiveMultipart(timeoutMilliseconds: 30) == nil)
        #expect(try pull.tryReceiveMultipart() == nil)

        try pull.setReceiveTimeout(milliseconds: 30)
        let error = #expect(throws: ZeroMQError.self) { try pull.receiveMultipart() }
        #expect(error?.isAgain == true)
        #expect(error?.isTerminated == false)
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed >= 0.05 && elapsed < 1.5, "two 30 ms waits took \(elapsed) s")
    }

    @Test("a non-blocking send with no peer gives isAgain instead of blocking")
    func sendWithoutPeer() throws {
        let context = try Context()
        let push = try Socket(context, .push)
        defer { push.close() }
        try push.bind(uniqueInproc())
        let error = #expect(throws: ZeroMQError.self) { try push.send("nobody listens", dontWait: true) }
        #expect(error?.isAgain == true)
    }

    @Test("errors carry errno, libzmq's text and the operation", arguments: [
        ("tcp://127.0.0.1:notaport", EINVAL, "Invalid argument"),
        ("no-scheme", EINVAL, "Invalid argument"),
        ("bogus://somewhere", EPROTONOSUPPORT, "Protocol not supported"),
    ])
    func bindErrors(endpoint: String, errno expected: Int32, message: String) throws {
        let context = try Context()
        let socket = try Socket(context, .rep)
        defer { socket.close() }
        let error = #expect(throws: ZeroMQError.self) { try socket.bind(endpoint) }
        #expect(error?.errno == expected)
        #expect(error?.message == message)
        #expect(error?.operation == "zmq_bind \(endpoint)")
        #expect(error?.description == "zmq_bind \(endpoint): \(message) (errno \(expected))")
    }

    @Test("binding an address in use fails with EADDRINUSE")
    func addressInUse() throws {
        let context = try Context()
        let first = try Socket(context, .rep)
        defer { first.close() }
        let second = try Socket(context, .rep)
        defer { second.close() }
        try first.bind("tcp://127.0.0.1:*")
        let endpoint = try first.lastEndpoint
        let error = #expect(throws: ZeroMQError.self) { try second.bind(endpoint) }
        #expect(error?.errno == EADDRINUSE)
        #expect(error?.message == "Address already in use")
    }

    @Test("a closed socket refuses every call with ENOTSOCK; closing twice is harmless")
    func closedSocket() throws {
        let context = try Context()
        let socket = try Socket(context, .pull)
        socket.close()
        socket.close()
        #expect(socket.isClosed)
        let error = #expect(throws: ZeroMQError.self) { try socket.receiveMultipart(dontWait: true) }
        #expect(error?.errno == ENOTSOCK)
        #expect(throws: ZeroMQError.self) { try socket.setLinger(milliseconds: 0) }
        #expect(throws: ZeroMQError.self) { try socket.connect("inproc://nowhere") }
    }

    @Test("ZMQ_MAXMSGSIZE drops a peer that sends an oversize frame; later small frames get through")
    func maxMessageSize() throws {
        let context = try Context()
        let pull = try Socket(context, .pull)
        defer { pull.close() }
        try pull.setMaxMessageSize(bytes: 1_024)
        let push = try Socket(context, .push)
        defer { push.close() }
        try push.setLinger(milliseconds: 0)
        try push.setReconnectInterval(milliseconds: 10)
        // The limit is enforced by the wire decoder, so only a real transport (tcp) shows it.
        try push.connect(try bindFresh(pull, .tcp))

        try push.send(patternedFrame(bytes: 4_096))
        var received: [Data]?
        for attempt in 0..<100 where received == nil {
            do {
                try push.send("probe \(attempt)", dontWait: true)
            } catch {
                // Between the drop and the reconnect there is no pipe to queue on; try again.
                guard error.isAgain else { throw error }
            }
            received = try pull.receiveMultipart(timeoutMilliseconds: 20)
        }
        let message = try #require(received)
        #expect(message.count == 1)
        #expect(message[0].count < 1_024, "the oversize frame never reaches the application")
        #expect(message[0].utf8Text.hasPrefix("probe "))
    }

    @Test("socket options read back what was set", arguments: [Int32(0), 250, -1])
    func lingerRoundTrip(_ milliseconds: Int32) throws {
        let context = try Context()
        let socket = try Socket(context, .pub)
        defer { socket.close() }
        try socket.setLinger(milliseconds: milliseconds)
        #expect(try socket.linger == milliseconds)
    }

    @Test("send high-water mark reads back what was set", arguments: [Int32(1), 1_000, 100_000])
    func highWaterMarkRoundTrip(_ messages: Int32) throws {
        let context = try Context()
        let socket = try Socket(context, .pub)
        defer { socket.close() }
        try socket.setSendHighWaterMark(messages)
        try socket.setReceiveHighWaterMark(messages)
        #expect(try socket.sendHighWaterMark == messages)
    }

    @Test("a TCP connect gets ZMTP heartbeats (30 s ping, 90 s timeout) unless set; inproc and a caller's own are left alone")
    func tcpHeartbeatDefault() throws {
        let context = try Context()
        let tcp = try Socket(context, .dealer)
        defer { tcp.close() }
        #expect(try tcp.heartbeat.interval == 0)
        try tcp.connect("tcp://127.0.0.1:1")
        let heartbeat = try tcp.heartbeat
        #expect(heartbeat.interval == 30_000 && heartbeat.timeout == 90_000, "\(heartbeat)")

        let own = try Socket(context, .dealer)
        defer { own.close() }
        try own.setHeartbeat(intervalMilliseconds: 1_000, timeoutMilliseconds: 3_000)
        try own.connect("tcp://127.0.0.1:1")
        #expect(try own.heartbeat.interval == 1_000)

        let inproc = try Socket(context, .dealer)
        defer { inproc.close() }
        try inproc.connect("inproc://nobody-\(getpid())")
        #expect(try inproc.heartbeat.interval == 0)
    }

    @Test("every other option the platform sets reads back as set, or (write-only in libzmq) shows in behaviour")
    func otherOptions() throws {
        let context = try Context()
        let req = try Socket(context, .req)
        defer { req.close() }
        try req.setSendTimeout(milliseconds: 100)
        try req.setReceiveTimeout(milliseconds: 150)
        try req.setHeartbeat(intervalMilliseconds: 1_000, timeoutMilliseconds: 3_000, ttlMilliseconds: 5_000)
        try req.setReconnectInterval(milliseconds: 100, maxMilliseconds: 2_000)
        try req.setImmediate(true)
        try req.setRequestRelaxed(true)
        try req.setZAPDomain("cafe")
        try req.setMaxMessageSize(bytes: 4_096)
        try req.setReceiveHighWaterMark(77)
        #expect(try req.sendTimeout == 100)
        #expect(try req.receiveTimeout == 150)
        let heartbeat = try req.heartbeat
        #expect(heartbeat.interval == 1_000 && heartbeat.timeout == 3_000 && heartbeat.ttl == 5_000)
        let reconnect = try req.reconnectInterval
        #expect(reconnect.milliseconds == 100 && reconnect.maxMilliseconds == 2_000)
        #expect(try req.immediate)
        #expect(try req.zapDomain == "cafe")
        #expect(try req.maxMessageSize == 4_096)
        #expect(try req.receiveHighWaterMark == 77)

        // ZMQ_REQ_RELAXED and ZMQ_REQ_CORRELATE cannot be read back: a relaxed REQ may send again
        // before a reply (a strict one is refused, see ZeroMQPatternTests), and a correlating one
        // puts a request id before the empty delimiter.
        let router = try Socket(context, .router)
        defer { router.close() }
        try req.connect(try bindFresh(router, .inproc))
        try req.send("one")
        try req.send("two")
        for body in ["one", "two"] {
            let message = try #require(try router.receiveMultipart(timeoutMilliseconds: 2_000))
            #expect(message.count == 4, "identity, request id, delimiter, body")
            #expect(message.last.map { $0.utf8Text } == body)
        }

        // ZMQ_XPUB_VERBOSE cannot be read back either: a verbose XPUB passes on a subscription
        // a second subscriber repeats, which a plain one swallows.
        let xpub = try Socket(context, .xpub)
        defer { xpub.close() }
        try xpub.setXPubVerbose(true)
        let endpoint = try bindFresh(xpub, .inproc)
        let subscribers = try (0..<2).map { _ in try Socket(context, .sub) }
        defer { subscribers.forEach { $0.close() } }
        for subscriber in subscribers {
            try subscriber.connect(endpoint)
            try subscriber.subscribe("menu.")
            #expect(try xpub.receiveMultipart(timeoutMilliseconds: 2_000) == [Data([1]) + frame("menu.")])
        }
    }
}
