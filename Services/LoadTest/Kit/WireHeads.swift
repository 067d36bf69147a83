import Messages

// The few fields the run reads from replies and events on its hot path: decoding only these is
// cheaper than the whole typed message, and the load generator must not be what limits a run.

/// The parts of an `ingest.batch` reply the hot path reads (the per-report results are skipped).
struct BatchReplyHead: Decodable {
    struct Body: Decodable {
        var accepted: Int
        var rejected: Int
    }

    var ok: Bool
    var body: Body?
    var error: ServiceError?
}

/// The parts of a `region.event` envelope the run needs.
struct RegionEventHead: Decodable {
    struct Body: Decodable {
        var deviceId: String
        var identifier: String
        var state: String
    }

    var body: Body
}

/// The parts of a `notify.delivery` envelope the run needs.
struct NotificationHead: Decodable {
    struct Body: Decodable {
        var orderId: String?
        var kind: String
    }

    var body: Body
}

/// The part of a `kitchen.paced` envelope the run needs: the order whose tickets the kitchen now shows.
struct KitchenPacedHead: Decodable {
    struct Body: Decodable {
        var orderId: String
    }

    var body: Body
}
