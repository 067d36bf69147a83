import ServiceRuntime

/// `load-test run`'s options, each declared once; `RunSettings` and `RunCommand` read them.
enum RunOptions {
    static let rate = Option.rate("rate", default: 1000, help: "target sightings per second; sighting i is due at start + i / rate, whatever the replies do")
    static let duration = Option.seconds("duration", default: 10, help: "seconds of measured load")
    static let warmup = Option.seconds("warmup", .nonNegative, default: 0,
                                       help: "seconds of the same load before measuring (latencies not recorded, losses still counted)")
    static let devices = Option.count("devices", 1...10_000_000, default: 500, help: "simulated phones; each reports its status first, then ranges and walks between cafés")
    static let batch = Option.count("batch", 1...1_000, default: 50, help: "phone reports per ingest.batch request, as a gateway forwards them (1…1000)")
    static let orderRate = Option.rate("order-rate", .nonNegative, default: 1,
                                       help: "orders per second, each reserved, placed, bumped and awaited as a notification (0: none)")
    static let ingest = Option.endpoints("ingest", default: ["tcp://127.0.0.1:7410"],
                                         help: "beacon-ingest request endpoints, comma-separated; position k serves device shard k (deployed: name@tcp://… names a shard's principal)")
    static let region = Option.endpoints("region", default: ["tcp://127.0.0.1:7420"], help: "region-monitor request endpoints, comma-separated (health: sightings.consumed)")
    static let bus = Option<String>("bus", .endpoint, default: "tcp://127.0.0.1:7403", help: "the bus's health endpoint (its CPU is counted with the sighting pipeline's)")
    static let campus = Option<String>("campus", .path, default: "deploy/campus.json", help: "the campus catalog the platform serves (beacon UUID, majors, minors, menus)")
    static let json = Option<String>("json", .path, default: "", help: "also write the report to this JSON file")
    static let timeout = Option.seconds("timeout", default: 10, help: "seconds to wait for a reply or an effect before counting it lost")
    static let retrySeconds = Option.seconds(
        "retry-seconds", .nonNegative, default: 1,
        help: "an order, reservation or bump without a reply is sent again, unchanged (same idempotency key), after this long, doubling each time, until --timeout (0: never)")
    static let beaconExitSeconds = Option.seconds("beacon-exit-seconds", default: 30, help: "region-monitor's exit timeout: decides which arrivals must produce a region event")
    static let dwell = Option.seconds("dwell", default: 15, help: "mean seconds a phone stays at a café before walking to another")
    static let seed = Option.count("seed", default: 1, help: "seed of the phones' walks and signal noise")
    static let generatorNice = Option.count(
        "generator-nice", -20...19, default: -10,
        help: "nice value of load-test's own threads (the schedule, its sockets' I/O thread), so the generator keeps its schedule on cores the platform fills; "
            + "applied when permitted (root or CAP_SYS_NICE), else it runs as started; the raw chains stay at the starting priority (0: as started)")
    static let rawRate = Option.rate("raw-rate", .nonNegative, default: 100,
                                     help: "walks per second of the raw libzmq chain of a sighting's hand-offs beside the run (the order's walks at --order-rate); 0: no raw chains")

    /// Every option, in `--help` order, the security options last.
    static var specs: [OptionSpec] {
        [rate.spec, duration.spec, warmup.spec, devices.spec, batch.spec, orderRate.spec, ingest.spec, region.spec, EndpointOptions.orders.spec,
         EndpointOptions.kitchen.spec, EndpointOptions.notify.spec, EndpointOptions.busSub.spec, bus.spec, campus.spec, json.spec, timeout.spec,
         retrySeconds.spec, beaconExitSeconds.spec, dwell.spec, seed.spec, rawRate.spec, generatorNice.spec] + LoadSecurity.specs
    }
}
