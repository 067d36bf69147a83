import Messages

/// One device's smoothers, by beacon. A phone hears a few beacons at a time, so up to
/// `linearLimit` are kept in an array searched in order (major and minor compared before the
/// UUID) with no hashing: a dictionary hashed each sighting's 36-byte UUID, and with the device's
/// own entry that was two hashes a sighting, about a tenth of beacon-ingest's samples in bench
/// (b). Past the limit a dictionary takes over, so a device reporting thousands of beacons costs
/// a hash a sighting, never a walk of them all.
struct BeaconSmoothers {
    static let linearLimit = 8

    private var few: [(beacon: BeaconIdentity, smoother: RSSISmoother)] = []
    private var many: [BeaconIdentity: RSSISmoother]?

    init() {}

    private init(_ beacons: [BeaconIdentity: RSSISmoother]) {
        if beacons.count > Self.linearLimit {
            many = beacons
        } else {
            few = beacons.map { ($0.key, $0.value) }
        }
    }

    /// Beacons with a smoother.
    var count: Int { many?.count ?? few.count }

    var isEmpty: Bool { count == 0 }

    /// Runs `body` on `beacon`'s smoother, made by `make` when the device has none for it yet.
    mutating func update<R>(_ beacon: BeaconIdentity, make: () -> RSSISmoother, _ body: (inout RSSISmoother) -> R) -> R {
        if many != nil { return body(&many![beacon, default: make()]) }
        for index in few.indices where few[index].beacon.major == beacon.major && few[index].beacon.minor == beacon.minor && few[index].beacon.uuid == beacon.uuid {
            return body(&few[index].smoother)
        }
        if few.count < Self.linearLimit {
            few.append((beacon, make()))
            return body(&few[few.count - 1].smoother)
        }
        var all = Dictionary(uniqueKeysWithValues: few.lazy.map { ($0.beacon, $0.smoother) })
        few = []
        let result = body(&all[beacon, default: make()])
        many = all
        return result
    }

    /// Whether any smoother fails `isLive`.
    func containsIdle(_ isLive: (RSSISmoother) -> Bool) -> Bool {
        if let many { return many.values.contains { !isLive($0) } }
        return few.contains { !isLive($0.smoother) }
    }

    /// The smoothers that pass `isLive`; nil when none does.
    func keeping(_ isLive: (RSSISmoother) -> Bool) -> BeaconSmoothers? {
        let kept = if let many { BeaconSmoothers(many.filter { isLive($0.value) }) } else { BeaconSmoothers(few: few.filter { isLive($0.smoother) }) }
        return kept.isEmpty ? nil : kept
    }

    private init(few: [(beacon: BeaconIdentity, smoother: RSSISmoother)]) {
        self.few = few
    }
}
