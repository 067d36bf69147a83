import Foundation
import Messages
@testable import RegionMonitorServer
import ServiceRuntime
import Testing
import TestSupport

/// The circle rules of issue 25 as the bus carries them: an approximate fix among fresh precise
/// ones announces nothing, `unknown` keeps the hysteresis of the state last announced, and a
/// fix claiming `precise` under an approximate-only grant satisfies none of the café's circles.
@Suite(.serialized)
struct RegionCircleEventTests {
    /// The coffee station's 60 m area is centred 40 m north of Caffè Macs' center.
    static let coffee = 40.0

    /// The states announced on the bus for one of the device's conditions, in order.
    static func states(_ h: RegionHarness, _ deviceId: String, _ identifier: String) throws -> [ConditionState] {
        try h.regionEvents().filter { $0.deviceId == deviceId && $0.identifier == identifier }.map(\.state)
    }

    @Test("on the bus: a phone 30 m inside the coffee station's area goes unknown only once its precise fix is stale, and never unsatisfied inside radius + hysteresis, across a restart too")
    func circleEventsFollowTheDecidedState() throws {
        let h = try RegionHarness()
        try h.status("phone-1", .whenInUse)
        try h.fix("phone-1", metersNorth: Self.coffee + 30, accuracy: 5)
        #expect(try Self.states(h, "phone-1", "macs-coffee.area") == [.satisfied])
        let announced = try h.announced().count

        // An approximate fix a second later, and a precise one 65 m out (inside 60 m + 20 m): nothing.
        h.clock.advance(seconds: 1)
        try h.fix("phone-1", metersNorth: Self.coffee + 30, accuracy: 1_500, precise: false)
        h.clock.advance(seconds: 1)
        try h.fix("phone-1", metersNorth: Self.coffee + 70, accuracy: 5)
        #expect(try h.announced().count == announced, "nothing the consumers did not know already")

        // Only approximate fixes for over 120 s: the circles it cannot decide become unknown.
        h.clock.advance(seconds: 121)
        try h.fix("phone-1", metersNorth: Self.coffee + 30, accuracy: 1_500, precise: false)
        #expect(try Self.states(h, "phone-1", "macs-coffee.area") == [.satisfied, .unknown])
        #expect(try h.regionEvents().last?.flags == [.accuracyLimited])

        // A restart keeps the state last decided (stored with the record). Precise again, 65 m out:
        // still inside the hysteresis of the satisfied state, so unknown stays; back in: satisfied.
        try h.restart()
        h.clock.advance(seconds: 1)
        try h.fix("phone-1", metersNorth: Self.coffee + 70, accuracy: 5)
        #expect(try h.record("phone-1", "macs-coffee.area")?.state == .unknown)
        h.clock.advance(seconds: 1)
        try h.fix("phone-1", metersNorth: Self.coffee + 30, accuracy: 5)
        #expect(try Self.states(h, "phone-1", "macs-coffee.area") == [.satisfied, .unknown, .satisfied])
        #expect(try h.record("phone-1", "macs-coffee.area")?.state == .satisfied)
    }

    @Test("on the bus: a fix claiming precise from an approximate-only phone satisfies none of Caffè Macs' circles: unknown, accuracyLimited")
    func approximateGrantOverridesTheFix() throws {
        let h = try RegionHarness()
        try h.status("phone-2", .whenInUse, precise: false)
        try h.fix("phone-2", metersNorth: Self.coffee, accuracy: 5, precise: true)
        let events = try h.regionEvents().filter { $0.deviceId == "phone-2" && ($0.identifier.hasPrefix("macs-coffee.") || $0.identifier.hasPrefix("caffe-macs.")) }
        #expect(!events.isEmpty)
        #expect(events.allSatisfy { $0.state == .unknown && $0.flags == [.accuracyLimited] })
        #expect(try h.confirm("phone-2", acquiredAt: h.clock.now()).result == .disallowed)
    }
}
