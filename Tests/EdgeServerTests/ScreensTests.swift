import EdgeCore
@testable import EdgeServer
import EdgeWeb
import Foundation
import Messages
import Testing

/// The café screens' part of the edge (issue 29): the café channel's events and their ids, the
/// resume and its gaps, the pickup board's fold, the café check, the snapshots' asks, the pages.
@Suite("screens: the café channel, snapshots and pages")
struct ScreensTests {
    static let kitchen = OnBehalfOf.counter("kitchen", "s-kitchen-macs", cafeId: "caffe-macs")
    static let otherKitchen = OnBehalfOf.counter("kitchen", "s-kitchen-coffee", cafeId: "macs-coffee")

    static func kitchenEvent(_ type: EventType, seq: UInt64, orderId: String = "ord-1", station: String = "grill") -> (Envelope, String) {
        let event = KitchenEvent(orderId: orderId, cafeId: "caffe-macs", ticketId: orderId + ":" + station, station: station, at: StreamsHarness.t0)
        let envelope = Envelope(type: type, source: "kitchen-display", stream: "kitchen", seq: seq, time: StreamsHarness.t0, body: .kitchen(event))
        return (envelope, Topic.kitchen(event: String(type.rawValue.dropFirst("kitchen.".count)), cafe: "caffe-macs"))
    }

    static func object(_ data: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(data)) as? [String: Any])
    }

    @Test("an order event on the café's channel: what changed, its short number, never items, user or device")
    func cafeEventOfAnOrder() throws {
        let (envelope, _) = StreamsHarness.orderEvent(.orderPlaced, seq: 1, orderId: "ord_8c1f2a9e-0000", state: .placed)
        let event = try #require(CafeEvent.of(envelope))
        #expect(event.cafeId == "caffe-macs" && event.type == "order.placed")
        let data = try Self.object(event.data)
        #expect(data["orderId"] as? String == "ord_8c1f2a9e-0000" && data["state"] as? String == "placed" && data["number"] as? String == "8C1F")
        // user-42 is a readable user id: its initial; nothing else of the customer.
        #expect(data["label"] as? String == "U.")
        let text = String(decoding: event.data, as: UTF8.self)
        #expect(!text.contains("user-42") && !text.contains("dev-9f3b") && !text.contains("lines"))
    }

    @Test("initials: an app customer's readable user id only; a derived id, a kiosk or App Clip guest by number")
    func initials() {
        #expect(PickupLabel.initial(channel: .app, userId: "alice") == "A.")
        #expect(PickupLabel.initial(channel: .app, userId: "u-Zx81kq0P2m5a8f7e6d5c4b") == nil)
        #expect(PickupLabel.initial(channel: .app, userId: nil) == nil)
        #expect(PickupLabel.initial(channel: .kiosk, userId: "alice") == nil)
        #expect(PickupLabel.initial(channel: .appClip, userId: "alice") == nil)
        #expect(PickupLabel.number("ord_3f-a") == "3FA" && PickupLabel.number("ord-1") == "ORD1")
    }

    @Test("kitchen and 86 events go to the café's channel; a notification does not")
    func otherEvents() throws {
        let (bumped, _) = Self.kitchenEvent(.kitchenBumped, seq: 4)
        let bumpedEvent = try #require(CafeEvent.of(bumped))
        let data = try Self.object(bumpedEvent.data)
        #expect(data["ticketId"] as? String == "ord-1:grill" && data["station"] as? String == "grill")
        let mark = MenuAvailability(cafeId: "caffe-macs", itemId: "burger", available: false, reason: "out of buns", by: "kitchen", at: StreamsHarness.t0)
        let availability = Envelope(type: .menuAvailability, source: "order-service", stream: "menu", seq: 2, time: StreamsHarness.t0, body: .availability(mark))
        let marked = try #require(CafeEvent.of(availability))
        #expect(try Self.object(marked.data)["available"] as? Bool == false && !String(decoding: marked.data, as: UTF8.self).contains("buns"))
        #expect(CafeEvent.of(StreamsHarness.delivery(seq: 1, device: "dev-1").0) == nil)
    }

    @Test("the channel counts its own ids across streams, in the order applied; a restart goes on from the last")
    func countedIds() throws {
        let harness = try StreamsHarness()
        try harness.deliver(StreamsHarness.orderEvent(.orderPlaced, seq: 1, state: .placed).0, topic: StreamsHarness.orderEvent(.orderPlaced, seq: 1, state: .placed).1)
        let (started, startedTopic) = Self.kitchenEvent(.kitchenStarted, seq: 1)
        try harness.deliver(started, topic: startedTopic)
        let (ready, readyTopic) = StreamsHarness.orderEvent(.orderReady, seq: 2, state: .ready)
        try harness.deliver(ready, topic: readyTopic)
        let channel = StreamChannel.cafe("caffe-macs")
        #expect(try harness.streams.journal.last(channel: channel) == 3)
        #expect(try harness.streams.journal.resume(channel: channel, after: 1)?.map(\.id) == [2, 3])
        #expect(try harness.streams.journal.resume(channel: channel, after: 3)?.isEmpty == true)
        try harness.restart()
        let (bumped, bumpedTopic) = Self.kitchenEvent(.kitchenBumped, seq: 2)
        try harness.deliver(bumped, topic: bumpedTopic)
        #expect(try harness.streams.journal.last(channel: channel) == 4)
        // The order's own channel keeps the order stream's seqs, as before.
        #expect(try harness.streams.journal.events(channel: StreamChannel.order("ord-1"), after: nil).map(\.id) == [1, 2])
    }

    @Test("a gap the journal cannot fill is nil (the page reloads): an id it never gave, pruned events, more than the backlog")
    func gaps() throws {
        let harness = try StreamsHarness()
        let journal = harness.streams.journal
        let channel = StreamChannel.cafe("caffe-macs")
        try harness.host.db.transaction {
            for index in 0..<(StreamJournal.maxBacklog + 5) {
                _ = try journal.appendCounted(channel: channel, event: "kitchen.paced", data: Array("{}".utf8),
                                              at: StreamsHarness.t0.adding(seconds: Double(index)))
            }
        }
        #expect(try journal.resume(channel: channel, after: 999) == nil)
        #expect(try journal.resume(channel: channel, after: 2) == nil, "205 events after 0: more than the backlog")
        #expect(try journal.resume(channel: channel, after: 10)?.count == 195)
        try journal.prune(before: StreamsHarness.t0.adding(seconds: 50))
        #expect(try journal.resume(channel: channel, after: 10) == nil, "events 11–50 are gone")
        _ = try journal.appendCounted(channel: channel, event: "kitchen.paced", data: Array("{}".utf8), at: StreamsHarness.t0.adding(seconds: 900))
        #expect(try journal.last(channel: channel) == 206, "pruning never hands an id out again")
        let held = ScreenStreams.held(journal: journal, cafeId: "caffe-macs", after: 3, keepAliveSeconds: 20, logger: harness.host.logger)
        let body = String(decoding: held.body, as: UTF8.self)
        #expect(held.status == 200 && body.contains("event: reset") && held.headers.contains { $0 == ("Grip-Channel", "cafe:caffe-macs, screens") })
    }

    @Test("the board: an order's last state decides its column; picked up, cancelled or no-show leave it")
    func boardFold() throws {
        func event(_ orderId: String, _ state: String, label: String? = nil) -> [UInt8] {
            var members: [(String, JSONValue)] = [("type", .string("order.\(state)")), ("orderId", .string(orderId)), ("state", .string(state)),
                                                  ("number", .string(String(orderId.suffix(4)).uppercased()))]
            if let label { members.append(("label", .string(label))) }
            return JSONValue.object(members).encoded()
        }
        let board = PickupBoard.fold([
            event("ord_aaaa", "placed", label: "A."), event("ord_bbbb", "placed"), event("ord_cccc", "placed"),
            Array(#"{"type":"kitchen.bumped","orderId":"ord_aaaa"}"#.utf8), event("ord_aaaa", "ready", label: "A."),
            event("ord_bbbb", "ready"), event("ord_bbbb", "preparing"), event("ord_cccc", "ready"), event("ord_cccc", "pickedUp"),
            event("ord_dddd", "placed"), event("ord_dddd", "cancelled"), Array("not json".utf8),
        ])
        #expect(board.map(\.orderId) == ["ord_aaaa", "ord_bbbb"])
        #expect(board.map(\.column) == ["ready", "preparing"] && board[0].label == "A." && board[1].label == nil)
        let off = PickupBoard.unavailable([
            Array(#"{"type":"menu.availability","itemId":"burger","available":false}"#.utf8),
            Array(#"{"type":"menu.availability","itemId":"fries","available":false}"#.utf8),
            Array(#"{"type":"menu.availability","itemId":"fries","available":true}"#.utf8),
        ])
        #expect(off == ["burger"])
    }

    @Test("a kitchen sees its own café only: another café's kitchen is refused before anything is asked")
    func refusedKitchen() throws {
        let harness = try StreamsHarness()
        let service = harness.service
        let snapshots = ScreenSnapshots(journal: harness.streams.journal, ask: { op, body, principal, done in
            done(service.ask(op, String(decoding: body, as: UTF8.self), principal))
        }, clock: harness.clock, logger: harness.host.logger)
        let refused = Answer()
        snapshots.answer(.kitchenScreen, query: Array(#"{"cafeId":"caffe-macs"}"#.utf8), principal: Self.otherKitchen) { refused.set($0) }
        #expect(refused.response?.status == 403 && harness.service.asked.isEmpty)
        let board = Answer()
        snapshots.answer(.pickupBoard, query: Array(#"{"cafeId":"caffe-macs"}"#.utf8), principal: Self.otherKitchen) { board.set($0) }
        #expect(board.response?.status == 403)
        // Its own café's stream, and another's refused.
        let stream = Answer()
        harness.streams.open(action: .stream(.cafeEvents), pathParameters: [:], body: Array(#"{"cafeId":"caffe-macs"}"#.utf8), headers: HTTPHeaders(),
                             principal: Self.otherKitchen) { stream.set($0) }
        #expect(stream.response?.status == 403)
        let own = Answer()
        harness.streams.open(action: .stream(.cafeEvents), pathParameters: [:], headers: HTTPHeaders(), principal: Self.otherKitchen) { own.set($0) }
        #expect(own.response?.headers.contains { $0 == ("Grip-Channel", "cafe:macs-coffee, screens") } == true)
    }

    @Test("the kitchen snapshot: seq first, then kitchen-display's four views on behalf of the tablet; a refusal is the answer")
    func kitchenSnapshot() throws {
        let harness = try StreamsHarness()
        let (placed, topic) = StreamsHarness.orderEvent(.orderPlaced, seq: 1, state: .placed)
        try harness.deliver(placed, topic: topic)
        harness.service.answer = .json(Array(#"{"tickets":[],"link":{}}"#.utf8))
        let service = harness.service
        let snapshots = ScreenSnapshots(journal: harness.streams.journal, ask: { op, body, principal, done in
            done(service.ask(op, String(decoding: body, as: UTF8.self), principal))
        }, clock: harness.clock, logger: harness.host.logger)
        let answer = Answer()
        snapshots.answer(.kitchenScreen, query: Array(#"{"station":"grill"}"#.utf8), principal: Self.kitchen) { answer.set($0) }
        let kitchenAnswer = try #require(answer.response)
        let object = try Self.object(kitchenAnswer.body)
        #expect(object["seq"] as? Int == 1 && object["cafeId"] as? String == "caffe-macs" && object["recallLimit"] as? Int == 50)
        #expect(harness.service.asked.map(\.0) == [Op.kdsTickets, Op.kdsOrders, Op.kdsCounts, Op.kdsTickets])
        #expect(harness.service.asked.allSatisfy { $0.2 == Self.kitchen } && harness.service.asked[0].1.contains(#""station":"grill""#))
        harness.service.answer = Problem(.forbidden, "not yours").response
        let refused = Answer()
        snapshots.answer(.kitchenScreen, query: [], principal: Self.kitchen) { refused.set($0) }
        #expect(refused.response?.status == 403)
        let board = Answer()
        snapshots.answer(.pickupBoard, query: [], principal: Self.kitchen) { board.set($0) }
        let boardAnswer = try #require(board.response)
        let orders = try #require(try Self.object(boardAnswer.body)["orders"] as? [[String: Any]])
        #expect(orders.count == 1 && orders[0]["column"] as? String == "preparing" && orders[0]["number"] as? String == "ORD1")
    }

    @Test("the pages: each with its type and a policy that loads nothing from elsewhere; nothing else is a page")
    func pages() throws {
        for path in ["/", "/kitchen", "/board", "/status", "/web/live.js", "/web/screens.css"] {
            let page = try #require(WebPages.answer(method: "GET", uri: "http://127.0.0.1:8080" + path), "\(path)")
            #expect(page.status == 200 && !page.body.isEmpty, "\(path)")
            #expect(page.headers.contains { $0.0 == "Content-Security-Policy" && $0.1.hasPrefix("default-src 'self'") }, "\(path)")
        }
        #expect(WebPages.answer(method: "GET", uri: "http://h/kitchen")?.headers.first?.1 == "text/html; charset=utf-8")
        #expect(WebPages.answer(method: "GET", uri: "http://h/web/nothing.js")?.status == 404)
        #expect(WebPages.answer(method: "POST", uri: "http://h/kitchen")?.status == 405)
        #expect(WebPages.answer(method: "GET", uri: "http://h/v1/menu") == nil)
        #expect(WebPages.answer(method: "GET", uri: "http://h/kitchen/x") == nil)
        // Nothing in them reaches outside this edge.
        for (name, file) in EdgeWeb.files {
            let text = String(decoding: file.bytes, as: UTF8.self)
            #expect(!text.contains("http://") || name == "index.html", "\(name)")
            #expect(!text.contains("https://"), "\(name)")
        }
    }
}
