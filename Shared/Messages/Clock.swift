import Foundation

/// Where domain logic gets "now": the system clock in services, a settable one in tests.
public protocol WallClock: Sendable {
    func now() -> Timestamp
}

/// The real time.
public struct SystemClock: WallClock {
    public init() {}
    public func now() -> Timestamp { Timestamp(Date()) }
}
