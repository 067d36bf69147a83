import Foundation
import Testing
import ZeroMQ

@Suite("Poller")
struct PollerTests {
    @Test("nothing ready: poll waits about the timeout and returns no index")
    func timeout() throws {
        let context = try Context()
        let pull = try Socket(context, .pull)
        defer { pull.close() }
        try pull.bind(uniqueInproc())
        var poller = Poller()
        poller.register(pull)
        let started = Date()
        #expect(try poller.poll(timeoutMilliseconds: 40) == [])
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed >= 0.03 && elapsed < 1.0, "waited \(elapsed) s")
        #expect(try poller.poll(timeoutMilliseconds: 0) == [])
    }

    @Test("poll returns exactly the indices of the readable sockets")
    func readableIndices() throws {
        let context = try Context()
        var pulls: [Socket] = []
        var pushes: [Socket] = []
        defer {
            pushes.forEach { $0.close() }
            pulls.forEach { $0.close() }
        }
        var poller = Poller()
        for index in 0..<3 {
            let pull = try Socket(context, .pull)
            pulls.append(pull)
            let endpoint = uniqueInproc("readable\(index)")
            try pull.bind(endpoint)
            #expect(poller.register(pull) == index)
            let push = try Socket(context, .push)
            pushes.append(push)
            try push.connect(endpoint)
        }

        try pushes[2].send("two")
        try pushes[0].send("zero")
        #expect(try poller.poll(timeoutMilliseconds: 1_000) == [0, 2])
        #expect(try pulls[0].tryReceiveMultipart() == [frame("zero")])
        #expect(try poller.poll(timeoutMilliseconds: 1_000) == [2])
        #expect(try pulls[2].tryReceiveMultipart() == [frame("two")])
        #expect(try poller.poll(timeoutMilliseconds: 0) == [])
    }

    @Test("a PUSH socket is writable once it has a peer, not before")
    func writable() throws {
        let context = try Context()
        let push = try Socket(context, .push)
        defer { push.close() }
        try push.bind(uniqueInproc())
        #expect(try Poller.wait(for: push, events: .writable, timeoutMilliseconds: 20) == false)

        let pull = try Socket(context, .pull)
        defer { pull.close() }
        try pull.connect(try push.lastEndpoint)
        #expect(try Poller.wait(for: push, events: .writable, timeoutMilliseconds: 1_000))
    }

    @Test("Poller.wait wakes as soon as a message arrives")
    func waitWakes() throws {
        let context = try Context()
        let pull = try Socket(context, .pull)
        defer { pull.close() }
        let endpoint = uniqueInproc()
        try pull.bind(endpoint)
        let push = try Socket(context, .push)
        defer { push.close() }
        try push.connect(endpoint)
        try push.send("now")
        let started = Date()
        #expect(try Poller.wait(for: pull, events: [.readable], timeoutMilliseconds: 5_000))
        #expect(Date().timeIntervalSince(started) < 1.0)
    }

    @Test("polling a closed socket is an error, not a hang")
    func closedSocket() throws {
        let context = try Context()
        let pull = try Socket(context, .pull)
        var poller = Poller()
        poller.register(pull)
        pull.close()
        let error = #expect(throws: ZeroMQError.self) { try poller.poll(timeoutMilliseconds: 10) }
        #expect(error?.errno == ENOTSOCK)
    }

    @Test("a wake timer beside a socket: its index when it fires, nothing once cleared, rearmed it fires again")
    func wakeTimer() throws {
        let context = try Context()
        let pull = try Socket(context, .pull)
        defer { pull.close() }
        let endpoint = uniqueInproc("wake")
        try pull.bind(endpoint)
        let timer = try WakeTimer()
        var poller = Poller()
        #expect(poller.register(pull) == 0)
        #expect(poller.register(fileDescriptor: timer.fileDescriptor) == 1)
        // Not armed: nothing is ready.
        #expect(try poller.poll(timeoutMilliseconds: 0) == [])
        // A moment between two milliseconds, well inside a long timeout: the timer's index comes back.
        timer.arm(atMonotonic: monotonicNow() + 0.0015)
        #expect(try poller.poll(timeoutMilliseconds: 5_000) == [1])
        // Until cleared it stays readable; cleared, it is quiet.
        #expect(try poller.poll(timeoutMilliseconds: 0) == [1])
        timer.clear()
        #expect(try poller.poll(timeoutMilliseconds: 0) == [])
        // A moment already past fires at once; arming again replaces the moment.
        timer.arm(atMonotonic: monotonicNow() + 3_600)
        timer.arm(atMonotonic: monotonicNow() - 1)
        #expect(try poller.poll(timeoutMilliseconds: 5_000) == [1])
        timer.clear()
        // A socket and the timer are told apart.
        let push = try Socket(context, .push)
        defer { push.close() }
        try push.connect(endpoint)
        try push.send("hello")
        #expect(try poller.poll(timeoutMilliseconds: 5_000) == [0])
    }

    private func monotonicNow() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
