import Foundation

/// Hand-written JSON for the bodies of the order flow: order events, the kitchen's events and
/// pacing, and notifications. Every order crosses four services as these (order-service,
/// kitchen-display, notification-service, the edge), each decoding what it consumes and encoding
/// what it emits; with Foundation's coders they were 25–30% of each of those services' CPU and
/// about half of their reactor thread's (perf, `load-test run` at 50 orders/s), on the way from
/// an order to its ready notification. Readers give up (nil) on anything they do not fully
/// expect (a null, a number written unusually, a name twice) and Foundation's route decides;
/// writers give JSONEncoder's bytes with sorted keys (`OrderCodecTests` compares them).
extension Envelope {
    /// The body of an order-flow envelope of `type`, read; nil for any other type or when the reader gives up.
    static func readOrderFlowBody(of type: EventType, from scanner: inout JSONScanner) -> EventBody? {
        switch type {
        case .orderPlaced, .orderAccepted, .orderPreparing, .orderReady, .orderPickedUp, .orderCancelled, .orderNoShow, .orderArrived, .orderClaimed,
             .orderApproaching, .orderOverdue:
            OrderEvent.read(from: &scanner).map(EventBody.order)
        case .kitchenStarted, .kitchenBumped, .kitchenReady, .kitchenRecalled:
            KitchenEvent.read(from: &scanner).map(EventBody.kitchen)
        case .kitchenPaced:
            KitchenPacing.read(from: &scanner).map(EventBody.paced)
        case .notifyDelivery, .notifyUndeliverable:
            DeviceNotification.read(from: &scanner).map(EventBody.notification)
        default:
            nil
        }
    }

    /// Whether `appendOrderFlowBody` writes this body.
    static func hasOrderFlowWriter(_ body: EventBody) -> Bool {
        switch body {
        case .order, .kitchen, .paced, .notification: true
        default: false
        }
    }

    /// Appends an order-flow body's JSON: only for a body `hasOrderFlowWriter` takes.
    static func appendOrderFlowBody(_ body: EventBody, to out: inout [UInt8]) {
        switch body {
        case .order(let event): event.appendJSON(to: &out)
        case .kitchen(let event): event.appendJSON(to: &out)
        case .paced(let pacing): pacing.appendJSON(to: &out)
        case .notification(let notification): notification.appendJSON(to: &out)
        default: preconditionFailure("no hand-written writer for this body")
        }
    }
}

/// Appends JSON members in sorted order: each call writes `,"name":` (no comma before the first)
/// and the value; a nil optional is left out, as JSONEncoder leaves it out.
struct JSONObjectWriter {
    private var first = true

    mutating func name(_ name: StaticString, _ out: inout [UInt8]) {
        out.append(UInt8(ascii: first ? "{" : ","))
        first = false
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        out.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    mutating func string(_ name: StaticString, _ value: String?, _ out: inout [UInt8]) {
        guard let value else { return }
        self.name(name, &out)
        JSONText.appendQuoted(value, to: &out)
    }

    mutating func word(_ name: StaticString, _ value: String?, _ out: inout [UInt8]) {
        guard let value else { return }
        self.name(name, &out)
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: value.utf8)
        out.append(UInt8(ascii: "\""))
    }

    mutating func integer(_ name: StaticString, _ value: Int64?, _ out: inout [UInt8]) {
        guard let value else { return }
        self.name(name, &out)
        JSONText.appendInteger(value, to: &out)
    }

    mutating func int(_ name: StaticString, _ value: Int?, _ out: inout [UInt8]) {
        integer(name, value.map(Int64.init), &out)
    }

    mutating func bool(_ name: StaticString, _ value: Bool?, _ out: inout [UInt8]) {
        guard let value else { return }
        self.name(name, &out)
        out.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
    }

    mutating func time(_ name: StaticString, _ value: Timestamp?, _ out: inout [UInt8]) {
        guard let value else { return }
        self.name(name, &out)
        out.append(UInt8(ascii: "\""))
        value.appendRFC3339(to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// `,"name":[…]`, each item written by `write`.
    mutating func list<T>(_ name: StaticString, _ items: [T], _ out: inout [UInt8], _ write: (T, inout [UInt8]) -> Void) {
        self.name(name, &out)
        Self.appendList(items, &out, write)
    }

    /// `[…]`, each item written by `write`.
    static func appendList<T>(_ items: [T], _ out: inout [UInt8], _ write: (T, inout [UInt8]) -> Void) {
        out.append(UInt8(ascii: "["))
        for (index, item) in items.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            write(item, &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    /// Closes the object (`{}` when nothing was written).
    func end(_ out: inout [UInt8]) {
        if first { out.append(UInt8(ascii: "{")) }
        out.append(UInt8(ascii: "}"))
    }
}

extension JSONScanner {
    /// An array of strings, at most `limit` of them; nil when an element is not a string (a null
    /// among them too) or there are more.
    mutating func strings(atMost limit: Int) -> [String]? {
        var list: [String] = []
        let ok = array { sc in
            guard list.count < limit, let text = sc.string() else { return false }
            list.append(text)
            return true
        }
        return ok ? list : nil
    }
}

extension OrderLine: FastJSONDecodable {
    static func read(from scanner: inout JSONScanner) -> OrderLine? {
        var itemId: String?, name: String?, quantity: Int?, modifiers: [String]?, station: String?, unitPrice: Int64?, lineTotal: Int64?
        var prepSeconds: Int?
        let ok = scanner.object { sc, key in
            switch key {
            case "itemId": fill(&itemId, sc.string())
            case "name": fill(&name, sc.string())
            case "quantity": fill(&quantity, sc.int())
            // However many: the frame's size bounds them, and past this Foundation's route reads them.
            case "modifiers": fill(&modifiers, sc.strings(atMost: 1_024))
            case "station": fill(&station, sc.string())
            case "unitPrice": fill(&unitPrice, sc.integer())
            case "lineTotal": fill(&lineTotal, sc.integer())
            case "prepSeconds": fill(&prepSeconds, sc.int())
            default: nil
            }
        }
        // Out of range: Foundation's route refuses it, naming the field.
        guard ok, let itemId, let name, let quantity, let modifiers, let station, let unitPrice, let lineTotal,
              quantityRange.contains(quantity), prepSeconds.map(prepSecondsRange.contains) ?? true
        else { return nil }
        return OrderLine(itemId: itemId, name: name, quantity: quantity, modifiers: modifiers, station: station, unitPrice: unitPrice,
                         lineTotal: lineTotal, prepSeconds: prepSeconds)
    }

    func appendJSON(to out: inout [UInt8]) {
        var o = JSONObjectWriter()
        o.string("itemId", itemId, &out)
        o.integer("lineTotal", lineTotal, &out)
        o.list("modifiers", modifiers, &out) { JSONText.appendQuoted($0, to: &$1) }
        o.string("name", name, &out)
        o.int("prepSeconds", prepSeconds, &out)
        o.int("quantity", quantity, &out)
        o.string("station", station, &out)
        o.integer("unitPrice", unitPrice, &out)
        o.end(&out)
    }
}

extension OrderSnapshot: FastJSONDecodable {
    static func read(from scanner: inout JSONScanner) -> OrderSnapshot? {
        var orderId: String?, cafeId: String?, cafeName: String?, timeZone: String?, currency: String?, channel: OrderChannel?
        var userId: String?, deviceId: String?, state: OrderState?, lines: [OrderLine]?, total: Int64?
        var pickupStart: Timestamp?, pickupEnd: Timestamp?, placedAt: Timestamp?, customerHere: Bool?, clipCode: String?, paced: Bool?
        var approachedAt: Timestamp?, expectedArrivalAt: Timestamp?, awayAt: Timestamp?, awayWalkSeconds: Int?, overdueAt: Timestamp?
        var recalls: Int?, noShowAt: Timestamp?
        let ok = scanner.object { sc, key in
            switch key {
            case "orderId": fill(&orderId, sc.string())
            case "cafeId": fill(&cafeId, sc.string())
            case "cafeName": fill(&cafeName, sc.string())
            case "timeZone": fill(&timeZone, sc.string())
            case "currency": fill(&currency, sc.string())
            case "channel": fill(&channel, sc.string().flatMap(OrderChannel.init(rawValue:)))
            case "userId": fill(&userId, sc.string())
            case "deviceId": fill(&deviceId, sc.string())
            case "state": fill(&state, sc.string().flatMap(OrderState.init(rawValue:)))
            case "lines": fill(&lines, sc.list(of: OrderLine.self, atMost: 1_024))
            case "total": fill(&total, sc.integer())
            case "pickupStart": fill(&pickupStart, sc.timestamp())
            case "pickupEnd": fill(&pickupEnd, sc.timestamp())
            case "placedAt": fill(&placedAt, sc.timestamp())
            case "customerHere": fill(&customerHere, sc.bool())
            case "clipCode": fill(&clipCode, sc.string())
            case "paced": fill(&paced, sc.bool())
            case "approachedAt": fill(&approachedAt, sc.timestamp())
            case "expectedArrivalAt": fill(&expectedArrivalAt, sc.timestamp())
            case "awayAt": fill(&awayAt, sc.timestamp())
            case "awayWalkSeconds": fill(&awayWalkSeconds, sc.int())
            case "overdueAt": fill(&overdueAt, sc.timestamp())
            case "recalls": fill(&recalls, sc.int())
            case "noShowAt": fill(&noShowAt, sc.timestamp())
            default: nil
            }
        }
        guard ok, let orderId, let cafeId, let cafeName, let timeZone, let currency, let channel, let state, let lines, let total,
              let pickupStart, let pickupEnd, let placedAt, let customerHere
        else { return nil }
        return OrderSnapshot(orderId: orderId, cafeId: cafeId, cafeName: cafeName, timeZone: timeZone, currency: currency, channel: channel,
                             userId: userId, deviceId: deviceId, state: state, lines: lines, total: total, pickupStart: pickupStart,
                             pickupEnd: pickupEnd, placedAt: placedAt, customerHere: customerHere, clipCode: clipCode, paced: paced,
                             approachedAt: approachedAt, expectedArrivalAt: expectedArrivalAt, overdueAt: overdueAt, recalls: recalls,
                             noShowAt: noShowAt, awayAt: awayAt, awayWalkSeconds: awayWalkSeconds)
    }

    func appendJSON(to out: inout [UInt8]) {
        var o = JSONObjectWriter()
        o.time("approachedAt", approachedAt, &out)
        o.time("awayAt", awayAt, &out)
        o.int("awayWalkSeconds", awayWalkSeconds, &out)
        o.string("cafeId", cafeId, &out)
        o.string("cafeName", cafeName, &out)
        o.word("channel", channel.rawValue, &out)
        o.string("clipCode", clipCode, &out)
        o.string("currency", currency, &out)
        o.bool("customerHere", customerHere, &out)
        o.string("deviceId", deviceId, &out)
        o.time("expectedArrivalAt", expectedArrivalAt, &out)
        o.list("lines", lines, &out) { $0.appendJSON(to: &$1) }
        o.time("noShowAt", noShowAt, &out)
        o.string("orderId", orderId, &out)
        o.time("overdueAt", overdueAt, &out)
        o.bool("paced", paced, &out)
        o.time("pickupEnd", pickupEnd, &out)
        o.time("pickupStart", pickupStart, &out)
        o.time("placedAt", placedAt, &out)
        o.int("recalls", recalls, &out)
        o.word("state", state.rawValue, &out)
        o.string("timeZone", timeZone, &out)
        o.integer("total", total, &out)
        o.string("userId", userId, &out)
        o.end(&out)
    }
}

extension OrderEvent: FastJSONDecodable {
    static func read(from scanner: inout JSONScanner) -> OrderEvent? {
        var order: OrderSnapshot?, previous: OrderState?, reason: String?, at: Timestamp?
        let ok = scanner.object { sc, key in
            switch key {
            case "order": fill(&order, OrderSnapshot.read(from: &sc))
            case "previous": fill(&previous, sc.string().flatMap(OrderState.init(rawValue:)))
            case "reason": fill(&reason, sc.string())
            case "at": fill(&at, sc.timestamp())
            default: nil
            }
        }
        guard ok, let order, let at else { return nil }
        return OrderEvent(order: order, previous: previous, reason: reason, at: at)
    }

    func appendJSON(to out: inout [UInt8]) {
        var o = JSONObjectWriter()
        o.time("at", at, &out)
        o.name("order", &out)
        order.appendJSON(to: &out)
        o.word("previous", previous?.rawValue, &out)
        o.string("reason", reason, &out)
        o.end(&out)
    }
}

extension KitchenEvent: FastJSONDecodable {
    static func read(from scanner: inout JSONScanner) -> KitchenEvent? {
        var orderId: String?, cafeId: String?, ticketId: String?, station: String?, at: Timestamp?
        let ok = scanner.object { sc, key in
            switch key {
            case "orderId": fill(&orderId, sc.string())
            case "cafeId": fill(&cafeId, sc.string())
            case "ticketId": fill(&ticketId, sc.string())
            case "station": fill(&station, sc.string())
            case "at": fill(&at, sc.timestamp())
            default: nil
            }
        }
        guard ok, let orderId, let cafeId, let at else { return nil }
        return KitchenEvent(orderId: orderId, cafeId: cafeId, ticketId: ticketId, station: station, at: at)
    }

    func appendJSON(to out: inout [UInt8]) {
        var o = JSONObjectWriter()
        o.time("at", at, &out)
        o.string("cafeId", cafeId, &out)
        o.string("orderId", orderId, &out)
        o.string("station", station, &out)
        o.string("ticketId", ticketId, &out)
        o.end(&out)
    }
}

extension KitchenPacing.StationFire: FastJSONDecodable {
    static func read(from scanner: inout JSONScanner) -> KitchenPacing.StationFire? {
        var ticketId: String?, station: String?, fireAt: Timestamp?
        let ok = scanner.object { sc, key in
            switch key {
            case "ticketId": fill(&ticketId, sc.string())
            case "station": fill(&station, sc.string())
            case "fireAt": fill(&fireAt, sc.timestamp())
            default: nil
            }
        }
        guard ok, let ticketId, let station, let fireAt else { return nil }
        return KitchenPacing.StationFire(ticketId: ticketId, station: station, fireAt: fireAt)
    }

    func appendJSON(to out: inout [UInt8]) {
        var o = JSONObjectWriter()
        o.time("fireAt", fireAt, &out)
        o.string("station", station, &out)
        o.string("ticketId", ticketId, &out)
        o.end(&out)
    }
}

extension KitchenPacing: FastJSONDecodable {
    static func read(from scanner: inout JSONScanner) -> KitchenPacing? {
        var orderId: String?, cafeId: String?, target: Timestamp?, previousTarget: Timestamp?, reason: PacingReason?
        var expectedArrival: Timestamp?, fires: [StationFire]?, at: Timestamp?
        let ok = scanner.object { sc, key in
            switch key {
            case "orderId": fill(&orderId, sc.string())
            case "cafeId": fill(&cafeId, sc.string())
            case "target": fill(&target, sc.timestamp())
            case "previousTarget": fill(&previousTarget, sc.timestamp())
            case "reason": fill(&reason, sc.string().flatMap(PacingReason.init(rawValue:)))
            case "expectedArrival": fill(&expectedArrival, sc.timestamp())
            case "fires": fill(&fires, sc.list(of: StationFire.self, atMost: 1_024))
            case "at": fill(&at, sc.timestamp())
            default: nil
            }
        }
        guard ok, let orderId, let cafeId, let target, let reason, let fires, let at else { return nil }
        return KitchenPacing(orderId: orderId, cafeId: cafeId, target: target, previousTarget: previousTarget, reason: reason,
                             expectedArrival: expectedArrival, fires: fires, at: at)
    }

    func appendJSON(to out: inout [UInt8]) {
        var o = JSONObjectWriter()
        o.time("at", at, &out)
        o.string("cafeId", cafeId, &out)
        o.time("expectedArrival", expectedArrival, &out)
        o.list("fires", fires, &out) { $0.appendJSON(to: &$1) }
        o.string("orderId", orderId, &out)
        o.time("previousTarget", previousTarget, &out)
        o.word("reason", reason.rawValue, &out)
        o.time("target", target, &out)
        o.end(&out)
    }
}

extension DeviceNotification: FastJSONDecodable {
    static func read(from scanner: inout JSONScanner) -> DeviceNotification? {
        var notificationId: String?, deviceId: String?, kind: NotificationKind?, collapseId: String?, title: String?, body: String?
        var language: String?, orderId: String?, expiresAt: Timestamp?, createdAt: Timestamp?, undeliverableReason: String?
        var requestedLanguage: String?, reminderId: String?, cafeId: String?
        let ok = scanner.object { sc, key in
            switch key {
            case "notificationId": fill(&notificationId, sc.string())
            case "deviceId": fill(&deviceId, sc.string())
            case "kind": fill(&kind, sc.string().flatMap(NotificationKind.init(rawValue:)))
            case "collapseId": fill(&collapseId, sc.string())
            case "title": fill(&title, sc.string())
            case "body": fill(&body, sc.string())
            case "language": fill(&language, sc.string())
            case "orderId": fill(&orderId, sc.string())
            case "expiresAt": fill(&expiresAt, sc.timestamp())
            case "createdAt": fill(&createdAt, sc.timestamp())
            case "undeliverableReason": fill(&undeliverableReason, sc.string())
            case "requestedLanguage": fill(&requestedLanguage, sc.string())
            case "reminderId": fill(&reminderId, sc.string())
            case "cafeId": fill(&cafeId, sc.string())
            default: nil
            }
        }
        guard ok, let notificationId, let deviceId, let kind, let collapseId, let title, let body, let language, let createdAt else { return nil }
        return DeviceNotification(notificationId: notificationId, deviceId: deviceId, kind: kind, collapseId: collapseId, title: title, body: body,
                                  language: language, orderId: orderId, expiresAt: expiresAt, createdAt: createdAt,
                                  undeliverableReason: undeliverableReason, requestedLanguage: requestedLanguage, reminderId: reminderId,
                                  cafeId: cafeId)
    }

    func appendJSON(to out: inout [UInt8]) {
        var o = JSONObjectWriter()
        o.string("body", body, &out)
        o.string("cafeId", cafeId, &out)
        o.string("collapseId", collapseId, &out)
        o.time("createdAt", createdAt, &out)
        o.string("deviceId", deviceId, &out)
        o.time("expiresAt", expiresAt, &out)
        o.word("kind", kind.rawValue, &out)
        o.string("language", language, &out)
        o.string("notificationId", notificationId, &out)
        o.string("orderId", orderId, &out)
        o.string("reminderId", reminderId, &out)
        o.string("requestedLanguage", requestedLanguage, &out)
        o.string("title", title, &out)
        o.string("undeliverableReason", undeliverableReason, &out)
        o.end(&out)
    }
}

/// An order as order-service answers `order.place`, `order.get` and the rest with, and stores
/// beside each idempotency key: the event's snapshot with its total and pickup time formatted.
extension OrderView: FastJSONEncodable, FastJSONReplyBody {
    func appendReplyBody(to out: inout [UInt8]) -> Bool {
        var o = JSONObjectWriter()
        o.name("order", &out)
        order.appendJSON(to: &out)
        o.string("pickupLabel", pickupLabel, &out)
        o.name("total", &out)
        var t = JSONObjectWriter()
        t.string("currency", total.currency, &out)
        t.string("formatted", total.formatted, &out)
        t.integer("minorUnits", total.minorUnits, &out)
        t.end(&out)
        o.end(&out)
        return true
    }

    func fastEncoded() -> Data? {
        var out: [UInt8] = []
        out.reserveCapacity(2_048)
        _ = appendReplyBody(to: &out)
        return Data(out)
    }
}

/// A kitchen ticket's lines, as kitchen-display stores them with each ticket and reads them back
/// whenever it loads one (every bump), and its tickets as it answers bumps with.
extension TicketLine: FastJSONDecodable {
    static func read(from scanner: inout JSONScanner) -> TicketLine? {
        var name: String?, quantity: Int?, modifiers: [String]?, prepSeconds: Int?, itemId: String?
        let ok = scanner.object { sc, key in
            switch key {
            case "name": fill(&name, sc.string())
            case "quantity": fill(&quantity, sc.int())
            case "modifiers": fill(&modifiers, sc.strings(atMost: 1_024))
            case "prepSeconds": fill(&prepSeconds, sc.int())
            case "itemId": fill(&itemId, sc.string())
            default: nil
            }
        }
        guard ok, let name, let quantity, let modifiers else { return nil }
        return TicketLine(name: name, quantity: quantity, modifiers: modifiers, prepSeconds: prepSeconds, itemId: itemId)
    }

    func appendJSON(to out: inout [UInt8]) {
        var o = JSONObjectWriter()
        o.string("itemId", itemId, &out)
        o.list("modifiers", modifiers, &out) { JSONText.appendQuoted($0, to: &$1) }
        o.string("name", name, &out)
        o.int("prepSeconds", prepSeconds, &out)
        o.int("quantity", quantity, &out)
        o.end(&out)
    }
}

extension Array: FastJSONDecodable where Element == TicketLine {
    static func read(from scanner: inout JSONScanner) -> [TicketLine]? { scanner.list(of: TicketLine.self, atMost: 1_024) }
}

extension Array: FastJSONEncodable where Element == TicketLine {
    func fastEncoded() -> Data? {
        var out: [UInt8] = []
        out.reserveCapacity(64 + 96 * count)
        JSONObjectWriter.appendList(self, &out) { $0.appendJSON(to: &$1) }
        return Data(out)
    }
}

extension TicketView: FastJSONEncodable, FastJSONReplyBody {
    func appendReplyBody(to out: inout [UInt8]) -> Bool {
        var o = JSONObjectWriter()
        o.int("ageSeconds", ageSeconds, &out)
        o.bool("arriving", arriving, &out)
        o.time("bumpedAt", bumpedAt, &out)
        o.string("cafeId", cafeId, &out)
        o.time("closedAt", closedAt, &out)
        o.word("colour", colour?.rawValue, &out)
        o.time("createdAt", createdAt, &out)
        o.bool("customerHere", customerHere, &out)
        o.time("fireAt", fireAt, &out)
        o.word("firing", firing?.rawValue, &out)
        o.int("holdSeconds", holdSeconds, &out)
        o.list("lines", lines, &out) { $0.appendJSON(to: &$1) }
        o.string("orderId", orderId, &out)
        o.bool("overdue", overdue, &out)
        o.time("pickupStart", pickupStart, &out)
        o.int("prepSeconds", prepSeconds, &out)
        o.bool("rush", rush, &out)
        o.word("state", state.rawValue, &out)
        o.string("station", station, &out)
        o.time("targetReadyAt", targetReadyAt, &out)
        o.string("ticketId", ticketId, &out)
        o.end(&out)
        return true
    }

    func fastEncoded() -> Data? {
        var out: [UInt8] = []
        out.reserveCapacity(1_024)
        _ = appendReplyBody(to: &out)
        return Data(out)
    }
}

/// The order flow's requests: a reservation, an order, a chef's command. A request whose body has
/// a reader is read whole by `Request`'s reader; an App Clip order (`clip`) is Foundation's.
extension TicketCommand: FastJSONDecodable {
    static func read(from scanner: inout JSONScanner) -> TicketCommand? {
        var ticketId: String?
        let ok = scanner.object { sc, key in
            switch key {
            case "ticketId": fill(&ticketId, sc.string())
            default: nil
            }
        }
        guard ok, let ticketId else { return nil }
        return TicketCommand(ticketId: ticketId)
    }
}

extension ReserveRequest: FastJSONDecodable {
    static func read(from scanner: inout JSONScanner) -> ReserveRequest? {
        var cafeId: String?, start: Timestamp?, userId: String?, locale: String?
        let ok = scanner.object { sc, key in
            switch key {
            case "cafeId": fill(&cafeId, sc.string())
            case "start": fill(&start, sc.timestamp())
            case "userId": fill(&userId, sc.string())
            case "locale": fill(&locale, sc.string())
            default: nil
            }
        }
        guard ok, let cafeId, let locale else { return nil }
        return ReserveRequest(cafeId: cafeId, start: start, userId: userId, locale: locale)
    }
}

extension OrderItemRequest: FastJSONDecodable {
    static func read(from scanner: inout JSONScanner) -> OrderItemRequest? {
        var itemId: String?, quantity: Int?, modifiers: [String]?
        let ok = scanner.object { sc, key in
            switch key {
            case "itemId": fill(&itemId, sc.string())
            case "quantity": fill(&quantity, sc.int())
            case "modifiers": fill(&modifiers, sc.strings(atMost: 1_024))
            default: nil
            }
        }
        guard ok, let itemId, let quantity else { return nil }
        return OrderItemRequest(itemId: itemId, quantity: quantity, modifiers: modifiers)
    }
}

extension PlaceOrderRequest: FastJSONDecodable {
    static func read(from scanner: inout JSONScanner) -> PlaceOrderRequest? {
        var idempotencyKey: String?, channel: OrderChannel?, userId: String?, deviceId: String?, cafeId: String?, reservationId: String?
        var items: [OrderItemRequest]?, paymentToken: String?, locale: String?
        let ok = scanner.object { sc, key in
            switch key {
            case "idempotencyKey": fill(&idempotencyKey, sc.string())
            case "channel": fill(&channel, sc.string().flatMap(OrderChannel.init(rawValue:)))
            case "userId": fill(&userId, sc.string())
            case "deviceId": fill(&deviceId, sc.string())
            case "cafeId": fill(&cafeId, sc.string())
            case "reservationId": fill(&reservationId, sc.string())
            case "items": fill(&items, sc.list(of: OrderItemRequest.self, atMost: 1_024))
            case "paymentToken": fill(&paymentToken, sc.string())
            case "locale": fill(&locale, sc.string())
            // An App Clip's launch: Foundation's route reads it.
            case "clip": false
            default: nil
            }
        }
        guard ok, let idempotencyKey, let channel, let cafeId, let reservationId, let items, let locale else { return nil }
        return PlaceOrderRequest(idempotencyKey: idempotencyKey, channel: channel, userId: userId, deviceId: deviceId, cafeId: cafeId,
                                 reservationId: reservationId, items: items, paymentToken: paymentToken, locale: locale)
    }
}

/// The bodies alone, as the edge sends them to a browser or phone on a stream (`order.<id>`,
/// `device.<id>`): the same writers as inside their envelopes.
extension OrderEvent: FastJSONEncodable {
    func fastEncoded() -> Data? { Data(written { appendJSON(to: &$0) }) }
}

extension DeviceNotification: FastJSONEncodable {
    func fastEncoded() -> Data? { Data(written { appendJSON(to: &$0) }) }
}

extension KitchenEvent: FastJSONEncodable {
    func fastEncoded() -> Data? { Data(written { appendJSON(to: &$0) }) }
}

extension KitchenPacing: FastJSONEncodable {
    func fastEncoded() -> Data? { Data(written { appendJSON(to: &$0) }) }
}

/// The bytes `write` appends to an empty buffer made for a body of an order-flow event's size.
private func written(_ write: (inout [UInt8]) -> Void) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(2_048)
    write(&out)
    return out
}
