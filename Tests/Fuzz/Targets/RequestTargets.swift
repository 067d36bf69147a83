import Foundation
import Messages
import ServiceRuntime

/// Targets for what clients send to request sockets.
enum RequestTargets {
    /// The head every socket decodes first: its reader (which skips the body, still checking names
    /// for repeats) against Foundation's route.
    static func head(_ frame: Data) -> String? {
        Agreement.check(RequestHead.self, frame, malformed: .malformed, tooDeep: .invalidField) {
            $0.op == $1.op && $0.id == $1.id && $0.onBehalfOf == $1.onBehalfOf
        }.problem
    }

    /// Any request frame, as every service takes it: the head, then a router answering every op
    /// (whose reply must be a well-formed reply), then the body type of the op it names.
    static func requests() -> FuzzTarget {
        let router = RequestRouter(logger: Logger(service: "fuzz", instance: "fuzz", minimum: .error, sink: { _ in }))
        for entry in OpTable.entries { entry.register(router) }
        return FuzzTarget("requests", "any request frame: the head, a router answering every op, the body type of the op it names",
                          seeds: { Seeds.examples(kind: "request") }) { frame in
            if let problem = head(frame) { return problem }
            let reply = router.handle(frame)
            do {
                let decoded = try Wire.decodeReply(reply, body: Empty.self)
                if !decoded.ok, let error = decoded.error, error.message.count > Agreement.longestMessage {
                    return "the router's refusal echoes too much: \(error.message.prefix(200))…"
                }
            } catch {
                return "the router answered with a reply that does not decode: \(Agreement.text(reply)): \(error)"
            }
            guard let op = try? Wire.decodeRequestHead(frame).op, let entry = OpTable.byName[op] else { return nil }
            return entry.check(frame)
        }
    }

    /// The router's one pass (head and body together, for a frame whose op comes last): whatever
    /// it reads, the head and then the request, read apart, read the same.
    static func onePass<Body: Codable & Sendable & Equatable>(_ frame: Data, _ body: Body.Type) -> String? {
        guard let one = Wire.decodeRequestInOnePass(frame, body: Body.self, maxBytes: .max) else { return nil }
        guard let head = try? Wire.decodeRequestHead(frame, maxBytes: .max), let two = try? Wire.decodeRequest(frame, body: Body.self, maxBytes: .max) else {
            return "one pass read a request the two passes refuse: \(Agreement.text(frame))"
        }
        guard head.op == one.op, (head.id ?? "") == one.id, head.onBehalfOf == one.onBehalfOf, two.op == one.op, two.id == one.id, two.body == one.body else {
            return "one pass and two passes read different requests from \(Agreement.text(frame))"
        }
        return nil
    }

    /// `ingest.report` through its hand-written reader, which phones hit at campus rate.
    static func report(_ frame: Data) -> String? {
        onePass(frame, IngestReport.self) ?? Agreement.checkRoundTrip(Request<IngestReport>.self, frame, malformed: .invalidField) { $0.op == $1.op && $0.id == $1.id && $0.body == $1.body }
    }

    /// `ingest.batch` through its hand-written reader, as gateways send it.
    static func batch(_ frame: Data) -> String? {
        onePass(frame, IngestBatch.self) ?? Agreement.checkRoundTrip(Request<IngestBatch>.self, frame, malformed: .invalidField) { $0.op == $1.op && $0.id == $1.id && $0.body == $1.body }
    }

    /// Sightings both ways they travel: a phone's `ingest.report` and the `sighting.batch` and
    /// `sighting.reported` envelopes on the bus (hand-written readers, the envelopes' writer too).
    static func sightings() -> FuzzTarget {
        FuzzTarget("sightings", "ingest.report requests, sighting.batch and sighting.reported envelopes: the hand-written readers and writer against Foundation",
                   seeds: { Seeds.examples(kind: "request", name: Op.ingestReport) + Seeds.envelopes(of: "sighting.reported") + Seeds.envelopes(of: "sighting.batch")
                       + Seeds.reportRequests() + Seeds.sightingEnvelopes() + Seeds.sightingBatchEnvelopes() }) { frame in
            head(frame) ?? report(frame) ?? Agreement.checkEnvelope(frame)
        }
    }

    /// Gateways' batches of reports.
    static func batches() -> FuzzTarget {
        FuzzTarget("batches", "ingest.batch requests: the hand-written batch reader against Foundation",
                   seeds: { Seeds.examples(kind: "request", name: Op.ingestBatch) + Seeds.examples(kind: "request", name: Op.ingestReport) + Seeds.batchRequests() }) { frame in
            head(frame) ?? batch(frame) ?? report(frame)
        }
    }

    /// Location fixes both ways they travel: in a phone's report and as `location.fix` envelopes
    /// on region-monitor's fix channel.
    static func fixes() -> FuzzTarget {
        FuzzTarget("fixes", "fixes in ingest.report requests and location.fix envelopes on the fix channel",
                   seeds: { Seeds.examples(kind: "request", name: Op.ingestReport).filter { String(decoding: $0, as: UTF8.self).contains("\"fixes\"") }
                       + Seeds.envelopes(of: "location.fix") + Seeds.reportRequests() + Seeds.fixEnvelopes() }) { frame in
            report(frame) ?? Agreement.checkEnvelope(frame)
        }
    }
}
