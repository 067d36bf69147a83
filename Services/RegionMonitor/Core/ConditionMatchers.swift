// A condition compiled into what the engine tests: a beacon matcher on interned UUIDs, a circle
// with its durations in milliseconds.

/// A beacon condition as the hot path tests it.
struct Matcher {
    var uuid: Int16
    var major: Int?
    var minor: Int?

    func matches(_ beacon: CompactBeacon) -> Bool {
        beacon.uuid == uuid && (major.map { $0 == Int(beacon.major) } ?? true) && (minor.map { $0 == Int(beacon.minor) } ?? true)
    }
}

/// A circle in the units the engine tests it with.
struct Circle {
    var latitude: Double
    var longitude: Double
    var radius: Double
    var hysteresis: Double
    var dwellMilliseconds: Int64
}
