import Messages

/// What the seeded campus walk (`CampusWalk`) makes each condition go through, in order, and the
/// nearest beacon's changes: the same for every seed. The engine test (`CampusWalkTests`) expects
/// it from the engine in process, the platform test (`WalkReplayTests`) from `cafectl tail region.`.
public enum CampusWalkExpectation {
    /// A nearest answer as the expectation writes it: "major/minor" of a named beacon, "none", or
    /// "candidates" and the candidate cafés' majors in order ("candidates 2,1").
    public static func describe(_ nearest: NearestBeacon) -> String {
        if let beacon = nearest.beacon { return "\(beacon.major)/\(beacon.minor)" }
        guard let candidates = nearest.candidates, !candidates.isEmpty else { return "none" }
        return "candidates " + candidates.map { "\($0.major)" }.joined(separator: ",")
    }

    /// Condition identifier (or `nearest`) → its states in order.
    public static let perCondition: [String: [String]] = [
        "caffe-macs.area": ["unsatisfied", "satisfied", "unsatisfied"],
        "macs-coffee.area": ["unsatisfied", "satisfied", "unsatisfied"],
        "parmer-lane-5.area": ["unsatisfied"],
        "munich-cafe.area": ["unsatisfied"],
        "london-cafe.area": ["unsatisfied"],
        "tokyo-cafe.area": ["unsatisfied"],
        // The approach areas (150–200 m) the kitchen paces orders by: entered on the way in, left on the way out.
        "caffe-macs.approach": ["unsatisfied", "satisfied", "unsatisfied"],
        "macs-coffee.approach": ["unsatisfied", "satisfied", "unsatisfied"],
        "parmer-lane-5.approach": ["unsatisfied"],
        "munich-cafe.approach": ["unsatisfied"],
        "london-cafe.approach": ["unsatisfied"],
        "tokyo-cafe.approach": ["unsatisfied"],
        "caffe-macs": ["satisfied 1/1", "unsatisfied"],
        "macs-coffee": ["satisfied 2/1", "unsatisfied"],
        // No beacon is near on the 40 m between the counters: the answer ends one freshness after
        // the last near sighting. At the coffee station Caffè Macs' counter beacon, heard on the way,
        // still leads the evidence window's mean (it held the phone's minutes at that counter): both
        // cafés are candidates until the coffee station's beacon leads by the margin.
        "nearest": ["1/1", "none", "candidates 1,2", "2/1", "none"],
    ]
}
