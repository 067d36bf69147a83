/// Who holds which subscription on the bus's XPUB side in deployed mode, so the bus forwards to its
/// publishers (upstream) exactly the prefixes some allowed subscriber holds: a subscribe when the
/// first allowed holder comes, an unsubscribe when the last one leaves.
///
/// It mirrors libzmq's own record. In ZMQ_XPUB_MANUAL mode libzmq hands the bus every subscription
/// message and remembers every subscription, allowed or not, as a set of (prefix, connection)
/// (libzmq 4.3 `xpub.cpp`, `_manual_subscriptions`): a second subscribe from one connection adds
/// nothing, an unsubscribe for a prefix the connection does not hold removes nothing. A holder here
/// is one connection (the ZAP handler's session id), so the same holds. When a connection ends,
/// libzmq hands over one unsubscription per prefix it held, without saying whose (no metadata:
/// `xpipe_terminated` → `send_unsubscription`). So a release is "one holder of this prefix left":
/// the ledger takes a refused holding first. The count of allowed holdings then stays at or above
/// the truth, so upstream never lacks a prefix an allowed subscriber holds; at worst a prefix stays
/// upstream until its last holder of any kind has left.
public struct SubscriptionLedger: Sendable {
    /// What to forward to the publishers after a change.
    public enum Upstream: Equatable, Sendable {
        case subscribe
        case unsubscribe
    }

    /// Per prefix, each holder (a connection's session id) and whether its subscription was allowed.
    private var holdings: [[UInt8]: [String: Bool]] = [:]
    /// The prefixes forwarded upstream and not withdrawn.
    public private(set) var upstream: Set<[UInt8]> = []
    /// Per holder, its allowed holdings: how many and their bytes together (`SubscriptionBudget`).
    private var allowedByHolder: [String: (count: Int, bytes: Int)] = [:]

    /// Whether `holder` holds `prefix`, allowed (true) or refused (false); nil when it does not.
    public func holding(_ prefix: [UInt8], by holder: String) -> Bool? { holdings[prefix]?[holder] }

    /// How many allowed prefixes `holder` holds, and their bytes together.
    public func held(by holder: String) -> (count: Int, bytes: Int) { allowedByHolder[holder] ?? (0, 0) }

    public init() {}

    /// How many allowed holdings of `prefix` the ledger counts.
    public func allowedHoldings(of prefix: [UInt8]) -> Int { holdings[prefix]?.values.filter { $0 }.count ?? 0 }

    /// How many holdings of any kind the ledger counts, over every prefix.
    public var totalHoldings: Int { holdings.values.reduce(0) { $0 + $1.count } }

    /// A subscription message from `holder`, allowed or refused.
    public mutating func subscribed(_ prefix: [UInt8], by holder: String, allowed: Bool) -> Upstream? {
        if holdings[prefix]?[holder] != nil { remove(prefix, holder) }
        holdings[prefix, default: [:]][holder] = allowed
        if allowed { count(prefix, holder, by: 1) }
        return settle(prefix)
    }

    /// An unsubscription message `holder` sent itself: its holding goes. One the ledger does not
    /// find under it is ignored, as libzmq ignores it (or an earlier release took it already).
    public mutating func unsubscribed(_ prefix: [UInt8], by holder: String) -> Upstream? {
        guard holdings[prefix]?[holder] != nil else { return nil }
        remove(prefix, holder)
        return settle(prefix)
    }

    /// libzmq's unsubscription for a connection that ended: one holder of `prefix` left, unknown which.
    public mutating func released(_ prefix: [UInt8]) -> Upstream? {
        guard let holders = holdings[prefix] else { return nil }
        // A refused holding first (the allowed count stays at or above the truth), then an allowed one.
        if let holder = holders.first(where: { !$0.value })?.key ?? holders.first?.key { remove(prefix, holder) }
        return settle(prefix)
    }

    /// Forgets every holding (the XPUB socket was made again and every subscriber reconnects);
    /// returns the prefixes to withdraw upstream.
    public mutating func reset() -> [[UInt8]] {
        let withdrawn = upstream.sorted { $0.lexicographicallyPrecedes($1) }
        holdings = [:]
        upstream = []
        allowedByHolder = [:]
        return withdrawn
    }

    private mutating func remove(_ prefix: [UInt8], _ holder: String) {
        if holdings[prefix]?[holder] == true { count(prefix, holder, by: -1) }
        holdings[prefix]?[holder] = nil
        if holdings[prefix]?.isEmpty == true { holdings[prefix] = nil }
    }

    private mutating func count(_ prefix: [UInt8], _ holder: String, by step: Int) {
        let now = held(by: holder)
        let next = (count: now.count + step, bytes: now.bytes + step * prefix.count)
        allowedByHolder[holder] = next.count > 0 ? next : nil
    }

    /// Brings `upstream` in line with the allowed holdings of `prefix`.
    private mutating func settle(_ prefix: [UInt8]) -> Upstream? {
        let wanted = holdings[prefix]?.values.contains(true) ?? false
        if wanted && !upstream.contains(prefix) {
            upstream.insert(prefix)
            return .subscribe
        }
        if !wanted && upstream.contains(prefix) {
            upstream.remove(prefix)
            return .unsubscribe
        }
        return nil
    }
}
