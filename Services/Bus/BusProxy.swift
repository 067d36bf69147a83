import Foundation
import Messages
import Policy
import ServiceRuntime
import ZeroMQ

/// The proxy loop: like `zmq_proxy`, but on our reactor so it answers health, counts traffic
/// and stops on SIGTERM within the shutdown bound.
///
/// In deployed mode it is also the bus's authorization (issue 13, `BusAccess`): every publication
/// is checked against the key its connection authenticated with (`PublicationGate`), every
/// subscription too (`SubscriptionGate`), against the key registry as of that message; and when a
/// reload removes a key, every connection is cut so each peer handshakes again and a revoked key
/// is refused there. Plain mode forwards as `zmq_proxy` does, without a copy.
final class BusProxy {
    private let config: Configuration
    private let logger: Logger
    private let shutdown = ShutdownSignal()
    private var forwarded: UInt64 = 0
    private var subscriptionChanges: UInt64 = 0
    private var sessionCuts = 0
    private let started = Reactor.monotonic()

    init(config: Configuration, logger: Logger) {
        self.config = config
        self.logger = logger
    }

    func run() throws {
        let context = try Context()
        // Before any socket: in deployed mode the ZAP handler must run before a server socket binds.
        let security = try SocketSecurity.from(config, name: config[BusOptions.instance], serving: context, logger: logger)
        let reactor = Reactor(shutdown: shutdown, logger: logger)
        let watch = SubscriberWatch(context: context, reactor: reactor, limits: BusOptions.linkLimits(config), logger: logger)
        let sockets = BusSockets(context: context, security: security, hwm: Int32(config[BusOptions.hwm]),
                                 maxMessageBytes: config[BusOptions.maxMessageBytes], subscriberHighWaterMark: BusOptions.subscriberHighWaterMark(config),
                                 maxPrefixBytes: config[BusOptions.maxPrefixBytes], watch: watch, logger: logger)
        let frontend = try sockets.frontend(config[BusOptions.xsub])
        let backend = try sockets.backend(config[BusOptions.xpub])
        let health = try Socket(context, .rep)
        try health.setLinger(milliseconds: 0)
        try security.secureServer(health, endpoint: config[BusOptions.listen])
        try health.bind(config[BusOptions.listen])
        var capture: Socket?
        if !config[BusOptions.capture].isEmpty {
            let socket = try Socket(context, .pub)
            try socket.setLinger(milliseconds: 0)
            // A capture listener that stops reading holds no more than a subscriber of the XPUB side.
            try socket.setSendHighWaterMark(sockets.subscriberHighWaterMark)
            // Every forwarded message goes out here: in deployed mode only operators may listen.
            try security.secureServer(socket, endpoint: config[BusOptions.capture], admitting: [.operator])
            try socket.bind(config[BusOptions.capture])
            capture = socket
        }

        let gates: (subscriptions: SubscriptionGate, publications: PublicationGate, deadLetters: BusDeadLetters)?
        if security.mode == .deployed {
            let subscriptions = SubscriptionGate(backend: backend, frontend: frontend, sockets: sockets, endpoint: config[BusOptions.xpub], reactor: reactor,
                                                 limits: BusOptions.subscriptionLimits(config), logger: logger) { [unowned watch] in watch.newSession(named: $0) }
            let deadLetters = BusDeadLetters(instance: config[BusOptions.instance]) { [unowned subscriptions] frames in
                try subscriptions.backend.send(multipart: frames, dontWait: true)
            }
            gates = (subscriptions, PublicationGate(security: security, deadLetters: deadLetters, logger: logger), deadLetters)
        } else {
            gates = nil
        }

        let router = RequestRouter(logger: logger)
        router.on(Op.health, Empty.self) { [unowned self, unowned router] _ in
            var details = ["xsub": config[BusOptions.xsub], "xpub": config[BusOptions.xpub], "forwarded": "\(forwarded)",
                           "subscriptionChanges": "\(subscriptionChanges)"]
            details.merge(security.healthDetails) { _, new in new }
            details.merge(ProcessUsage.healthDetails) { _, new in new }
            details.merge(router.metrics.healthDetails) { _, new in new }
            details.merge(watch.healthDetails) { _, new in new }
            details["auth.refused"] = "\(router.refusals)"
            details["auth.refused.onBehalfOf"] = "\(router.onBehalfOfRefusals)"
            if let gates {
                details.merge(gates.subscriptions.healthDetails) { _, new in new }
                details.merge(gates.publications.healthDetails) { _, new in new }
                details["deadLettered"] = "\(gates.deadLetters.count)"
                details["sessions.cut"] = "\(sessionCuts)"
            }
            return HealthStatus(service: "bus", instance: config[BusOptions.instance], status: "ok", uptimeSeconds: Reactor.monotonic() - started,
                                streams: [:], outboxPending: 0, details: details)
        }

        // The subscription side first: in manual mode its queue is best read as soon as it fills.
        reactor.onReadable(backend) { [unowned self] in
            if let gates {
                try gates.subscriptions.drain()
            } else {
                // A bounded number a turn, as in deployed mode: forwarding interleaves with a flood of them.
                for _ in 0..<SubscriptionGate.perTurn {
                    guard try backend.forwardOne(to: frontend) else { break }
                    subscriptionChanges += 1
                }
            }
        }
        reactor.onReadable(frontend) { [unowned self] in
            // Drain for one time slice so the subscription side and health stay responsive.
            let start = Reactor.monotonic()
            for index in 0..<10_000 {
                if index % 64 == 63, Reactor.monotonic() - start >= Reactor.timeSlice { return }
                if let gates {
                    // Deployed: read what the subscription side queued meanwhile (see SubscriptionGate).
                    if index % 256 == 255 { try gates.subscriptions.drain(limit: 64) }
                    let outcome = try frontend.forwardOne(to: gates.subscriptions.backend) { message in
                        guard gates.publications.admits(message) else { return false }
                        if let capture { try? capture.send(multipart: (0..<message.frameCount).map { Data(message.frame($0)) }, dontWait: true) }
                        return true
                    }
                    guard let outcome else { return }
                    if outcome { forwarded += 1 }
                } else if let capture {
                    guard let frames = try frontend.tryReceiveMultipart() else { return }
                    try backend.send(multipart: frames)
                    try capture.send(multipart: frames, dontWait: true)
                    forwarded += 1
                } else {
                    guard try frontend.forwardOne(to: backend) else { return }
                    forwarded += 1
                }
            }
        }
        if let gates { reactor.every(1, name: "subscription budget") { gates.subscriptions.tick() } }
        // What a cut subscriber or a churn of subscriptions freed goes back to the system.
        reactor.every(10, name: "memory.trim") { ServiceHost.trimHeap() }
        reactor.onReadable(health) {
            while let message = try health.tryReceivePeerMessage() {
                let reply = router.reply(to: message, security: security)
                try health.send(reply)
            }
        }
        // Revocation without restart: every check reads the registry of the moment; a key removed
        // by a reload (or whose role or scope changed) also loses the connections it opened
        // before, on both sides: subscriptions applied under the old entry go with them.
        security.registry?.onChange { [unowned self] old, new in
            let revoked = old.principals.filter { new.principal(key: $0.publicKey) != $0 }.map(\.name)
            guard let gates, !revoked.isEmpty else { return }
            sessionCuts += 1
            do {
                try gates.subscriptions.rebuild(.revoked, reason: "keys revoked: \(revoked.joined(separator: ", "))")
                try sockets.cutSessions(frontend, config[BusOptions.xsub])
            } catch {
                logger.error("could not cut the connections of revoked keys", ["error": "\(error)", "keys.revoked": revoked.joined(separator: ",")])
            }
        }
        security.attach(to: reactor)
        shutdown.installHandlers(logger: logger)
        logger.info("started", ["xsub": config[BusOptions.xsub], "xpub": config[BusOptions.xpub], "endpoint": config[BusOptions.listen], "security": security.mode.rawValue])
        reactor.run()
        capture?.close()
        health.close()
        watch.unwatch(gates?.subscriptions.backend ?? backend)
        (gates?.subscriptions.backend ?? backend).close()
        frontend.close()
        watch.close()
        security.close()
        logger.info("stopped", ["forwarded": "\(forwarded)"])
    }
}
