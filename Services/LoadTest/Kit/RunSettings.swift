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
}
