import BusCore
import Foundation
import ServiceRuntime
import ZeroMQ

/// The bus's watch over its subscribers' connections (issue 28), in both modes: libzmq's socket
/// monitor says when the XPUB side accepts a connection and when one ends, and every
/// `checkInterval` the kernel's counters of each are judged (`SubscriberLinks`). A subscriber that
/// stopped reading, or that sends more than subscriptions need, is cut: that connection alone ends,
/// libzmq gives back what it queued for it, the cut is counted and logged with its name.
///
/// libzmq does not say which connection a subscription message came from, so a connection's name is
/// the best the bus can tell: the key name (and role) of the first new session whose subscription
/// the bus reads after the connection was accepted — exact when subscribers do not connect within
/// the same instant — and its address until then (always in plain mode). The cut itself never
/// depends on the name: it is decided from the connection's own counters.
final class SubscriberWatch {
    /// How often the connections are judged: a flood is cut within about this long.
    static let checkInterval = 0.05
    /// libzmq's monitor events (zmq.h): the bus does not import the C module itself.
    static let accepted: Int32 = 0x0020, disconnected: Int32 = 0x0200

    private struct Watched {
        let link: TCPLink
        let acceptedAt: Double
        var name: String?
    }

    private let context: Context
    private let reactor: Reactor
    private let logger: Logger
    private var budget: SubscriberLinks
    private var watched: [Int32: Watched] = [:]
    private var events: Socket?
    private var generation = 0
    private(set) var cuts: [SubscriberLinks.Cut: Int] = [:]
    /// Cuts by name and reason, for health; at most `maxNames` names, the rest as "other".
    private var cutNames: [String: Int] = [:]
    static let maxNames = 32
    /// A flooder reconnects and is cut again every few tenths of a second: the first cut of a
    /// reason at once, then a summary every 10 s.
    private var cutLog = RefusalLog(first: "subscriber cut", summary: "subscribers cut")

    init(context: Context, reactor: Reactor, limits: SubscriberLinks.Limits, logger: Logger) {
        self.context = context
        self.reactor = reactor
        budget = SubscriberLinks(limits: limits)
        self.logger = logger
    }

    /// Starts watching `socket`, the XPUB side, before it binds (again each time it is made anew):
    /// its monitor's events come to a PAIR socket the reactor reads.
    func watch(_ socket: Socket) throws {
        generation += 1
        let endpoint = "inproc://bus.subscribers.\(generation)"
        try socket.monitor(endpoint, events: Self.accepted | Self.disconnected)
        let pair = try Socket(context, .pair)
        try pair.setLinger(milliseconds: 0)
        // libzmq's I/O thread sends each event blocking: a full queue here would stall every
        // connection of the bus. Unbounded instead; the reactor reads it every turn (events are small).
        try pair.setReceiveHighWaterMark(0)
        try pair.connect(endpoint)
        if let old = events {
            reactor.replaceReadable(old, with: pair)
            old.close()
        } else {
            reactor.onReadable(pair) { [unowned self] in try take() }
            reactor.every(Self.checkInterval, name: "subscriber watch") { [unowned self] in check() }
        }
        events = pair
        watched.removeAll()
        budget = SubscriberLinks(limits: budget.limits)
    }

    /// Stops watching `socket` before it is closed. libzmq's I/O thread sends each monitor event
    /// blocking, and goes on sending them (one per connection it ends) until a closed socket is
    /// gone: were our end of the monitor closed first, it would wait for a reader forever, and every
    /// connection of the bus with it. Starting a monitor of no events stops the old one (libzmq 4.3
    /// `socket_base_t::monitor`); ours is closed when the next socket is watched.
    func unwatch(_ socket: Socket) {
        generation += 1
        try? socket.monitor("inproc://bus.subscribers.\(generation).off", events: 0)
    }

    /// Reads every queued monitor event.
    private func take() throws {
        guard let events else { return }
        while let frames = try events.tryReceiveMultipart() {
            guard let event = SocketEvent(frames: frames) else { continue }
            let fd = Int32(bitPattern: event.value)
            let now = Reactor.monotonic()
            if Int32(event.event) == Self.accepted, let link = TCPLink(fd: fd) {
                watched[fd] = Watched(link: link, acceptedAt: now)
                budget.opened(Int(fd), now: now)
            } else if Int32(event.event) == Self.disconnected {
                watched[fd] = nil
                budget.closed(Int(fd))
            }
        }
    }

    /// The first subscription of a session not seen before: names the oldest unnamed connection
    /// accepted in the last 10 s.
    func newSession(named name: String) {
        let now = Reactor.monotonic()
        let candidates = watched.filter { $0.value.name == nil && now - $0.value.acceptedAt < 10 }
        guard let oldest = candidates.min(by: { $0.value.acceptedAt < $1.value.acceptedAt }) else { return }
        watched[oldest.key]?.name = name
    }

    /// Judges every connection; cuts the ones over their bounds.
    private func check() {
        let now = Reactor.monotonic()
        // A descriptor another connection took since is judged on its counters, but never cut:
        // `cut` checks the addresses first (sampling is kept cheap, every 50 ms).
        for (fd, entry) in watched {
            guard let sample = entry.link.sample() else {
                watched[fd] = nil
                budget.closed(Int(fd))
                continue
            }
            guard let cut = budget.observe(Int(fd), sample, now: now) else { continue }
            watched[fd] = nil
            guard entry.link.cut() else { continue }
            cuts[cut, default: 0] += 1
            let name = entry.name ?? entry.link.peer
            let key = cut.rawValue + "." + name
            cutNames[cutNames[key] != nil || cutNames.count < Self.maxNames ? key : cut.rawValue + ".other", default: 0] += 1
            let metadata = ["subscriber": name, "address": entry.link.peer, "queuedBytes": "\(sample.queuedBytes)", "receivedBytes": "\(sample.receivedBytes)"]
            for line in cutLog.refused(cut.rawValue, who: name, metadata, now: now) { logger.warning(line.message, line.metadata) }
        }
        for line in cutLog.due(now: now) { logger.warning(line.message, line.metadata) }
    }

    /// Health keys: `subscribers.watched`, `subscribers.cut.<reason>` and `subscribers.cut.<reason>.<name>`.
    var healthDetails: [String: String] {
        var details = ["subscribers.watched": "\(watched.count)"]
        for cut in SubscriberLinks.Cut.allCases { details["subscribers.cut.\(cut.rawValue)"] = "\(cuts[cut] ?? 0)" }
        for (key, count) in cutNames { details["subscribers.cut.\(key)"] = "\(count)" }
        return details
    }

    func close() {
        events?.close()
        events = nil
    }
}
