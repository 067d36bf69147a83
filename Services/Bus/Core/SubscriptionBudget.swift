/// What one subscriber connection may hold on the bus and how fast it may change it, so that no
/// subscriber can make the bus and every publisher work or grow for it (issue 28).
///
/// An operator key subscribing and unsubscribing 10,000 distinct 4,000-byte prefixes stopped all
/// forwarding for 27 s and grew the bus by 200 MB: every allowed subscription is applied to the
/// XPUB socket's trie and forwarded to every publisher, whose trie keeps a node per byte (about
/// 0.1 MB per long prefix per publisher). The services hold at most a handful of short prefixes
/// each, so a budget far above that costs them nothing:
///
/// - a prefix is at most `maxPrefixBytes` (256; topics are dotted names well under 128);
/// - a connection holds at most `maxHeld` (64) prefixes, of at most `maxHeldBytes` (4 KiB) together;
/// - a connection makes at most `burst` (100) subscription changes at once, then `perSecond` (10)
///   a second (a token bucket on the caller's clock; unsubscribing is never refused).
///
/// A subscription over the budget is refused like one the role may not make: not applied, not
/// forwarded, counted by reason. Only allowed subscriptions count against what a connection holds
/// (the ledger keeps that count, so it is right however the connection's subscriptions end).
public struct SubscriptionBudget: Sendable {
    /// Why a subscription was over the budget (health key `refused.subscriptions.<reason>`).
    public enum Refusal: String, Sendable, CaseIterable {
        case prefixTooLong, tooMany, tooManyBytes, tooFast
    }

    public struct Limits: Sendable, Equatable {
        public var maxPrefixBytes = 256
        public var maxHeld = 64
        public var maxHeldBytes = 4_096
        public var burst = 100.0
        public var perSecond = 10.0

        public init() {}
    }

    private struct Account {
        var tokens: Double
        var at: Double
    }

    public let limits: Limits
    /// Per connection (its session id), its tokens. An account whose burst is back is forgotten, so
    /// the table is as large as the connections that changed subscriptions in the last seconds.
    private var accounts: [String: Account] = [:]

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// How many connections the budget is keeping an account for.
    public var accountCount: Int { accounts.count }

    /// Whether `holder`, which holds `held` allowed prefixes of `heldBytes` bytes together (the
    /// ledger's count), may subscribe to `prefix` at `now` (seconds); nil when it may. Every attempt
    /// spends a token, refused or not: churn is what it bounds.
    public mutating func subscribe(_ prefix: [UInt8], by holder: String, held: Int, heldBytes: Int, now: Double) -> Refusal? {
        var account = accounts[holder] ?? Account(tokens: limits.burst, at: now)
        account.tokens = min(limits.burst, account.tokens + max(0, now - account.at) * limits.perSecond)
        account.at = now
        defer { accounts[holder] = account }
        guard account.tokens >= 1 else { return .tooFast }
        account.tokens -= 1
        if prefix.count > limits.maxPrefixBytes { return .prefixTooLong }
        if held >= limits.maxHeld { return .tooMany }
        if heldBytes + prefix.count > limits.maxHeldBytes { return .tooManyBytes }
        return nil
    }

    /// Forgets the accounts whose burst is back (called now and then).
    public mutating func prune(now: Double) {
        accounts = accounts.filter { $0.value.tokens + max(0, now - $0.value.at) * limits.perSecond < limits.burst }
    }
}
