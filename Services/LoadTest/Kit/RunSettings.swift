import ServiceRuntime

/// `load-test run`'s settings, read from the command line.
struct RunSettings {
    var rate: Double
    var duration: Double
    var warmup: Double
    var devices: Int
    var batch: Int
    var orderRate: Double
    var ingest: [String]
    var region: [String]
    var orders: String
    var kitchen: String
    var notify: String
    var busSub: String
    /// The bus's health endpoint: its CPU is counted with the pipeline's.
    var bus: String
    var timeout: Double
    /// An order request without a reply is sent again after this long (doubling each time); 0: never.
    var retrySeconds: Double
    var beaconExitSeconds: Double
    var dwell: Double
    var seed: UInt64
    /// Walks per second of the raw chain of a sighting's hand-offs (the order's at `orderRate`); 0: no raw chains.
    var rawRate: Double
    /// The nice value load-test's own threads ask for (0: as started).
    var generatorNice: Int
}

extension RunSettings {
    /// The settings `config` holds (read against `RunOptions.specs`).
    init(_ config: Configuration) {
        self.init(
            rate: config[RunOptions.rate], duration: config[RunOptions.duration], warmup: config[RunOptions.warmup], devices: config[RunOptions.devices],
            batch: config[RunOptions.batch], orderRate: config[RunOptions.orderRate], ingest: config[RunOptions.ingest], region: config[RunOptions.region],
            orders: config[EndpointOptions.orders], kitchen: config[EndpointOptions.kitchen], notify: config[EndpointOptions.notify],
            busSub: config[EndpointOptions.busSub], bus: config[RunOptions.bus], timeout: config[RunOptions.timeout], retrySeconds: config[RunOptions.retrySeconds],
            beaconExitSeconds: config[RunOptions.beaconExitSeconds], dwell: config[RunOptions.dwell], seed: UInt64(truncatingIfNeeded: config[RunOptions.seed]),
            rawRate: config[RunOptions.rawRate], generatorNice: config[RunOptions.generatorNice])
    }
}
