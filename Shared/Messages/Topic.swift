/// Topic builders. Every topic is dotted and ends with a dot, so a prefix subscription never
/// matches a longer sibling: `order.ready.macs.` does not match `order.ready.macs-park.`.
public enum Topic {
    /// Joins parts into a topic with the trailing dot. Parts must not contain dots.
    public static func make(_ parts: String...) -> String { make(parts) }

    public static func make(_ parts: [String]) -> String {
        precondition(parts.allSatisfy(\.isTopicPart), "topic parts must be non-empty and dot-free: \(parts)")
        var topic = ""
        topic.reserveCapacity(parts.reduce(parts.count) { $0 + $1.utf8.count })
        for part in parts {
            topic += part
            topic += "."
        }
        return topic
    }

    /// The shard (0..<count) that owns a device: a stable FNV-1a hash, the same in every process.
    public static func shard(of deviceID: String, count: Int) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in deviceID.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return Int(hash % UInt64(max(count, 1)))
    }

    public static func sighting(shard: Int) -> String { make("sighting", "s\(shard)") }
    public static func location(shard: Int) -> String { make("location", "s\(shard)") }
    public static func device(shard: Int) -> String { make("device", "s\(shard)") }
    public static func regionEvent(monitor: String) -> String { make("region", "event", monitor) }
    public static let regionNearest = "region.nearest."
    public static let regionPurged = "region.purged."
    /// `order.<state>.<cafe>.`: subscribe to `order.` for all, `order.ready.` for one state.
    public static func order(state: String, cafe: String) -> String { make("order", state, cafe) }
    /// `kitchen.<event>.<cafe>.`, e.g. `kitchen.ready.macs.`.
    public static func kitchen(event: String, cafe: String) -> String { make("kitchen", event, cafe) }
    /// `menu.availability.<cafe>.`: an item 86'd or back on at a café.
    public static func menuAvailability(cafe: String) -> String { make("menu", "availability", cafe) }
    public static func notifyDelivery(device: String) -> String { make("notify", "delivery", device) }
    public static let notifyUndeliverable = "notify.undeliverable."
    public static func heartbeat(source: String) -> String { make("heartbeat", source) }
    public static func deadLetter(service: String) -> String { make("deadletter", service) }
}

extension StringProtocol {
    /// Non-empty and dot-free: fit to be one part of a topic. Bytes, not `contains(".")`: with
    /// Foundation imported that is NSString's `range(of:)`, which was 9% of region-monitor's CPU
    /// on first-seen devices (a topic per region event).
    public var isTopicPart: Bool {
        !isEmpty && !utf8.contains(UInt8(ascii: "."))
    }
}
