import Foundation
import Messages

/// Targets for what services read from the bus and from each other's replies.
enum EnvelopeTargets {
    /// Any bus message's envelope, every event type: what every consumer decodes.
    static func envelopes() -> FuzzTarget {
        FuzzTarget("envelopes", "bus envelopes of every event type, through Wire.decodeEnvelope and Foundation's route",
                   seeds: { Seeds.examples(kind: "envelope") }) { frame in
            Agreement.checkEnvelope(frame)
        }
    }

    /// A reply as a client reads it, for the body type `Body`.
    static func reply<Body: Codable & Sendable & Equatable>(_ body: Body.Type, _ frame: Data) -> String? {
        Agreement.checkRoundTrip(Reply<Body>.self, frame, malformed: .messageMalformed) { $0.ok == $1.ok && $0.body == $1.body && $0.error == $1.error }
    }

    /// Replies services read from one another: replay pages (every consumer catching up, from the
    /// endpoint a heartbeat names), location confirmations (order-service from region-monitor) and
    /// health (cafectl, load-test).
    static func replies() -> FuzzTarget {
        FuzzTarget("replies", "replay, location.confirm and health replies, as consumers and clients read them",
                   seeds: { Seeds.examples(kind: "reply", name: Op.replay) + Seeds.examples(kind: "reply", name: Op.locationConfirm)
                       + Seeds.examples(kind: "reply", name: Op.health) }) { frame in
            reply(ReplayReply.self, frame) ?? reply(LocationConfirmation.self, frame) ?? reply(HealthStatus.self, frame)
        }
    }
}
