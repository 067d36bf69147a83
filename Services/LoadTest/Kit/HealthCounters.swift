import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// One counter services report in health (`published.bestEffort`, `sightings.consumed`), summed
/// over their instances and carried across restarts. A restarted service counts from 0 again: a
/// value lower than the last one read, or a start time (now − `uptimeSeconds`) that moved, means
/// a new start, and what the old process had counted when last read is kept. What it counted
/// between that read and its death is not known; reading often keeps that small.
struct RestartingCounter {
    private struct Instance {
        var carried = 0
        var last: Int?
        var startedAt: Double?
        var restarts = 0
    }

    /// What the run calls it (the health key, unless two counters read the same key from different services).
    let name: String
    let key: String
    private var instances: [String: Instance]

    init(name: String? = nil, key: String, endpoints: [String]) {
        self.name = name ?? key
        self.key = key
        instances = Dictionary(uniqueKeysWithValues: endpoints.map { ($0, Instance()) })
    }

    /// A health reply's value of `key` from `endpoint`, `uptime` seconds after it started, read at
    /// `now` (seconds on any monotonic clock).
    mutating func observe(endpoint: String, value: Int, uptime: Double, now: Double) {
        guard var instance = instances[endpoint] else { return }
        let startedAt = now - uptime
        if let last = instance.last, value < last || abs(startedAt - (instance.startedAt ?? startedAt)) > 1 {
            instance.carried += last
            instance.restarts += 1
        }
        instance.last = value
        instance.startedAt = startedAt
        instances[endpoint] = instance
    }

    /// Everything counted since each instance was first read, across restarts; nil until every instance was read.
    var total: Int? {
        var sum = 0
        for instance in instances.values {
            guard let last = instance.last else { return nil }
            sum += instance.carried + last
        }
        return sum
    }

    /// Restarts seen, over every instance.
    var restarts: Int { instances.values.reduce(0) { $0 + $1.restarts } }
}

/// Reads services' health often, without blocking the run: one DEALER per endpoint, a request
/// every `interval` seconds while none is outstanding (one unanswered for a second, as when the
/// service was killed, is dropped and asked again), the replies fed to the counters. The run's
/// poll covers `sockets`. Times are `Reactor.monotonic()`, read here, so a start time computed
/// from one reply compares with the next.
final class HealthSampler {
    private struct Target {
        let client: PipelinedClient<Void>
        /// Which counters this endpoint's replies feed.
        let counters: [Int]
        /// Whether `readAll` waits for this endpoint (false: only figures beside the run depend on it).
        let required: Bool
        var nextDue = 0.0
    }

    private(set) var counters: [RestartingCounter]
    private var targets: [Target] = []
    let interval: Double

    /// One counter to read: its name in the run, the health key, the endpoints reporting it and
    /// their server's usual name.
    struct Watch {
        var name: String
        var key: String
        var endpoints: [String]
        var server: String
        /// Whether the run waits for it (loss counters) or takes it when it answers (CPU figures).
        var required: Bool

        init(_ key: String, as name: String? = nil, _ endpoints: [String], server: String, required: Bool = true) {
            self.name = name ?? key
            self.key = key
            self.endpoints = endpoints
            self.server = server
            self.required = required
        }
    }

    /// `watch`: the counters; the requests go as `security`'s observer.
    init(context: Context, security: LoadSecurity, watch: [Watch], interval: Double = 0.25) throws {
        self.interval = interval
        counters = watch.map { RestartingCounter(name: $0.name, key: $0.key, endpoints: $0.endpoints) }
        var byEndpoint: [String: [Int]] = [:]
        var required: Set<String> = []
        var order: [(endpoint: String, server: String)] = []
        for (index, entry) in watch.enumerated() {
            for endpoint in entry.endpoints {
                if byEndpoint[endpoint] == nil { order.append((endpoint, entry.server)) }
                byEndpoint[endpoint, default: []].append(index)
                if entry.required { required.insert(endpoint) }
            }
        }
        for (endpoint, server) in order {
            targets.append(Target(client: try security.pipelined("health \(endpoint)", context: context, peer: endpoint, defaultServer: server, as: nil),
                                  counters: byEndpoint[endpoint]!, required: required.contains(endpoint)))
        }
    }

    var sockets: [Socket] { targets.map(\.client.socket) }

    /// The counter named `name`.
    func counter(_ name: String) -> RestartingCounter? { counters.first { $0.name == name } }

    /// Asks every endpoint that is due and has nothing outstanding.
    func askDue() throws {
        let now = Reactor.monotonic()
        for i in targets.indices {
            _ = targets[i].client.expire(now: now, timeout: 1)
            guard targets[i].client.pendingCount == 0, now >= targets[i].nextDue else { continue }
            try targets[i].client.send(Wire.encode(Request(op: Op.health, body: Empty())), context: (), now: now)
            targets[i].nextDue = now + interval
        }
    }

    /// The earliest time (`Reactor.monotonic()`) `askDue` has something to send.
    var nextDue: Double? { targets.filter { $0.client.pendingCount == 0 }.map(\.nextDue).min() }

    /// Takes the replies waiting on the `index`-th socket of `sockets`.
    func receive(_ index: Int) throws {
        let now = Reactor.monotonic()
        let target = targets[index]
        try target.client.receive(now: now) { _, reply, _ in
            guard let status = try? Wire.decodeReply(reply, body: HealthStatus.self).get() else { return }
            for c in target.counters {
                if let value = status.details[counters[c].key].flatMap({ Int($0) }) {
                    counters[c].observe(endpoint: target.client.endpoint, value: value, uptime: status.uptimeSeconds, now: now)
                }
            }
        }
    }

    /// Reads every endpoint once now, waiting up to `timeout` seconds (before and after the run,
    /// when blocking is fine) for the required ones, and up to `optionalGrace` longer for the others.
    /// Returns whether every required one answered.
    @discardableResult
    func readAll(timeout: Double) throws -> Bool {
        let start = Reactor.monotonic()
        for i in targets.indices { targets[i].nextDue = 0 }
        var answered = Set<Int>()
        var poller = Poller()
        for socket in sockets { poller.register(socket) }
        let required = Set(targets.indices.filter { targets[$0].required })
        // The optional ones get up to `optionalGrace` more once the required have answered: on a
        // busy machine the bus's answer came a moment after the others, and the run's CPU
        // figures (which need it) read "not measured".
        var requiredAnsweredAt: Double?
        while answered.count < targets.count {
            let now = Reactor.monotonic()
            if required.isSubset(of: answered) {
                if requiredAnsweredAt == nil { requiredAnsweredAt = now }
                if let at = requiredAnsweredAt, now - at >= HealthSampler.optionalGrace { break }
            }
            guard now - start < timeout else { return required.isSubset(of: answered) }
            for i in targets.indices where !answered.contains(i) && targets[i].client.pendingCount == 0 {
                try targets[i].client.send(Wire.encode(Request(op: Op.health, body: Empty())), context: (), now: now)
            }
            for index in try poller.poll(timeoutMilliseconds: 100) {
                let before = targets[index].client.pendingCount
                try receive(index)
                if targets[index].client.pendingCount < before { answered.insert(index) }
            }
            for i in targets.indices { _ = targets[i].client.expire(now: Reactor.monotonic(), timeout: 1) }
        }
        return true
    }

    func close() { targets.forEach { $0.client.close() } }

    /// How long `readAll` still waits for optional endpoints after the required ones answered.
    static let optionalGrace = 0.5
}
