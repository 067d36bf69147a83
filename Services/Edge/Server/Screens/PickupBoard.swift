import EdgeCore
import Foundation

/// The customer pickup board: each order of the café still to be handed over, preparing or
/// ready, named by its short number and, for a signed-in app customer, an initial. Folded from
/// the café's screen events (`CafeEvent`) in order: an order's last `state` decides, and an order
/// picked up, cancelled or marked no-show leaves the board. Nothing else of the order is there.
public struct PickupBoard {
    /// The board's snapshot folds at most this many of the café's newest events (a day of a busy
    /// café is a few thousand); an order whose events are all older drops off.
    public static let maxEvents = 20_000

    /// One order on the board.
    public struct Entry: Sendable, Equatable {
        public let orderId: String
        public let number: String
        public let label: String?
        /// `preparing` (placed, accepted or preparing) or `ready`.
        public let column: String

        var json: JSONValue {
            var members: [(String, JSONValue)] = [("orderId", .string(orderId)), ("number", .string(number)), ("column", .string(column))]
            if let label { members.append(("label", .string(label))) }
            return .object(members)
        }
    }

    /// The board after `events` (each a `CafeEvent`'s data), in the order the orders were placed.
    public static func fold(_ events: [[UInt8]]) -> [Entry] {
        var entries: [String: Entry] = [:]
        var order: [String] = []
        for data in events {
            guard let object = try? JSONSerialization.jsonObject(with: Data(data)) as? [String: Any],
                  let type = object["type"] as? String, type.hasPrefix("order."),
                  let orderId = object["orderId"] as? String, let state = object["state"] as? String,
                  let number = object["number"] as? String else { continue }
            guard let column = column(of: state) else {
                entries[orderId] = nil
                continue
            }
            if entries[orderId] == nil, !order.contains(orderId) { order.append(orderId) }
            entries[orderId] = Entry(orderId: orderId, number: number, label: object["label"] as? String, column: column)
        }
        return order.compactMap { entries[$0] }
    }

    /// The items still 86'd after `events` (each a `CafeEvent`'s data): the last
    /// `menu.availability` of each item decides. (The kitchen screen's, not the board's.)
    public static func unavailable(_ events: [[UInt8]]) -> [String] {
        var available: [String: Bool] = [:]
        for data in events {
            guard let object = try? JSONSerialization.jsonObject(with: Data(data)) as? [String: Any],
                  object["type"] as? String == "menu.availability", let itemId = object["itemId"] as? String,
                  let flag = object["available"] as? Bool else { continue }
            available[itemId] = flag
        }
        return available.filter { !$0.value }.keys.sorted()
    }

    /// The board's column for an order state; nil when the order leaves the board.
    public static func column(of state: String) -> String? {
        switch state {
        case "placed", "accepted", "preparing": "preparing"
        case "ready": "ready"
        default: nil
        }
    }
}
