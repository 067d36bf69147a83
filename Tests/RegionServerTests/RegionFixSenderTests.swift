import Foundation
import Messages
import Policy
@testable import RegionMonitorServer
import Testing
import TestSupport

/// The fix channel applies fixes from beacon-ingest alone, by the sender its connection proved
/// (deployed mode). Here the channel is handed each message with its sender, as `drain` does
/// after reading the connection's User-Id and key; the CURVE socket itself is exercised by the
/// integration tests.
@Suite(.serialized)
struct RegionFixSenderTests {
    /// A `location.fix` placing `deviceId` at Caffè Macs, as the channel's frames carry it. Its
    /// envelope says it comes from beacon-ingest: what a forger would write.
    static func forgedFrames(_ deviceId: String, at time: Timestamp) -> [Data] {
        let fix = LocationFix(deviceId: deviceId, latitude: RegionHarness.macs.latitude, longitude: RegionHarness.macs.longitude,
                              horizontalAccuracy: 5, precise: true, observedAt: time)
        let envelope = Envelope(type: .locationFix, source: "beacon-ingest", stream: "location", seq: 0, time: time, body: .locationFix(fix))
        return [Data("location.s0.".utf8), Wire.encode(envelope)]
    }

    @Test("a fix from anyone but beacon-ingest is not applied: dropped, counted as fixes.forbidden and dead-lettered")
    func onlyBeaconIngestPushesFixes() throws {
        let h = try RegionHarness()
        // The phone is 2 km away: the App Clip check at Caffè Macs answers no.
        try h.fix("phone-tokyo", metersNorth: 2_000)
        func answer() throws -> LocationConfirmation.Result { try h.confirm("phone-tokyo", acquiredAt: h.clock.now()).result }
        #expect(try answer() == .no)
        // Moments later, fixes claiming it is at Caffè Macs: each would be the freshest.
        h.clock.advance(seconds: 5)
        let before = try h.snapshot()
        let channel = try requireValue(h.service.fixChannel)
        let senders: [Caller?] = [Callers.phone("phone-tokyo"), Callers.service("order-service"), Callers.service("region-monitor"),
                                  Callers.operator, Callers.gateway, nil]
        for sender in senders {
            channel.receive(Self.forgedFrames("phone-tokyo", at: h.clock.now()), from: sender, userId: sender?.name ?? "phone-revoked")
        }
        #expect(try answer() == .no, "no forged fix moved the phone")
        #expect(try h.snapshot() == before)
        let health = try h.health()
        #expect(health["fixes.forbidden"] == "\(senders.count)")
        #expect(health["deadLettered"] == "\(senders.count)")
        #expect(health["fixes.consumed"] == "1")

        // beacon-ingest's fix (any instance of it) is applied.
        channel.receive(Self.forgedFrames("phone-tokyo", at: h.clock.now()), from: Callers.service("beacon-ingest", instance: "beacon-ingest-s0"))
        #expect(try answer() == .yes)
        #expect(try h.health()["fixes.consumed"] == "2")
        #expect(try h.health()["fixes.forbidden"] == "\(senders.count)")
    }

    @Test("the refusal names the sender and says who may push; a revoked key is refused as no longer registered")
    func refusalMessages() throws {
        let phone = try requireValue(FixSenders.refusal(Callers.phone("phone-tokyo"), userId: "phone-phone-tokyo"))
        #expect(phone.code == "auth.forbidden" && phone.message.contains("phone-phone-tokyo") && phone.message.contains("only beacon-ingest"))
        let revoked = try requireValue(FixSenders.refusal(nil, userId: "beacon-ingest-old"))
        #expect(revoked.code == "auth.forbidden" && revoked.message.contains("no longer in the campus key registry"))
        #expect(FixSenders.refusal(.developer, userId: nil) == nil, "plain mode cannot tell senders apart: loopback is its defence")
        #expect(FixSenders.refusal(Callers.service("beacon-ingest"), userId: "beacon-ingest") == nil)
    }
}
