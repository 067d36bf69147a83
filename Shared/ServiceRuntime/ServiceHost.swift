import Foundation
import Messages
import Metrics
import SQLite
import ZeroMQ

/// The parts every service process is made of, composed from its configuration: a logger, its SQLite
/// file with the outbox, an `EventPublisher` (PUB to the bus) and the `EventWriter` over both, a
/// `RequestServer` (REP, with health and replay), a `HeartbeatPublisher`, the `BusSubscription`
/// a Server makes, and the `Reactor` that runs them all on one thread. Each part has one job.
/// `ServiceLaunch` builds one host per process; a Server takes from it the parts it uses and
/// keeps none of the host, and `run(_:)` keeps the Server while it runs.
public final class ServiceHost {
    public let service: String
    public let logger: Logger
    public let clock: any WallClock
    public let context: Context
    public let db: Database
    /// The file's `quick_check`, running while the service restores (see `ServiceStorage`).
    private let integrityCheck: IntegrityCheck?
    public let reactor: Reactor
    public let shutdown = ShutdownSignal()
    public let publisher: EventPublisher
    public let requests: RequestServer
    public let heartbeat: HeartbeatPublisher
    public let deadLetters: DeadLetters
    /// How this process's sockets are secured: plain (loopback development) or deployed (CURVE).
    public let security: SocketSecurity
    /// The bus subscriptions a Server makes (`bus.subscribe`, one consumer per call).
    public let bus: BusSubscription
    /// State changes with their events, in one transaction, and best-effort events.
    public let events: EventWriter
    /// Online copies of the database for the operator (`backup.start`, `backup.read`).
    public let backups: Backups
    /// Deletes what outlived its retention, in small batches (see `RetentionOptions`); a Server adds its own tables.
    public let pruner: Pruner
    public let maxMessageBytes: Int
    /// Whether this process publishes on the bus (and beats); see `CommonOptions.publishes`.
    public let publishes: Bool
    /// Where the publisher and the consumer meet the bus, for health and the startup line.
    private let busPub: String
    private let busSub: String
    /// The options not left at their defaults, with where each came from, for the startup line.
    private let changedOptions: [String: String]
    /// The service this host runs, kept while it runs: its handlers point back at it unowned.
    private var running: AnyObject?

    /// Builds the host of `options.service` from configuration loaded with (at least) `options.specs`.
    public init(options: CommonOptions, config: Configuration, clock: any WallClock = SystemClock()) throws {
        service = options.service
        publishes = options.publishes
        self.clock = clock
        let instance = config[options.instance]
        logger = Logger(service: service, instance: instance, minimum: Logger.Level(name: config[CommonOptions.logLevel]) ?? .info)
        maxMessageBytes = config[CommonOptions.maxMessageBytes]
        busPub = config[CommonOptions.busPub]
        busSub = config[CommonOptions.busSub]
        changedOptions = config.changedValues

        let dataDir = config[CommonOptions.dataDir]
        try FileManager.default.createDirectory(atPath: dataDir, withIntermediateDirectories: true)
        (db, integrityCheck) = try ServiceStorage.openChecking(path: (dataDir as NSString).appendingPathComponent("\(instance).sqlite"))
        let maxDatabaseMB = config[CommonOptions.maxDatabaseMB]
        if maxDatabaseMB > 0 { try db.limitSize(megabytes: maxDatabaseMB) }
        // The reactor commits; the disk's syncs happen on the checkpointer's thread (WALCheckpointer).
        try db.checkpointInBackground()
        let outbox = try Outbox(db: db, source: instance, clock: clock)
        reactor = Reactor(shutdown: shutdown, logger: logger)
        reactor.stallWarningSeconds = Double(config[CommonOptions.stallWarningMilliseconds]) / 1000
        pruner = Pruner(intervalSeconds: Double(config[RetentionOptions.pruneInterval]), logger: logger)
        let seenEventSeconds = Double(config[RetentionOptions.seenEventRetention])
        // Two I/O threads: connections this process makes (whose peer names libzmq resolves with a
        // blocking lookup) on one, what it serves on the other, so a DNS server that does not
        // answer cannot stop health and requests from being answered (see `Socket.connect`).
        context = try Context(ioThreads: 2)
        // Before any socket: in deployed mode the ZAP handler must run before a server socket binds.
        security = try SocketSecurity.from(config, name: instance, serving: context, logger: logger)
        publisher = try EventPublisher(context: context, busEndpoint: busPub, outbox: outbox, clock: clock, security: security, logger: logger)
        deadLetters = DeadLetters(service: service, publisher: publisher, logger: logger)
        requests = try RequestServer(context: context, listen: config[options.listen], advertise: config[CommonOptions.advertise], service: service,
                                     outbox: outbox, maxMessageBytes: maxMessageBytes, security: security, logger: logger)
        heartbeat = HeartbeatPublisher(service: service, replayEndpoint: requests.advertisedEndpoint, publisher: publisher)
        events = EventWriter(db: db, publisher: publisher)
        backups = Backups(database: db.path, folder: (dataDir as NSString).appendingPathComponent("backup"), service: service, instance: instance,
                          clock: clock, logger: logger)
        backups.register(on: requests.router)
        // The consumer is made from the parts, not the host, so nothing it holds points back here.
        bus = BusSubscription { [context, busSub, db, publisher, deadLetters, clock, security, logger, maxMessageBytes, reactor, pruner] prefixes, durableStreams, first, handler in
            let consumer = try BusConsumer(context: context, busEndpoint: busSub, prefixes: prefixes, durableStreams: durableStreams,
                                           db: db, publisher: publisher, deadLetters: deadLetters, clock: clock, security: security, logger: logger,
                                           maxMessageBytes: maxMessageBytes, sharing: first, handler: handler)
            consumer.follower.ledger.retentionSeconds = seenEventSeconds
            consumer.attach(to: reactor, pruner: first == nil ? pruner : nil)
            return consumer
        }

        requests.addHealthDetails { [unowned self] in
            var details = ["bus.pub": busPub, "bus.sub": busSub, "deadLettered": "\(deadLetters.count)"]
            details.merge(ProcessUsage.healthDetails) { _, new in new }
            details.merge(StorageUsage.healthDetails(databasePath: db.path)) { _, new in new }
            if let checkpoints = db.backgroundCheckpoints?.snapshot {
                details["storage.checkpoints"] = "\(checkpoints.runs)"
                details["storage.checkpointFailures"] = "\(checkpoints.failures)"
                details["storage.checkpointSlowestMs"] = String(format: "%.1f", checkpoints.slowestSeconds * 1000)
            }
            details.merge(pruner.healthDetails) { _, new in new }
            details.merge(bus.healthDetails) { _, new in new }
            return details
        }
        requests.addDegradedReasons { [unowned self] in self.degradedReasons }
        requests.attach(to: reactor)
        // A process that never publishes announces nothing either.
        if options.publishes { heartbeat.attach(to: reactor) }
        publisher.attach(to: reactor, pruner: pruner, replayWindowSeconds: Double(config[options.retention.replayWindow]))
        pruner.attach(to: reactor)
        security.attach(to: reactor)
        // After a burst (a lunch rush, a replay) glibc keeps the freed heap; hand it back so a
        // service's resident memory follows what it holds, not what it once buffered.
        reactor.every(10, name: "memory.trim") { Self.trimHeap() }
        // Fold the WAL back into the database, so the log does not keep the disk a burst once
        // needed: on the checkpointer's thread (a PASSIVE checkpoint waits for no reader, a backup's
        // snapshot among them); the next write starts the log over and trims it to 1 MiB.
        reactor.every(30, name: "wal.checkpoint") { [unowned self] in try self.db.checkpointSoon() }
    }

    /// Why health says `degraded`: the storage failing or damaged, the bus out of reach, the
    /// consumer retrying or behind. Empty when all is well.
    public var degradedReasons: [String] {
        var reasons: [String] = []
        if db.corruptionSeen { reasons.append("storage.corrupt") }
        if let failure = db.recentStorageFailure(within: 10) { reasons.append(failure.isFull ? "storage.full" : "storage.failing") }
        if publisher.link.isRefused {
            reasons.append("bus.refused")
        } else if publisher.link.isUnreachable {
            reasons.append("bus.unreachable")
        }
        reasons += bus.degradedReasons
        return reasons
    }

    // MARK: Running

    /// Waits for the database file's integrity check; throws the refusal to start when it found
    /// the file damaged. Called before anything is served.
    public func confirmStorage() throws {
        if let refusal = integrityCheck?.refusal() { throw refusal }
    }

    /// Runs `service` (built on this host's parts) until SIGTERM or SIGINT, keeping it while it
    /// runs, then stops within the linger bounds: last flush, sockets closed with bounded linger,
    /// database closed.
    public func run(_ service: AnyObject) {
        running = service
        defer { running = nil }
        shutdown.installHandlers(logger: logger)
        var started = ["security": security.mode.rawValue, "endpoint": requests.advertisedEndpoint, "bus.pub": busPub, "bus.sub": busSub, "db.path": db.path]
        // Every value that did not come from its default, and where it came from.
        for (name, value) in changedOptions { started["config.\(name)"] = value }
        logger.info("started", started)
        publisher.flush()
        // Announce the epoch and stream positions at once, not a second later: a consumer learns
        // early that this publisher started over.
        if publishes { try? heartbeat.beat() }
        reactor.run()
        publisher.flush()
        try? publisher.outbox.persistPublished()
        bus.close()
        backups.discard()
        requests.close()
        publisher.close()
        security.close()
        db.close()
        logger.info("stopped")
        // Everything is flushed, stored and closed. Terminating the context waits for its I/O
        // threads, and one may sit in a name lookup for many seconds: exit within 2 s anyway.
        ExitWatchdog.arm(seconds: 1.5)
    }

    /// glibc's `malloc_trim(0)`, looked up at run time (Swift's Glibc module does not export
    /// malloc.h); a no-op on a libc without it.
    public static func trimHeap() {
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }
}
