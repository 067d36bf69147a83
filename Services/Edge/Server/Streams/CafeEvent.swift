import EdgeCore
import Messages

/// A bus event as a café's screens see it (issue 29): the café and a small JSON object saying
/// what changed. Order events (`order.*`), kitchen events (`kitchen.*`) and 86 marks
/// (`menu.availability`) are screen events; nothing else is. The data never carries an item, a
/// price, a device or a user id: the pickup board hangs on a TV in the café, so an order is
/// named by its short number and, for a signed-in app customer, an initial (`PickupLabel`).
public struct CafeEvent: Sendable, Equatable {
    public let cafeId: String
    public let type: String
    public let data: [UInt8]

    /// What `envelope` is on its café's screens, or nil when it is not a screen event.
    public static func of(_ envelope: Envelope) -> CafeEvent? {
        let type = envelope.type.rawValue
        switch envelope.body {
        case .order(let event) where envelope.stream == "order":
            let order = event.order
            var members: [(String, JSONValue)] = [("type", .string(type)), ("orderId", .string(order.orderId)),
                                                  ("state", .string(order.state.rawValue)), ("number", .string(PickupLabel.number(order.orderId)))]
            if let initial = PickupLabel.initial(channel: order.channel, userId: order.userId) { members.append(("label", .string(initial))) }
            return CafeEvent(cafeId: order.cafeId, type: type, data: JSONValue.object(members).encoded())
        case .kitchen(let event) where envelope.stream == "kitchen":
            var members: [(String, JSONValue)] = [("type", .string(type)), ("orderId", .string(event.orderId))]
            if let ticketId = event.ticketId { members.append(("ticketId", .string(ticketId))) }
            if let station = event.station { members.append(("station", .string(station))) }
            return CafeEvent(cafeId: event.cafeId, type: type, data: JSONValue.object(members).encoded())
        case .paced(let pacing) where envelope.stream == "kitchen":
            return CafeEvent(cafeId: pacing.cafeId, type: type,
                             data: JSONValue.object([("type", .string(type)), ("orderId", .string(pacing.orderId))]).encoded())
        case .availability(let mark) where envelope.stream == "menu":
            return CafeEvent(cafeId: mark.cafeId, type: type, data: JSONValue.object([
                ("type", .string(type)), ("itemId", .string(mark.itemId)), ("available", .bool(mark.available)),
            ]).encoded())
        default:
            return nil
        }
    }
}

/// How the pickup board names an order without naming the customer.
public enum PickupLabel {
    /// The order's short number: the first four letters or digits after its prefix, in capitals
    /// (`ord_8c1f2a…` → `8C1F`). Short enough to call out; about one chance in 65,000 that two
    /// orders on the board share one.
    public static func number(_ orderId: String) -> String {
        let body = orderId.split(separator: "_", maxSplits: 1).last.map(String.init) ?? orderId
        let characters = body.unicodeScalars.filter { ($0.value < 0x80) && (CharacterSetASCII.isAlphanumeric($0)) }
        return String(String.UnicodeScalarView(characters.prefix(4))).uppercased()
    }

    /// An app customer's initial from the user id (`alice` → `A.`). The platform keeps no names:
    /// a user id derived from a sign-in (`u-…`) says nothing a person would recognise, and a
    /// kiosk or App Clip guest has none, so those show by number only.
    public static func initial(channel: OrderChannel, userId: String?) -> String? {
        guard channel == .app, let userId, !userId.hasPrefix("u-"), let first = userId.unicodeScalars.first,
              first.value < 0x80, CharacterSetASCII.isAlphanumeric(first) else { return nil }
        return String(first).uppercased() + "."
    }
}

enum CharacterSetASCII {
    static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        default: false
        }
    }
}

extension StreamChannel {
    /// The channel of a café's screen events (`CafeEvent`).
    public static func cafe(_ cafeId: String) -> String { "cafe:" + escape(cafeId) }

    /// The channel every screen stream also holds: the edge's heartbeat, once a second, so a page
    /// can tell a quiet café from an edge that stopped (Pushpin's keep-alives go on without it).
    public static let screens = "screens"
}
