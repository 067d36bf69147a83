import Messages

/// Event flags as a bit set, in `EventFlag.allCases` order.
struct FlagSet: Equatable {
    var bits: UInt8 = 0

    static let none = FlagSet()
    static let accuracyLimited = FlagSet(.accuracyLimited)
    static let authorizationDenied = FlagSet(.authorizationDenied)
    static let conditionUnsupported = FlagSet(.conditionUnsupported)

    init() {}

    init(_ flag: EventFlag) {
        bits = 1 << UInt8(EventFlag.allCases.firstIndex(of: flag)!)
    }

    init(_ flags: [EventFlag]) {
        for flag in flags { bits |= FlagSet(flag).bits }
    }

    var flags: [EventFlag] {
        EventFlag.allCases.enumerated().filter { bits & (1 << UInt8($0.offset)) != 0 }.map(\.element)
    }
}

/// One condition's record for one device. Every change of state or flags is announced, so the
/// record's state, flags and refinement are those of its last event (when it has one).
struct CompactRecord {
    static let none = Int64.min
    /// The condition's entry in the engine.
    var entry: Int32
    var state: ConditionState
    var flags = FlagSet.none
    var refinement: CompactBeacon?
    /// The last state the record was decided in (satisfied or unsatisfied), kept while it is
    /// `unknown`: a circle's hysteresis and dwell apply from it. `unknown` until first decided.
    /// One byte in the padding after `refinement`: the record is no larger (40 bytes).
    var decided: ConditionState
    /// The last matching sighting (beacon conditions).
    var lastSeen: Int64 = none
    /// Since when the device has been inside a circle that is waiting out its dwell time.
    var pendingSince: Int64 = none
    /// When the last event was announced; `none` while the state is only assumed.
    var eventDate: Int64 = none

    init(entry: Int, state: ConditionState) {
        self.entry = Int32(entry)
        self.state = state
        decided = state
    }
}
