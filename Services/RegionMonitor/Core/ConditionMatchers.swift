// A condition compiled into what the engine tests: a beacon matcher on interned UUIDs, a circle
// with its durations in milliseconds.

/// A beacon condition as the hot path tests it: 12 bytes, a wildcard major or minor is -1.
struct Matcher {
    var uuid: Int16
    var major: Int32
    var minor: Int32

    /// `major` and `minor` are 0…65535 (`ConditionRules.validate`) or nil for any.
    init(uuid: Int16, major: Int?, minor: Int?) {
        self.uuid = uuid
        self.major = major.map { Int32($0) } ?? -1
        self.minor = minor.map { Int32($0) } ?? -1
    }

    func matches(_ beacon: CompactBeacon) -> Bool {
        beacon.uuid == uuid && (major < 0 || major == Int32(beacon.major)) && (minor < 0 || minor == Int32(beacon.minor))
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
