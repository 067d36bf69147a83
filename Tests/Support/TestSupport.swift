import Messages
import Synchronization

// What every test target needs and none may ship: a clock in the test's hand, and the error a
// call was refused with. One copy here instead of one per test target.

/// A clock the test sets and advances by hand, for domain logic that takes a `WallClock`.
public final class ManualClock: WallClock {
    private let current: Mutex<Timestamp>

    public init(_ start: Timestamp = Timestamp(milliseconds: 1_593_103_260_000)) {
        current = Mutex(start)
    }

    public func now() -> Timestamp { current.withLock { $0 } }

    public func set(_ time: Timestamp) { current.withLock { $0 = time } }

    public func advance(seconds: Double) { current.withLock { $0 = $0.adding(seconds: seconds) } }

    public func advance(days: Double) { advance(seconds: days * 86_400) }
}

public struct MissingValue: Error {}

/// The value, or a thrown `MissingValue` that fails the test where `#require` cannot be used.
public func requireValue<T>(_ value: T?) throws -> T {
    guard let value else { throw MissingValue() }
    return value
}

/// The `ServiceError` a call is refused with, nil when it succeeds. Any other error comes back as
/// a `ServiceError` whose code is its description, so a test expecting a code sees what went wrong.
public func serviceError<T>(_ body: () throws -> T) -> ServiceError? {
    do {
        _ = try body()
        return nil
    } catch let error as ServiceError {
        return error
    } catch {
        return ServiceError(code: "\(error)", message: "not a ServiceError")
    }
}

/// The stable code of the error a call is refused with (see `serviceError`), nil when it succeeds.
public func errorCode<T>(_ body: () throws -> T) -> String? {
    serviceError(body)?.code
}
