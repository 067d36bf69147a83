/// The engine's time constants and limits. Every duration is in seconds.
public struct RegionSettings: Sendable, Equatable {
    /// A beacon condition's exit timeout when the condition names none.
    public var exitTimeout = 30.0
    /// How far beyond the radius a fix must be (uncertainty included) to leave a circle.
    public var hysteresis = 20.0
    /// While a device keeps being seen, its records' last matching sightings are handed out for
    /// storage at least this often, or every quarter of its shortest exit timeout if that is
    /// shorter (and at the next save once it goes quiet), so that after a
    /// restart exits fire when they are due.
    public var sightingSaveInterval = 5.0
    /// How long a device must be inside a circle before it is satisfied, unless the condition says.
    public var dwell = 0.0
    /// How long a near/immediate sighting counts for the nearest-beacon answer.
    public var nearestFreshness = 10.0
    /// How far (dB of mean RSSI over beacon-ingest's evidence window) a café's beacon must lead
    /// every other café's to be named while another café is heard; within it, cafés are candidates.
    public var nearestMargin = 5.0
    /// How many readings that leading mean must be of.
    public var nearestReadings = 25
    /// How much nearer (dB, by the latest smoothed readings) another café's near beacon must be to
    /// end a naming: the phone has likely walked on.
    public var nearestMovedMargin = 8.0
    /// How many readings name a café when no other café's beacon is heard.
    public var nearestAloneReadings = 3
    /// How old the latest fix may be to order cafés by distance; also how long a device's latest
    /// precise fix keeps its circles' decided states through approximate fixes that cannot decide them.
    public var fixFreshness = 120.0
    /// The least uncertainty, in metres, an approximate fix counts with, whatever it claims: an
    /// approximate location is "usually within 1–20 kilometers of the actual location" (Core
    /// Location's `kCLLocationAccuracyReduced`).
    public var approximateUncertainty = 1_000.0
    /// How far from the moment a code was acquired a fix may be to confirm where it was acquired.
    public var confirmWindow = 60.0
    /// Fixes are kept this long (for confirmations), then dropped.
    public var fixRetention = 900.0
    /// Fixes kept per device.
    public var fixesPerDevice = 8
    /// The most conditions one monitor may hold (CLMonitor allows 20 per app).
    public var conditionLimit = 20
    /// The most monitors besides the built-in ones.
    public var monitorLimit = 64

    /// The defaults (region-monitor's option defaults are taken from these).
    public init() {}
}
