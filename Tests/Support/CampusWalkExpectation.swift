/// What the seeded campus walk (`CampusWalk`) makes each condition go through, in order, and the
/// nearest beacon's changes: the same for every seed. The engine test (`CampusWalkTests`) expects
/// it from the engine in process, the platform test (`WalkReplayTests`) from `cafectl tail region.`.
public enum CampusWalkExpectation {
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
        // No beacon is near on the 40 m between the counters: the answer ends one freshness after the last near sighting.
        "nearest": ["1/1", "none", "2/1", "none"],
    ]
}
