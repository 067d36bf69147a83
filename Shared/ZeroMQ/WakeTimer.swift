import CZeroMQ
import Glibc

/// A timer a `Poller` waits on beside its sockets (Linux's timerfd): `zmq_poll` counts its timeout
/// in whole milliseconds, so a loop that must act at a moment between two of them (a load
/// generator's next send) would wake up to a millisecond late, every time. Armed, it makes the
/// poll return at that moment to within the kernel's timer slack (about 50 µs).
public final class WakeTimer {
    /// The file descriptor to register with `Poller.register(fileDescriptor:)`.
    public let fileDescriptor: Int32

    public init() throws(ZeroMQError) {
        let fd = cafe_wake_timer_create()
        guard fd >= 0 else { throw ZeroMQError(errno: errno, operation: "timerfd_create") }
        fileDescriptor = fd
    }

    /// Fires once at `seconds` on the monotonic clock (`CLOCK_MONOTONIC`, as `Reactor.monotonic()`
    /// reads it); a moment already past fires at once. Arming again replaces the moment.
    public func arm(atMonotonic seconds: Double) {
        let whole = seconds.rounded(.down)
        let nanoseconds = min(999_999_999, max(0, Int((seconds - whole) * 1e9)))
        _ = cafe_wake_timer_arm(fileDescriptor, Int64(whole), nanoseconds)
    }

    /// Takes the expiration, after the poll reported it: the descriptor stops being readable.
    public func clear() {
        cafe_wake_timer_clear(fileDescriptor)
    }

    deinit {
        close(fileDescriptor)
    }
}
