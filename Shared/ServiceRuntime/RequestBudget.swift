import Messages
import Policy

/// How many requests each principal may make of one service: a token bucket per principal, sized
/// by role, on the caller's clock (issue 28: one phone key sent 20,000 `menu.get` in 10.6 s, each
/// asking region-monitor for the nearest café, and all were answered).
///
/// A phone, kiosk or kitchen tablet is one person's device; an app polling once a second and
/// reporting a batch a second is far inside its budget. An operator's tools are people too. Services,
/// gateways (each forwards many phones' sightings) and the HTTP edge are not limited as
/// themselves: the edge's requests run as the principal it acts for, whose bucket they spend, and
/// the edge keeps its own per-token limits. The plain-mode developer is not limited.
public struct RequestBudget: Sendable {
    /// A role's bucket: `burst` requests at once, then `perSecond`.
    public struct Rate: Sendable, Equatable {
        public var perSecond: Double
        public var burst: Double

        public init(perSecond: Double, burst: Double) {
            self.perSecond = perSecond
            self.burst = burst
        }
    }

    /// The default rate of each limited role (PROTOCOL.md section 7).
    public static let defaultRates: [Role: Rate] = [
        .phone: Rate(perSecond: 10, burst: 30),
        .kiosk: Rate(perSecond: 10, burst: 30),
        .kitchen: Rate(perSecond: 20, burst: 60),
        .operator: Rate(perSecond: 50, burst: 200),
    ]

    /// At most this many principals are kept; beyond it the accounts whose burst is back go first.
    public static let maxAccounts = 65_536

    private struct Account {
        var tokens: Double
        var at: Double
    }

    public let rates: [Role: Rate]
    private var accounts: [String: Account] = [:]

    public init(rates: [Role: Rate] = RequestBudget.defaultRates) {
        self.rates = rates
    }

    /// How many principals the budget keeps an account for.
    public var accountCount: Int { accounts.count }

    /// Spends one request of `caller` at `now` (seconds); nil when it may go on, else the
    /// milliseconds until it may try again.
    public mutating func spend(_ caller: Caller, now: Double) -> Int? {
        guard let role = caller.role, let rate = rates[role] else { return nil }
        // The key is the role and name: an acting principal is named by the edge's session.
        let key = role.rawValue + "\u{1}" + caller.name
        var account = accounts[key] ?? Account(tokens: rate.burst, at: now)
        account.tokens = min(rate.burst, account.tokens + max(0, now - account.at) * rate.perSecond)
        account.at = now
        if account.tokens >= 1 {
            account.tokens -= 1
            if accounts[key] == nil, accounts.count >= Self.maxAccounts { prune(now: now) }
            accounts[key] = account
            return nil
        }
        accounts[key] = account
        return max(1, Int(((1 - account.tokens) / rate.perSecond * 1_000).rounded(.up)))
    }

    /// Forgets the accounts whose burst is back: they would start full anyway.
    public mutating func prune(now: Double) {
        accounts = accounts.filter { key, account in
            let role = Role(rawValue: String(key.prefix { $0 != "\u{1}" }))
            guard let rate = role.flatMap({ rates[$0] }) else { return false }
            return account.tokens + max(0, now - account.at) * rate.perSecond < rate.burst
        }
    }
}
