import Foundation
import Messages
@testable import RegionMonitorServer
import Testing

/// The timer between its ticks: whatever is due is taken in passes of at most
/// `RegionService.devicesPerTick` devices, as many passes as the turn's budget allows.
@Suite(.serialized)
struct RegionTimerPassTests {
    /// Nearest answers announced cleared (no beacon) so far.
    static func cleared(_ h: RegionHarness) throws -> Int {
        try h.announced().filter { if case .nearest(let answer) = $0.body { answer.beacon == nil } else { false } }.count
    }

    @Test("answers falling due between ticks are cleared in passes while the budget lasts, one pass when it is spent, none when nothing is due")
    func passesWhileDue() throws {
        let h = try RegionHarness()
        let devices = 3 * RegionService.devicesPerTick + 5
        for n in 0..<devices { try h.sighting("phone-\(n)") }
        #expect(try Self.cleared(h) == 0)
        // Nothing due yet: no pass writes anything.
        let before = try h.announced().count
        try h.service.tickWhileDue(budgetSeconds: 60)
        #expect(try h.announced().count == before)
        // Past the nearest freshness (10 s) every answer is due.
        h.clock.advance(seconds: 11)
        try h.service.tickWhileDue(budgetSeconds: 0)
        #expect(try Self.cleared(h) == RegionService.devicesPerTick, "a spent budget still makes one pass")
        try h.service.tickWhileDue(budgetSeconds: 60)
        #expect(try Self.cleared(h) == devices, "the rest in further passes of the same turn")
        #expect(!h.service.engine.isBehind(now: h.clock.now()))
    }
}
