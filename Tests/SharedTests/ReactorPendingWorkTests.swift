import Foundation
import Messages
import ServiceRuntime
import Testing

/// Work a handler put off past its time slice runs once a turn, after the sockets and timers,
/// while it says it has some, and not once it has none.
@Suite("Reactor: pending work")
struct ReactorPendingWorkTests {
    @Test("pending work runs once a turn while it has work, without the poll waiting, and stops when it has none")
    func runsWhileItHasWork() {
        let shutdown = ShutdownSignal()
        // A poll that waited for its timeout would take 10 minutes a turn: the run ends only if
        // pending work keeps the poll from waiting.
        let reactor = Reactor(shutdown: shutdown, logger: Logger(service: "test", instance: "test", minimum: .error), maxWaitMilliseconds: 600_000)
        var left = 5, turns: [String] = []
        reactor.every(600, name: "idle") { turns.append("timer") }
        reactor.whilePending(name: "rest", hasWork: { left > 0 }) {
            left -= 1
            turns.append("pending")
        }
        reactor.whilePending(name: "stop", hasWork: { left == 0 }) {
            turns.append("stop")
            shutdown.request()
        }
        reactor.run()
        #expect(turns == Array(repeating: "pending", count: 5) + ["stop"])
    }
}
