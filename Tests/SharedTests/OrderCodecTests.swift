import Foundation
@testable import Messages
import Testing

/// The order flow's hand-written JSON (`Envelope+OrderBodies`): the writer gives JSONEncoder's
/// bytes, the reader reads them back as Foundation does, for every member set and unset and for
/// text that needs escapes. `CodecDifferentialTests` holds the readers to Foundation on frames
/// written otherwise.
@Suite("Order-flow envelopes: hand-written JSON, Foundation's bytes and values")
struct OrderCodecTests {
    static let time = Timestamp(milliseconds: 1_795_790_000_123)
    /// Text with every escape JSONEncoder writes, a slash it leaves, and text beyond ASCII.
    static let awkward = "q\"uo\\te/slash\n\r\t\u{8}\u{C}\u{1}\u{1F}\u{7F} Caffè ☕️ 😀 \u{2028}"

    static func line(_ n: Int, prep: Int? = 240) -> OrderLine {
        OrderLine(itemId: "item-\(n)", name: n == 2 ? awkward : "Latte \(n)", quantity: n, modifiers: n == 1 ? [] : ["oat-milk", awkward],
                  station: n % 2 == 0 ? "grill" : "coffee", unitPrice: 475 * Int64(n), lineTotal: -9_223_372_036_854_775_807, prepSeconds: prep)
    }

    /// An order with every optional member set, and one with none.
    static let full = OrderSnapshot(
        orderId: "ord-1", cafeId: "caffe-macs", cafeName: awkward, timeZone: "America/Los_Angeles", currency: "USD", channel: .appClip,
        userId: "user-42", deviceId: "phone-9", state: .ready, lines: [line(1), line(2), line(3, prep: nil)], total: 9_223_372_036_854_775_807,
        pickupStart: time, pickupEnd: time.adding(seconds: 900), placedAt: Timestamp(milliseconds: 0), customerHere: true,
        clipCode: "https://example.com/c/macs?x=1&y=2", paced: false, approachedAt: time.adding(seconds: 1), expectedArrivalAt: time.adding(seconds: 2.5),
        overdueAt: time.adding(seconds: 3), recalls: 2, noShowAt: time.adding(seconds: 4), awayAt: time.adding(seconds: -5), awayWalkSeconds: 180)
    static let bare = OrderSnapshot(
        orderId: "ord-2", cafeId: "caffe-macs", cafeName: "Caffè Macs", timeZone: "UTC", currency: "EUR", channel: .kiosk, userId: nil,
        deviceId: nil, state: .placed, lines: [], total: 0, pickupStart: time, pickupEnd: time, placedAt: time, customerHere: false)

    static func envelope(_ type: EventType, _ body: EventBody) -> Envelope {
        Envelope(type: type, id: "ev-\(type.rawValue)", source: "order-service", stream: "order", seq: 42, time: time, body: body)
    }

    static let samples: [Envelope] = [
        envelope(.orderPlaced, .order(OrderEvent(order: bare, previous: nil, reason: nil, at: time))),
        envelope(.orderReady, .order(OrderEvent(order: full, previous: .preparing, reason: nil, at: time))),
        envelope(.orderCancelled, .order(OrderEvent(order: full, previous: .accepted, reason: awkward, at: time))),
        envelope(.orderClaimed, .order(OrderEvent(order: bare, previous: .placed, reason: "", at: time))),
        envelope(.kitchenReady, .kitchen(KitchenEvent(orderId: "ord-1", cafeId: "caffe-macs", ticketId: nil, station: nil, at: time))),
        envelope(.kitchenBumped, .kitchen(KitchenEvent(orderId: awkward, cafeId: "caffe-macs", ticketId: "ord-1:coffee", station: "coffee", at: time))),
        envelope(.kitchenPaced, .paced(KitchenPacing(orderId: "ord-1", cafeId: "caffe-macs", target: time, previousTarget: nil, reason: .window,
                                                     expectedArrival: nil, fires: [], at: time))),
        envelope(.kitchenPaced, .paced(KitchenPacing(orderId: "ord-1", cafeId: "caffe-macs", target: time, previousTarget: time.adding(seconds: -60),
                                                     reason: .away, expectedArrival: time.adding(seconds: 30),
                                                     fires: [.init(ticketId: "ord-1:coffee", station: "coffee", fireAt: time),
                                                             .init(ticketId: "ord-1:grill", station: awkward, fireAt: time.adding(seconds: -240))],
                                                     at: time))),
        envelope(.notifyDelivery, .notification(DeviceNotification(
            notificationId: "ntf-1", deviceId: "phone-9", kind: .orderReady, collapseId: "ord-1", title: awkward, body: "Pick it up at Caffè Macs",
            language: "ja", orderId: "ord-1", expiresAt: time, createdAt: time, undeliverableReason: nil))),
        envelope(.notifyUndeliverable, .notification(DeviceNotification(
            notificationId: "ntf-2", deviceId: "phone-9", kind: .regionReminder, collapseId: "rem-1", title: "t", body: awkward, language: "en",
            orderId: nil, expiresAt: nil, createdAt: time, undeliverableReason: "device.denied", requestedLanguage: "pt", reminderId: "rem-1",
            cafeId: "caffe-macs"))),
    ]

    static func foundation(_ envelope: Envelope) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(envelope)
    }

    @Test("the writer writes JSONEncoder's bytes", arguments: samples)
    func writerBytes(_ envelope: Envelope) throws {
        let fast = try #require(envelope.fastEncoded(), "no hand-written writer for \(envelope.type.rawValue)")
        let expected = try Self.foundation(envelope)
        #expect(fast == expected, "\(String(decoding: fast, as: UTF8.self))\nJSONEncoder: \(String(decoding: expected, as: UTF8.self))")
        #expect(Wire.encode(envelope) == expected)
        // The body alone, as the edge streams it: JSONEncoder's bytes too.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        switch envelope.body {
        case .order(let event): #expect(Wire.encode(event) == (try encoder.encode(event)))
        case .kitchen(let event): #expect(Wire.encode(event) == (try encoder.encode(event)))
        case .paced(let pacing): #expect(Wire.encode(pacing) == (try encoder.encode(pacing)))
        case .notification(let notification): #expect(Wire.encode(notification) == (try encoder.encode(notification)))
        default: Issue.record("not an order-flow body")
        }
    }

    @Test("the reader reads JSONEncoder's bytes back as Foundation does", arguments: samples)
    func readerValues(_ envelope: Envelope) throws {
        let frame = try Self.foundation(envelope)
        let read = try #require(Envelope.fastDecode(frame), "the reader gave up on \(envelope.type.rawValue)")
        #expect(read == envelope)
        #expect(try JSONDecoder().decode(Envelope.self, from: frame) == envelope)
        #expect(try Wire.decodeEnvelope(frame) == envelope)
    }

    @Test("a body under another type's name: the reader gives up or reads what Foundation reads")
    func mismatchedType() throws {
        // An order event's body named `kitchen.ready`: it has the kitchen event's members but for
        // `cafeId`, which sits inside `order`, so both routes refuse it.
        let order = Self.samples[1]
        let renamed = String(decoding: try Self.foundation(order), as: UTF8.self)
            .replacingOccurrences(of: #""type":"order.ready""#, with: #""type":"kitchen.ready""#)
        let frame = Data(renamed.utf8)
        #expect(Envelope.fastDecode(frame) == nil)
        #expect(throws: WireError.self) { try Wire.decodeEnvelope(frame) }
    }

    @Test("an order view, alone and as a success reply: JSONEncoder's bytes; a failure goes to JSONEncoder")
    func orderViewReply() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for order in [Self.full, Self.bare] {
            let view = OrderView(order: order, total: PriceView(minorUnits: order.total, currency: order.currency, formatted: Self.awkward),
                                 pickupLabel: "12:15 – 12:30")
            let reply = Reply<OrderView>.success(view)
            #expect(try #require(view.fastEncoded()) == (try encoder.encode(view)))
            #expect(try #require(reply.fastEncoded()) == (try encoder.encode(reply)))
            #expect(Wire.encode(reply) == (try encoder.encode(reply)))
            #expect(try Wire.decodeReply(Wire.encode(reply), body: OrderView.self).get() == view)
            // Stored, then read back as order-service reads an order's row.
            #expect(try Wire.decodeStored(OrderSnapshot.self, from: Wire.encode(order)) == order)
        }
        let failure = Reply<OrderView>.failure(ServiceError(.invalidField, "no"))
        #expect(failure.fastEncoded() == nil)
        #expect(Wire.encode(failure) == (try encoder.encode(failure)))
        // A stored value the reader gives up on is Foundation's to read or refuse.
        #expect(throws: DecodingError.self) { try Wire.decodeStored(OrderSnapshot.self, from: Data(#"{"orderId":null}"#.utf8)) }
    }

    @Test("kitchen tickets and their stored lines: JSONEncoder's bytes, read back as written")
    func tickets() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let lines = [TicketLine(name: Self.awkward, quantity: 2, modifiers: ["oat-milk", Self.awkward], prepSeconds: 240, itemId: "latte"),
                     TicketLine(name: "Toast", quantity: 1, modifiers: [])]
        let full = TicketView(ticketId: "ord-1:coffee", orderId: "ord-1", cafeId: "caffe-macs", station: "coffee", state: .inProgress, lines: lines,
                              pickupStart: Self.time, customerHere: true, createdAt: Self.time, rush: true, bumpedAt: Self.time, closedAt: Self.time,
                              ageSeconds: 61, colour: .yellow, prepSeconds: 240, targetReadyAt: Self.time, fireAt: Self.time, firing: .hold,
                              holdSeconds: 30, arriving: true, overdue: false)
        let bare = TicketView(ticketId: "t", orderId: "o", cafeId: "c", station: "s", state: .new, lines: [], pickupStart: Self.time,
                              customerHere: false, createdAt: Self.time)
        for ticket in [full, bare] {
            #expect(try #require(ticket.fastEncoded()) == (try encoder.encode(ticket)))
            let reply = Reply<TicketView>.success(ticket)
            #expect(try #require(reply.fastEncoded()) == (try encoder.encode(reply)))
            #expect(try Wire.decodeReply(Wire.encode(reply), body: TicketView.self).get() == ticket)
        }
        for stored in [lines, []] {
            let json = Wire.encode(stored)
            #expect(json == (try encoder.encode(stored)))
            #expect([TicketLine].fastDecode(json) == stored)
            #expect(try Wire.decodeStored([TicketLine].self, from: json) == stored)
        }
        // A null prep time is Foundation's to read.
        let null = Data(#"[{"modifiers":[],"name":"n","prepSeconds":null,"quantity":1}]"#.utf8)
        #expect([TicketLine].fastDecode(null) == nil)
        #expect(try Wire.decodeStored([TicketLine].self, from: null) == [TicketLine(name: "n", quantity: 1, modifiers: [])])
    }
}
