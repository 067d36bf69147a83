import Messages
import Policy

extension RouteTable {
    /// The café's screens in a browser (issue 29): a snapshot with a sequence number, then the
    /// café's events from after it. Open to the café's kitchen token only, at its own café: a
    /// `cafeId` naming another café is refused (403) before anything is read. The status page's
    /// two routes are open to an operator's token only.
    static let screens: [Route] = [
        Route(.get, "/v1/screens/kitchen", .screen(.kitchenScreen), access: .roles([.kitchen]),
              summary: "The web kitchen display's snapshot: tickets, expediter orders, all-day counts, recall list, and the seq its events follow",
              query: [cafeFilter, stationFilter], reply: "KitchenScreen"),
        Route(.get, "/v1/screens/pickup", .screen(.pickupBoard), access: .roles([.kitchen]),
              summary: "The pickup board's snapshot: short order numbers and initials, preparing or ready (never items or names)",
              query: [cafeFilter], reply: "PickupBoard"),
        Route(.get, "/v1/screens/events", .stream(.cafeEvents), access: .roles([.kitchen]),
              summary: "The café's screen events (SSE, held open): what changed, without items or names, and a heartbeat every second",
              query: [cafeFilter], headers: [lastEventId], reply: "CafeEventStream"),
        Route(.get, "/v1/screens/status", .screen(.status), access: .roles([.operator]),
              summary: "The status page's snapshot: every process's health as the edge last asked it", reply: "StatusDocument"),
        Route(.get, "/v1/screens/status/events", .stream(.statusEvents), access: .roles([.operator]),
              summary: "The status page's document every 2 s (SSE, held open), and a heartbeat every second", headers: [lastEventId],
              reply: "StatusEventStream"),
    ]
}
