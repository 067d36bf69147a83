/// The body of a pub/sub envelope, one case per body schema. The envelope's `type` picks the case.
public enum EventBody: Sendable, Equatable {
    case sighting(Sighting)
    case sightings(SightingBatch)
    case locationFix(LocationFix)
    case deviceStatus(DeviceStatus)
    case region(RegionEvent)
    case nearest(NearestBeacon)
    case purged(LocationPurged)
    case order(OrderEvent)
    case kitchen(KitchenEvent)
    case paced(KitchenPacing)
    case availability(MenuAvailability)
    case notification(DeviceNotification)
    case heartbeat(Heartbeat)
    case deadLetter(DeadLetter)
}

/// Every event type on the bus and the body schema it carries.
public enum EventType: String, Sendable, CaseIterable, Codable {
    case sightingReported = "sighting.reported"
    /// Many sightings of one shard in one message: what beacon-ingest publishes.
    case sightingBatch = "sighting.batch"
    case locationFix = "location.fix"
    case deviceStatus = "device.status"
    case regionEvent = "region.event"
    case regionNearest = "region.nearest"
    case regionPurged = "region.purged"
    case orderPlaced = "order.placed"
    case orderAccepted = "order.accepted"
    case orderPreparing = "order.preparing"
    case orderReady = "order.ready"
    case orderPickedUp = "order.pickedUp"
    case orderCancelled = "order.cancelled"
    case orderNoShow = "order.noShow"
    case orderArrived = "order.arrived"
    /// A guest's App Clip orders moved to the account they signed in with (the state is unchanged).
    case orderClaimed = "order.claimed"
    /// The customer entered the café's approach area: the kitchen may pace the order (no transition).
    case orderApproaching = "order.approaching"
    /// An accepted or preparing order is past its window end plus grace: escalated, never closed (no transition).
    case orderOverdue = "order.overdue"
    /// The kitchen set or moved an order's target ready time and its tickets' fire times.
    case kitchenPaced = "kitchen.paced"
    /// An item was marked unavailable at a café ("86'd") or back on.
    case menuAvailability = "menu.availability"
    case kitchenStarted = "kitchen.started"
    case kitchenBumped = "kitchen.bumped"
    case kitchenReady = "kitchen.ready"
    case kitchenRecalled = "kitchen.recalled"
    case notifyDelivery = "notify.delivery"
    case notifyUndeliverable = "notify.undeliverable"
    case heartbeat = "heartbeat"
    case deadLetter = "deadletter"

    /// The order event type for a state.
    public static func order(_ state: OrderState) -> EventType {
        switch state {
        case .placed: .orderPlaced
        case .accepted: .orderAccepted
        case .preparing: .orderPreparing
        case .ready: .orderReady
        case .pickedUp: .orderPickedUp
        case .cancelled: .orderCancelled
        case .noShow: .orderNoShow
        }
    }

    /// Whether a body matches this type's schema.
    func accepts(_ body: EventBody) -> Bool {
        switch (self, body) {
        case (.sightingReported, .sighting), (.sightingBatch, .sightings), (.locationFix, .locationFix), (.deviceStatus, .deviceStatus),
             (.regionEvent, .region), (.regionNearest, .nearest), (.regionPurged, .purged),
             (.orderPlaced, .order), (.orderAccepted, .order), (.orderPreparing, .order), (.orderReady, .order),
             (.orderPickedUp, .order), (.orderCancelled, .order), (.orderNoShow, .order), (.orderArrived, .order), (.orderClaimed, .order),
             (.orderApproaching, .order), (.orderOverdue, .order), (.kitchenPaced, .paced), (.menuAvailability, .availability),
             (.kitchenStarted, .kitchen), (.kitchenBumped, .kitchen), (.kitchenReady, .kitchen), (.kitchenRecalled, .kitchen),
             (.notifyDelivery, .notification), (.notifyUndeliverable, .notification),
             (.heartbeat, .heartbeat), (.deadLetter, .deadLetter):
            true
        default:
            false
        }
    }

    func decodeBody<K: CodingKey>(from container: KeyedDecodingContainer<K>, key: K) throws -> EventBody {
        switch self {
        case .sightingReported: .sighting(try container.decode(Sighting.self, forKey: key))
        case .sightingBatch: .sightings(try container.decode(SightingBatch.self, forKey: key))
        case .locationFix: .locationFix(try container.decode(LocationFix.self, forKey: key))
        case .deviceStatus: .deviceStatus(try container.decode(DeviceStatus.self, forKey: key))
        case .regionEvent: .region(try container.decode(RegionEvent.self, forKey: key))
        case .regionNearest: .nearest(try container.decode(NearestBeacon.self, forKey: key))
        case .regionPurged: .purged(try container.decode(LocationPurged.self, forKey: key))
        case .orderPlaced, .orderAccepted, .orderPreparing, .orderReady, .orderPickedUp, .orderCancelled, .orderNoShow, .orderArrived, .orderClaimed,
             .orderApproaching, .orderOverdue:
            .order(try container.decode(OrderEvent.self, forKey: key))
        case .kitchenPaced: .paced(try container.decode(KitchenPacing.self, forKey: key))
        case .menuAvailability: .availability(try container.decode(MenuAvailability.self, forKey: key))
        case .kitchenStarted, .kitchenBumped, .kitchenReady, .kitchenRecalled:
            .kitchen(try container.decode(KitchenEvent.self, forKey: key))
        case .notifyDelivery, .notifyUndeliverable: .notification(try container.decode(DeviceNotification.self, forKey: key))
        case .heartbeat: .heartbeat(try container.decode(Heartbeat.self, forKey: key))
        case .deadLetter: .deadLetter(try container.decode(DeadLetter.self, forKey: key))
        }
    }
}

extension EventBody {
    func encode<K: CodingKey>(into container: inout KeyedEncodingContainer<K>, key: K) throws {
        switch self {
        case .sighting(let b): try container.encode(b, forKey: key)
        case .sightings(let b): try container.encode(b, forKey: key)
        case .locationFix(let b): try container.encode(b, forKey: key)
        case .deviceStatus(let b): try container.encode(b, forKey: key)
        case .region(let b): try container.encode(b, forKey: key)
        case .nearest(let b): try container.encode(b, forKey: key)
        case .purged(let b): try container.encode(b, forKey: key)
        case .order(let b): try container.encode(b, forKey: key)
        case .kitchen(let b): try container.encode(b, forKey: key)
        case .paced(let b): try container.encode(b, forKey: key)
        case .availability(let b): try container.encode(b, forKey: key)
        case .notification(let b): try container.encode(b, forKey: key)
        case .heartbeat(let b): try container.encode(b, forKey: key)
        case .deadLetter(let b): try container.encode(b, forKey: key)
        }
    }
}
