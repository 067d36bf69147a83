import Foundation
import Messages
import Testing
import ZeroMQ

/// The socket patterns the platform uses, over both in-process and TCP transports.
@Suite("ZeroMQ patterns")
struct ZeroMQPatternTests {
    @Test("PUB/SUB filters by topic prefix; the trailing dot keeps siblings apart", arguments: Transport.allCases)
    func publishSubscribeFiltering(_ transport: Transport) throws {
        let context = try Context()
        let publisher = try Socket(context, .pub)
        defer { publisher.close() }
        let endpoint = try bindFresh(publisher, transport)

        let prefixes = [
            Topic.order(state: "ready", cafe: "macs"),       // "order.ready.macs."
            Topic.order(state: "ready", cafe: "macs-park"),  // "order.ready.macs-park."
            "order.ready.",
            "order.ready.macs",                               // no trailing dot: matches the sibling too
        ]
        var subscribers: [Socket] = []
        defer { subscribers.forEach { $0.close() } }
        for prefix in prefixes {
            let subscriber = try Socket(context, .sub)
            subscribers.append(subscriber)
            try subscriber.subscribe(prefix)
            try subscriber.subscribe("sync.")
            try subscriber.connect(endpoint)
        }
        try synchronize(publisher: publisher, subscribers: subscribers)

        let published = ["order.ready.macs.", "order.ready.macs-park.", "order.placed.macs.", "kitchen.ready.macs."]
        for topic in published {
            try publisher.send(multipart: [frame(topic), frame("{\"topic\":\"\(topic)\"}")])
        }
        try publisher.send(multipart: [frame("sync.end."), Data()])

        let expected: [[String]] = [
            ["order.ready.macs."],
            ["order.ready.macs-park."],
            ["order.ready.macs.", "order.ready.macs-park."],
            ["order.ready.macs.", "order.ready.macs-park."],
        ]
        for (index, subscriber) in subscribers.enumerated() {
            let received = try collectUntilEnd(subscriber)
            #expect(received.map { $0[0].utf8Text } == expected[index], "subscriber to \(prefixes[index])")
            for message in received {
                #expect(message.count == 2)
                #expect(message[1].utf8Text == "{\"topic\":\"\(message[0].utf8Text)\"}")
            }
        }
    }

    @Test("REQ/REP answers in lock step; a second send before the reply is refused", arguments: Transport.allCases)
    func requestReply(_ transport: Transport) throws {
        let context = try Context()
        let server = try Socket(context, .rep)
        defer { server.close() }
        let client = try Socket(context, .req)
        defer { client.close() }
        try client.connect(try bindFresh(server, transport))

        try client.send("{\"op\":\"health\"}")
        let thrown = #expect(throws: ZeroMQError.self) { try client.send("again") }
        #expect(thrown?.isWrongState == true)

        let request = try #require(try server.receiveMultipart(timeoutMilliseconds: 2_000))
        #expect(request == [frame("{\"op\":\"health\"}")])
        try server.send("{\"ok\":true}")
        let reply = try #require(try client.receiveMultipart(timeoutMilliseconds: 2_000))
        #expect(reply == [frame("{\"ok\":true}")])
    }

    @Test("PUSH/PULL delivers every message in order", arguments: Transport.allCases)
    func pushPull(_ transport: Transport) throws {
        let context = try Context()
        let pull = try Socket(context, .pull)
        defer { pull.close() }
        let push = try Socket(context, .push)
        defer { push.close() }
        try push.connect(try bindFresh(pull, transport))

        for index in 0..<100 { try push.send("message \(index)") }
        for index in 0..<100 {
            let message = try #require(try pull.receiveMultipart(timeoutMilliseconds: 2_000))
            #expect(message == [frame("message \(index)")])
        }
        #expect(try pull.tryReceiveMultipart() == nil)
    }

    @Test("ROUTER addresses each DEALER by the identity frame it prepends", arguments: Transport.allCases)
    func routerDealer(_ transport: Transport) throws {
        let context = try Context()
        let router = try Socket(context, .router)
        defer { router.close() }
        let endpoint = try bindFresh(router, transport)
        let first = try Socket(context, .dealer)
        defer { first.close() }
        let second = try Socket(context, .dealer)
        defer { second.close() }
        try first.connect(endpoint)
        try second.connect(endpoint)

        try first.send(multipart: [frame("from"), frame("first")])
        try second.send(multipart: [frame("from"), frame("second")])
        var identities: [String: Data] = [:]
        for _ in 0..<2 {
            let message = try #require(try router.receiveMultipart(timeoutMilliseconds: 2_000))
            #expect(message.count == 3)
            #expect(message[1] == frame("from"))
            identities[message[2].utf8Text] = message[0]
        }
        let firstIdentity = try #require(identities["first"])
        let secondIdentity = try #require(identities["second"])
        #expect(firstIdentity != secondIdentity)

        try router.send(multipart: [secondIdentity, frame("to"), frame("second")])
        try router.send(multipart: [firstIdentity, frame("to"), frame("first")])
        #expect(try first.receiveMultipart(timeoutMilliseconds: 2_000) == [frame("to"), frame("first")])
        #expect(try second.receiveMultipart(timeoutMilliseconds: 2_000) == [frame("to"), frame("second")])
    }

    @Test("XSUB/XPUB proxy hop: forwardOne carries subscriptions up and messages down", arguments: Transport.allCases)
    func proxyForwarding(_ transport: Transport) throws {
        let context = try Context()
        let frontend = try Socket(context, .xsub)
        defer { frontend.close() }
        let backend = try Socket(context, .xpub)
        defer { backend.close() }
        let publisherEndpoint = try bindFresh(frontend, transport)
        let subscriberEndpoint = try bindFresh(backend, transport)
        let publisher = try Socket(context, .pub)
        defer { publisher.close() }
        let subscriber = try Socket(context, .sub)
        defer { subscriber.close() }
        try publisher.connect(publisherEndpoint)
        try subscriber.connect(subscriberEndpoint)

        #expect(try backend.forwardOne(to: frontend) == false, "nothing queued yet")
        try subscriber.subscribe("order.")
        #expect(try Poller.wait(for: backend, events: .readable, timeoutMilliseconds: 2_000))
        #expect(try backend.forwardOne(to: frontend), "the subscription travels upstream")

        // The publisher learns of the subscription asynchronously: publish until one arrives.
        var delivered: [Data]?
        for attempt in 0..<200 where delivered == nil {
            try publisher.send(multipart: [frame("kitchen.ready.macs."), frame("filtered")])
            try publisher.send(multipart: [frame("order.placed.macs."), Data(), frame("probe \(attempt)")])
            if try Poller.wait(for: frontend, events: .readable, timeoutMilliseconds: 10) {
                while try frontend.forwardOne(to: backend) {}
            }
            delivered = try subscriber.receiveMultipart(timeoutMilliseconds: 10)
        }
        let message = try #require(delivered)
        #expect(message.count == 3, "all frames of a multipart message travel together")
        #expect(message[0] == frame("order.placed.macs."))
        #expect(message[1].isEmpty)
        #expect(message[2].utf8Text.hasPrefix("probe "))

        // Messages nobody subscribed to are filtered at the publisher and never reach the proxy.
        try publisher.send(multipart: [frame("kitchen.ready.macs."), frame("filtered")])
        try publisher.send(multipart: [frame("order.ready.macs."), frame("last")])
        var topics: [String] = []
        let deadline = Date().addingTimeInterval(3)
        while !topics.contains("order.ready.macs."), Date() < deadline {
            if try Poller.wait(for: frontend, events: .readable, timeoutMilliseconds: 10) {
                while try frontend.forwardOne(to: backend) {}
            }
            while let message = try subscriber.receiveMultipart(timeoutMilliseconds: 5) {
                topics.append(message[0].utf8Text)
            }
        }
        #expect(topics.last == "order.ready.macs.")
        #expect(!topics.contains { $0.hasPrefix("kitchen.") })
    }

    @Test("XPUB reports a subscription as 0x01 followed by the prefix")
    func subscriptionMessageFormat() throws {
        let context = try Context()
        let backend = try Socket(context, .xpub)
        defer { backend.close() }
        let subscriber = try Socket(context, .sub)
        defer { subscriber.close() }
        try subscriber.connect(try bindFresh(backend, .inproc))
        try subscriber.subscribe("region.event.")
        let message = try #require(try backend.receiveMultipart(timeoutMilliseconds: 2_000))
        #expect(message == [Data([1]) + frame("region.event.")])
        try subscriber.unsubscribe("region.event.")
        let gone = try #require(try backend.receiveMultipart(timeoutMilliseconds: 2_000))
        #expect(gone == [Data([0]) + frame("region.event.")])
    }
}
