import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// The proxy loop: like `zmq_proxy`, but on our reactor so it answers health, counts traffic
/// and stops on SIGTERM within the shutdown bound.
final class BusProxy {
    private let config: Configuration
    private let logger: Logger
    private let shutdown = ShutdownSignal()
    private var forwarded: UInt64 = 0
    private var subscriptionChanges: UInt64 = 0
    private let started = Reactor.monotonic()

    init(config: Configuration, logger: Logger) {
        self.config = config
        self.logger = logger
    }

    func run() throws {
        let context = try Context()
        // Before any socket: in deployed mode the ZAP handler must run before a server socket binds.
        let security = try SocketSecurity.from(config, name: config.string("instance"), serving: context, logger: logger)
        let hwm = Int32(config.int("hwm"))
        let frontend = try Socket(context, .xsub)
        try frontend.setReceiveHighWaterMark(hwm)
        try frontend.setSendHighWaterMark(hwm)
        try frontend.setLinger(milliseconds: 0)
        try security.secureServer(frontend, endpoint: config.string("xsub"))
        try frontend.bind(config.string("xsub"))
        let backend = try Socket(context, .xpub)
        try backend.setSendHighWaterMark(hwm)
        try backend.setReceiveHighWaterMark(hwm)
        try backend.setLinger(milliseconds: 500)
        // Every subscriber's subscribe and unsubscribe reaches the publishers, so two subscribers
        // to one prefix do not hide each other.
        try backend.setXPubVerbose(true)
        try security.secureServer(backend, endpoint: config.string("xpub"))
        try backend.bind(config.string("xpub"))
        let health = try Socket(context, .rep)
        try health.setLinger(milliseconds: 0)
        try security.secureServer(health, endpoint: config.string("listen"))
        try health.bind(config.string("listen"))
        var capture: Socket?
        if !config.string("capture").isEmpty {
            let socket = try Socket(context, .pub)
            try socket.setLinger(milliseconds: 0)
            try security.secureServer(socket, endpoint: config.string("capture"))
            try socket.bind(config.string("capture"))
            capture = socket
        }

        let router = RequestRouter(logger: logger)
        router.on(Op.health, Empty.self) { [unowned self] _ in
            HealthStatus(service: "bus", instance: config.string("instance"), status: "ok", uptimeSeconds: Reactor.monotonic() - started,
                         streams: [:], outboxPending: 0,
                         details: ["xsub": config.string("xsub"), "xpub": config.string("xpub"),
                                   "forwarded": "\(forwarded)", "subscriptionChanges": "\(subscriptionChanges)"])
        }

        let reactor = Reactor(shutdown: shutdown, logger: logger)
        reactor.onReadable(frontend) { [unowned self] in
            // Drain a bounded batch so the subscription side and health stay responsive.
            for _ in 0..<10_000 {
                if let capture {
                    guard let frames = try frontend.tryReceiveMultipart() else { return }
                    try backend.send(multipart: frames)
                    try capture.send(multipart: frames, dontWait: true)
                } else {
                    guard try frontend.forwardOne(to: backend) else { return }
                }
                forwarded += 1
            }
        }
        reactor.onReadable(backend) { [unowned self] in
            while try backend.forwardOne(to: frontend) { subscriptionChanges += 1 }
        }
        reactor.onReadable(health) {
            while let message = try health.tryReceivePeerMessage() {
                let reply: Data
                if message.frames.count != 1 {
                    reply = RequestRouter.errorReply(ServiceError(.malformed, "a request is one JSON frame"))
                } else if let caller = security.caller(userId: message.userId, key: message.publicKey) {
                    reply = router.handle(message.frames[0], caller: caller)
                } else {
                    reply = RequestRouter.errorReply(ServiceError(.forbidden, "the key this connection authenticated with is no longer in the campus key registry"))
                }
                try health.send(reply)
            }
        }
        security.attach(to: reactor)
        shutdown.installHandlers(logger: logger)
        logger.info("started", ["xsub": config.string("xsub"), "xpub": config.string("xpub"), "endpoint": config.string("listen")])
        reactor.run()
        capture?.close()
        health.close()
        backend.close()
        frontend.close()
        security.close()
        logger.info("stopped", ["forwarded": "\(forwarded)"])
    }
}
