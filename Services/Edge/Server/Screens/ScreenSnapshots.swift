import EdgeCore
import Foundation
import Messages
import Policy
import ServiceRuntime

/// The screens' snapshots (`GET /v1/screens/kitchen`, `GET /v1/screens/pickup`): each with `seq`,
/// the id of the café channel's last event when it was read, so the page's stream resumes after it.
/// `seq` is read before anything else, so the snapshot holds at least every event up to it; an
/// event after it that the snapshot already shows comes again and changes nothing.
///
/// The kitchen's is kitchen-display's own views, asked on behalf of the tablet exactly as
/// `GET /v1/kitchen/tickets` would (so kitchen-display's scope rules decide too); the pickup
/// board's is the edge's journal of the café's order events, folded (`PickupBoard`).
public final class ScreenSnapshots {
    let journal: StreamJournal
    let ask: EdgeAsk
    let clock: any WallClock
    let logger: Logger
    /// How far back the recall list reaches, and how many it keeps (issue 29: 15 minutes, 50).
    public static let recallWindowSeconds = 900
    public static let recallLimit = 50

    public init(journal: StreamJournal, ask: @escaping EdgeAsk, clock: any WallClock, logger: Logger) {
        self.journal = journal
        self.ask = ask
        self.clock = clock
        self.logger = logger
    }

    /// Answers one snapshot route for `principal` (a kitchen tablet); `query` is the router's object of query members.
    public func answer(_ action: ScreenAction, query: [UInt8], principal: OnBehalfOf, done: @escaping @Sendable (EdgeResponse) -> Void) {
        let cafeId: String
        let seq: UInt64
        do {
            cafeId = try ScreenStreams.cafe(of: principal, asked: ScreenStreams.member("cafeId", in: query))
            seq = try journal.last(channel: StreamChannel.cafe(cafeId))
        } catch let problem as Problem {
            return done(problem.response)
        } catch {
            logger.error("stream journal unreadable", ["error": "\(error)"])
            return done(Problem(.httpServiceUnavailable, "the edge cannot read its stream journal now; try again").response)
        }
        switch action {
        case .kitchenScreen: kitchen(cafeId: cafeId, station: ScreenStreams.member("station", in: query), seq: seq, principal: principal, done: done)
        case .pickupBoard: done(board(cafeId: cafeId, seq: seq))
        case .status: done(Problem(.httpNotFound, "the status page is not a café's screen").response)
        }
    }

    /// Four asks at once; the first refusal is the answer, else one object of the four replies.
    private func kitchen(cafeId: String, station: String?, seq: UInt64, principal: OnBehalfOf, done: @escaping @Sendable (EdgeResponse) -> Void) {
        var filter: [(String, JSONValue)] = [("cafeId", .string(cafeId))]
        if let station { filter.append(("station", .string(station))) }
        let parts: [(name: String, op: String, body: JSONValue)] = [
            ("tickets", Op.kdsTickets, .object(filter)),
            ("orders", Op.kdsOrders, .object([("cafeId", .string(cafeId))])),
            ("counts", Op.kdsCounts, .object(filter)),
            ("done", Op.kdsTickets, .object(filter + [("includeDone", .bool(true))])),
        ]
        // The 86 marks the café's channel carried: what is still off.
        let unavailable = (try? journal.recent(channel: StreamChannel.cafe(cafeId), typePrefix: "menu.availability", limit: PickupBoard.maxEvents))
            .map { PickupBoard.unavailable($0.filter { $0.id <= seq }.map(\.data)) } ?? []
        let gather = Gather(count: parts.count)
        let now = clock.now()
        for (index, part) in parts.enumerated() {
            ask(part.op, part.body.encoded(), principal) { answer in
                guard let all = gather.add(index, answer) else { return }
                if let refusal = all.first(where: { $0.status != 200 }) { return done(refusal) }
                var out = Array("{\"seq\":\(seq),\"cafeId\":".utf8)
                JSONText.appendQuoted(cafeId, to: &out)
                out += Array(",\"now\":\(now.milliseconds),\"recallWindowSeconds\":\(Self.recallWindowSeconds),\"recallLimit\":\(Self.recallLimit)".utf8)
                out += Array(",\"unavailable\":".utf8) + JSONValue.array(unavailable.map { .string($0) }).encoded()
                for (part, reply) in zip(parts, all) {
                    out += Array(",\"\(part.name)\":".utf8) + reply.body
                }
                out += Array("}".utf8)
                done(.json(out))
            }
        }
    }

    private func board(cafeId: String, seq: UInt64) -> EdgeResponse {
        do {
            let events = try journal.recent(channel: StreamChannel.cafe(cafeId), typePrefix: "order.", limit: PickupBoard.maxEvents)
            let orders = PickupBoard.fold(events.filter { $0.id <= seq }.map(\.data))
            return .json(JSONValue.object([
                ("seq", .integer(Int64(seq))), ("cafeId", .string(cafeId)), ("orders", .array(orders.map(\.json))),
            ]).encoded())
        } catch {
            logger.error("stream journal unreadable", ["error": "\(error)"])
            return Problem(.httpServiceUnavailable, "the edge cannot read its stream journal now; try again").response
        }
    }
}

/// The answers of a snapshot's asks, collected on the reactor thread (every `done` runs there).
final class Gather: @unchecked Sendable {
    private var answers: [EdgeResponse?]
    private var remaining: Int

    init(count: Int) {
        answers = Array(repeating: nil, count: count)
        remaining = count
    }

    /// Records one answer; returns all of them, in order, when it was the last.
    func add(_ index: Int, _ answer: EdgeResponse) -> [EdgeResponse]? {
        guard answers[index] == nil else { return nil }
        answers[index] = answer
        remaining -= 1
        return remaining == 0 ? answers.compactMap { $0 } : nil
    }
}

/// Confined to the host's reactor thread, like the rest of the edge.
extension ScreenSnapshots: @unchecked Sendable {}
