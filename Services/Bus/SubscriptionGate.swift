import BusCore
import Foundation
import Messages
import Policy
import ServiceRuntime
import ZeroMQ

/// The bus's XPUB side in deployed mode (ZMQ_XPUB_MANUAL): every subscription message comes here
/// with its connection's principal, and only what `BusAccess.maySubscribe` allows is applied
/// (`subscribe(bytes:)` binds it to that connection) and forwarded to the publishers. The ledger
/// keeps upstream right with several subscribers to one prefix.
///
/// Two libzmq 4.3 behaviours make the bus rebuild the XPUB socket (close it and bind a new one;
/// every subscriber reconnects and subscribes again), because after them it cannot tell which
/// connection a subscription message came from:
/// - a message that is no subscription (an XSUB peer can send one) is queued without its
///   connection, so the connections paired with the subscription messages after it, up to the
///   end of the queue, are off by one (`xpub.cpp`: `_pending_pipes` is pushed only for
///   subscriptions but popped on every receive). Nothing read in that stretch is applied.
/// - before 4.3.5, a subscription applied for a connection that had already ended puts the ended
///   connection back into the subscription trie, where sending would use freed memory (fixed
///   upstream by zeromq/libzmq#4137). Such a subscription is followed, in the same queue, by
///   libzmq's unsubscription for the ended connection, so seeing both in one pass is the signal.
final class SubscriptionGate {
    private(set) var backend: Socket
    private let frontend: Socket
    private let sockets: BusSockets
    private let endpoint: String
    private let reactor: Reactor
    private let logger: Logger
    private var ledger = SubscriptionLedger()
    private var budget: SubscriptionBudget
    /// What the pass over the queue under way has seen (a pass ends when the queue is found empty
    /// and may span several turns: `drain` reads a bounded number of messages a call).
    private var pass = Pass()
    /// The highest session number seen: a higher one is a connection's first subscription.
    private var lastSession = 0
    /// Told the key name (and role) of each new session's first subscription (`SubscriberWatch`).
    private let onNewSession: (String) -> Void
    private var overBudget: [SubscriptionBudget.Refusal: Int] = [:]
    private var refusalLog = RefusalLog(first: "subscription over budget", summary: "subscriptions over budget")
    /// Whether this libzmq still lets a subscription be applied to an ended connection (< 4.3.5).
    private let appliesToEndedConnections: Bool
    private(set) var changes = 0
    private(set) var refused: [Role?: Int] = [:]
    private(set) var rebuilds: [Cause: Int] = [:]

    /// Why every subscriber was cut: a key left the registry, or messages could not be paired with connections.
    enum Cause: String {
        case revoked, unpaired
    }

    private struct Pass {
        var applied: Set<[UInt8]> = []
        var unpaired = false
        var rebuildReason: String?
    }

    /// Subscription messages one `drain` call reads at most, so forwarding interleaves with a flood of them.
    static let perTurn = 256

    init(backend: Socket, frontend: Socket, sockets: BusSockets, endpoint: String, reactor: Reactor, limits: SubscriptionBudget.Limits,
         logger: Logger, onNewSession: @escaping (String) -> Void = { _ in }) {
        budget = SubscriptionBudget(limits: limits)
        self.onNewSession = onNewSession
        self.backend = backend
        self.frontend = frontend
        self.sockets = sockets
        self.endpoint = endpoint
        self.reactor = reactor
        self.logger = logger
        let v = Context.version
        appliesToEndedConnections = (v.major, v.minor, v.patch) < (4, 3, 5)
    }

    /// Reads queued subscription messages, at most `limit` of them a call, so the forwarding waits
    /// on no more than that. A pass ends when the queue is found empty; then the socket is rebuilt
    /// if the pass showed it can no longer pair messages with connections.
    func drain(limit: Int = SubscriptionGate.perTurn) throws {
        for _ in 0..<limit {
            guard let message = try backend.tryReceivePeerMessage() else {
                let ended = pass
                pass = Pass()
                if let reason = ended.rebuildReason { try rebuild(.unpaired, reason: reason) }
                return
            }
            try take(message)
        }
    }

    /// One subscription message of the pass under way.
    private func take(_ message: PeerMessage) throws {
        changes += 1
        guard message.frames.count == 1, let kind = message.frames[0].first, kind <= 1 else {
            pass.unpaired = true
            pass.rebuildReason = pass.rebuildReason ?? "a message that is no subscription, from \(message.userId ?? "an unknown connection")"
            return
        }
        // Nothing read after such a message is paired with its own connection until the queue is empty.
        if pass.unpaired { return }
        let prefix = Array(message.frames[0].dropFirst())
        guard message.userId != nil else {
            // libzmq's unsubscription for a connection that ended (it carries no metadata).
            if appliesToEndedConnections && pass.applied.contains(prefix) {
                pass.rebuildReason = pass.rebuildReason ?? "a subscription to \(Quoting.quoted(String(decoding: prefix, as: UTF8.self))) from a connection that ended before it was read"
            }
            try forward(ledger.released(prefix), prefix)
            return
        }
        let holder = message.session ?? ""
        let principal = sockets.security.caller(userId: message.userId, key: message.publicKey)?.principal
        if let session = Int(holder), session > lastSession {
            lastSession = session
            onNewSession((message.userId ?? "") + (principal.map { " (\($0.role.rawValue))" } ?? ""))
        }
        guard kind == 1 else {
            // Always safe: it removes only this connection's own subscription, if it has one.
            try backend.unsubscribe(bytes: prefix)
            try forward(ledger.unsubscribed(prefix, by: holder), prefix)
            return
        }
        var allowed = principal.map { BusAccess.maySubscribe($0, to: prefix) } ?? false
        if allowed || prefix.count > budget.limits.maxPrefixBytes, ledger.holding(prefix, by: holder) != true {
            let held = ledger.held(by: holder)
            if let refusal = budget.subscribe(prefix, by: holder, held: held.count, heldBytes: held.bytes, now: Reactor.monotonic()) {
                overBudget[refusal, default: 0] += 1
                logOverBudget(refusal, principal: message.userId ?? "", prefix: prefix)
                // No one may hold a prefix that long, so no release of it can concern an
                // allowed holder: it is not recorded (the ledger stays small under a flood of them).
                if refusal == .prefixTooLong { return }
                allowed = false
            }
        }
        if allowed {
            try backend.subscribe(bytes: prefix)
            pass.applied.insert(prefix)
        } else {
            refused[principal?.role, default: 0] += 1
            logger.debug("subscription refused", ["principal": message.userId ?? "", "prefix": Quoting.cut(String(decoding: prefix, as: UTF8.self))])
        }
        try forward(ledger.subscribed(prefix, by: holder, allowed: allowed), prefix)
    }

    /// The first subscription over budget of a reason at once, then a summary every 10 s.
    private func logOverBudget(_ refusal: SubscriptionBudget.Refusal, principal: String, prefix: [UInt8]) {
        let metadata = ["principal": principal, "prefix": Quoting.cut(String(decoding: prefix.prefix(128), as: UTF8.self))]
        for line in refusalLog.refused(refusal.rawValue, who: principal, metadata, now: Reactor.monotonic()) { logger.warning(line.message, line.metadata) }
    }

    /// Writes the over-budget summaries whose window ended and forgets idle budget accounts (each second).
    func tick() {
        let now = Reactor.monotonic()
        for line in refusalLog.due(now: now) { logger.warning(line.message, line.metadata) }
        budget.prune(now: now)
    }

    /// Tells the publishers (through the XSUB side) to start or stop sending `prefix`.
    private func forward(_ change: SubscriptionLedger.Upstream?, _ prefix: [UInt8]) throws {
        guard let change else { return }
        try frontend.send([change == .subscribe ? 1 : 0] + prefix)
    }

    /// Cuts every subscriber's connection: the XPUB socket is closed and made again, and every
    /// subscriber reconnects, handshakes (a revoked key is refused there) and subscribes anew.
    func rebuild(_ cause: Cause, reason: String) throws {
        rebuilds[cause, default: 0] += 1
        pass = Pass()
        logger.warning("subscriber connections cut; the XPUB side listens again", ["reason": reason])
        let bound = (try? backend.lastEndpoint).flatMap { $0.isEmpty ? nil : $0 } ?? endpoint
        try backend.setLinger(milliseconds: 0)
        let old = backend
        sockets.watch?.unwatch(old)
        old.close()
        for prefix in ledger.reset() { try frontend.send([0] + prefix) }
        let fresh = try sockets.backend(bound)
        reactor.replaceReadable(old, with: fresh)
        backend = fresh
    }

    /// Health keys: subscription messages seen, refusals by role, prefixes held upstream, rebuilds.
    var healthDetails: [String: String] {
        var details = ["subscriptionChanges": "\(changes)", "refused.subscriptions": "\(refused.values.reduce(0, +))",
                       "subscriptions.upstream": "\(ledger.upstream.count)", "subscriptions.held": "\(ledger.totalHoldings)"]
        for (role, count) in refused { details["refused.subscriptions.\(role?.rawValue ?? "unknownKey")"] = "\(count)" }
        for (cause, count) in rebuilds { details["subscribers.cut.\(cause.rawValue)"] = "\(count)" }
        for refusal in SubscriptionBudget.Refusal.allCases { details["refused.subscriptions.\(refusal.rawValue)"] = "\(overBudget[refusal] ?? 0)" }
        return details
    }
}
