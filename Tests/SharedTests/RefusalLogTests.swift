@testable import ServiceRuntime
import Testing

/// Refused handshakes in the log: the first of each reason at once, the rest of 10 s as one summary.
struct RefusalLogTests {
    @Test("a flood of distinct keys writes the first refusal and one summary a window per reason, whatever their number")
    func flood() {
        var log = RefusalLog()
        var lines: [RefusalLog.Line] = []
        // 16,000 distinct unknown keys in 2 s, and a plain client retrying.
        for i in 0..<16_000 {
            lines += log.refused("unknown key", who: "key-\(i)", ["key": "key-\(i)"], now: Double(i) / 8_000)
            if i % 100 == 0 { lines += log.refused("not CURVE", who: "10.0.0.9", ["peer.address": "10.0.0.9"], now: Double(i) / 8_000) }
        }
        #expect(lines.map(\.message) == ["handshake refused", "handshake refused"])
        #expect(lines[0].metadata == ["key": "key-0", "reason": "unknown key"])
        #expect(lines[1].metadata["reason"] == "not CURVE")
        // Nothing until the window ends; then one summary per reason.
        #expect(log.due(now: 9.9).isEmpty)
        let summaries = log.due(now: 10)
        #expect(summaries.count == 2)
        let unknown = summaries.first { $0.metadata["reason"] == "unknown key" }
        #expect(unknown?.message == "handshakes refused")
        #expect(unknown?.metadata["refused"] == "15999" && unknown?.metadata["distinct"] == "≥1024")
        #expect(unknown?.metadata["samples"] == "key-1,key-2,key-3" && unknown?.metadata["seconds"] == "10")
        let plain = summaries.first { $0.metadata["reason"] == "not CURVE" }
        #expect(plain?.metadata["refused"] == "159" && plain?.metadata["distinct"] == "1" && plain?.metadata["samples"] == "10.0.0.9")
    }

    @Test("a flood that goes on writes one summary a window; a quiet window closes and the next refusal is logged at once")
    func windows() {
        var log = RefusalLog()
        #expect(log.refused("unknown key", who: "a", [:], now: 0).count == 1)
        #expect(log.refused("unknown key", who: "b", [:], now: 5).isEmpty)
        // The window ends at 10 s: the next refusal brings its summary, and is itself counted.
        let next = log.refused("unknown key", who: "c", [:], now: 12)
        #expect(next.map(\.message) == ["handshakes refused"] && next[0].metadata["refused"] == "1")
        #expect(log.due(now: 22).map { $0.metadata["refused"] } == ["1"])
        // A window without refusals closes without a line; the next one is logged at once.
        #expect(log.due(now: 40).isEmpty)
        let fresh = log.refused("unknown key", who: "d", ["key": "d"], now: 41)
        #expect(fresh.map(\.message) == ["handshake refused"] && fresh[0].metadata["key"] == "d")
    }
}
