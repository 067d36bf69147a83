import Foundation
import Messages
import ServiceRuntime

/// Targets for what services read from the bus and from each other's replies.
enum EnvelopeTargets {
    /// Any bus message's envelope, every event type: what every consumer decodes.
    static func envelopes() -> FuzzTarget {
        FuzzTarget("envelopes", "bus envelopes of every event type, through Wire.decodeEnvelope and Foundation's route",
                   seeds: { Seeds.examples(kind: "envelope") }) { frame in
            Agreement.checkEnvelope(frame)
        }
    }

    /// Compact `sighting.batch` frames as region-monitor reads them off the bus (and the bus reads
    /// their `source`): a frame that reads encodes again to the same bytes, its JSON reads to the
    /// same envelope, and the bus's source is the envelope's; a refusal is `message.malformed` or
    /// `message.unsupportedVersion`, never a trap.
    static func compact() -> FuzzTarget {
        FuzzTarget("compact", "compact sighting.batch frames, through Wire.decodeEnvelope, against their own writer and their JSON",
                   seeds: { Seeds.compactFrames() }) { frame in
            Agreement.checkCompact(frame)
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
            layout(frame) ?? reply(ReplayReply.self, frame) ?? reply(LocationConfirmation.self, frame) ?? reply(HealthStatus.self, frame)
                ?? pruned(frame)
        }
    }

    /// A `replay.pruned` refusal as a catching-up consumer reads it: the seq it names is a seq
    /// (within `Envelope.seqRange`), exactly the decimal `details.oldestSeq` says, and nothing else is.
    static func pruned(_ frame: Data) -> String? {
        guard let reply = try? JSONDecoder().decode(Reply<ReplayReply>.self, from: frame), let error = reply.error else { return nil }
        let seq = ReplayPruned.oldestSeq(in: error)
        guard let seq else { return nil }
        if error.code != "replay.pruned" { return "oldestSeq read from a \(error.code) refusal" }
        if !Envelope.seqRange.contains(seq) || error.details?["oldestSeq"] != String(seq) { return "oldestSeq \(seq) is not the refusal's details.oldestSeq" }
        return nil
    }

    /// The edge's fast read of a reply (`Wire.replyLayout`) agrees with Foundation's whenever it
    /// answers: the same `ok`, and a `body` span that parses to the same value.
    static func layout(_ frame: Data) -> String? {
        guard let layout = Wire.replyLayout(frame) else { return nil }
        guard let object = try? JSONSerialization.jsonObject(with: frame) as? [String: Any] else {
            return "replyLayout read a frame Foundation refuses"
        }
        guard (object["ok"] as? Bool) == layout.ok else {
            return "replyLayout's ok \(layout.ok) is not Foundation's \(String(describing: object["ok"]))"
        }
        guard let span = layout.body else { return object["body"] == nil ? nil : "replyLayout missed the body" }
        let bytes = frame[(frame.startIndex + span.lowerBound)..<(frame.startIndex + span.upperBound)]
        // Compared as Foundation writes both back, keys sorted (fragments wrapped in an array).
        guard let body = try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed), let expected = object["body"],
              let mine = try? JSONSerialization.data(withJSONObject: [body], options: .sortedKeys),
              let theirs = try? JSONSerialization.data(withJSONObject: [expected], options: .sortedKeys), mine == theirs else {
            return "replyLayout's body span does not parse to Foundation's body"
        }
        return nil
    }
}
