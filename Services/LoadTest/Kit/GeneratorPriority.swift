import Foundation

/// The priority of load-test's own threads. On a machine the platform fills, a generator at the
/// platform's priority waits for a core like any service and falls behind its schedule, and a
/// late generator adds its lag to every latency it measures (issue 31: "a load generator that
/// falls behind measures itself"). So `run` raises the calling thread before it makes any
/// thread or socket: the threads it starts later (libzmq's I/O thread among them) inherit it.
/// Linux keeps a nice value per thread; `who` 0 is the calling thread.
public struct GeneratorPriority: Codable, Sendable, Equatable {
    /// The nice value load-test started with: the raw chains and their peers run at it.
    public var started: Int
    /// The nice value asked for, and the one the threads have (nil when it could not be set).
    public var asked: Int
    public var applied: Int?

    private static let which = __priority_which_t(PRIO_PROCESS.rawValue)

    /// The calling thread's nice value.
    static func current() -> Int { Int(getpriority(which, 0)) }

    /// Sets the calling thread to `nice`; the priority it then has (nil when not permitted).
    static func raise(to nice: Int) -> GeneratorPriority {
        let started = current()
        guard nice != started else { return GeneratorPriority(started: started, asked: nice, applied: started) }
        let ok = setpriority(which, 0, Int32(nice)) == 0
        return GeneratorPriority(started: started, asked: nice, applied: ok ? current() : nil)
    }

    /// Puts the calling thread back at `nice` (lowering oneself needs no privilege).
    static func set(_ nice: Int) {
        _ = setpriority(which, 0, Int32(nice))
    }
}
