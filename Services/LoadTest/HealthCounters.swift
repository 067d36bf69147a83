import Messages
import ServiceRuntime
import ZeroMQ

/// Reads counters from services' health replies: how many sightings beacon-ingest published
/// (`published.bestEffort`) and region-monitor consumed (`sightings.consumed`), summed over shards.
/// The difference over a run is what the bus and the sockets shed on the way.
struct HealthCounters {
    let context: Context
    /// A busy service answers health between its other work: allow it time.
    let timeoutMilliseconds: Int32

    /// The sum of `key` over `endpoints`, or nil when any of them did not answer or lacks the key.
    func sum(_ key: String, at endpoints: [String]) -> Int? {
        var total = 0
        for endpoint in endpoints {
            let client = RequestClient(context: context, endpoint: endpoint, timeoutMilliseconds: timeoutMilliseconds)
            defer { client.close() }
            guard let status = try? client.call(Op.health, Empty(), as: HealthStatus.self),
                  let value = status.details[key].flatMap({ Int($0) })
            else { return nil }
            total += value
        }
        return total
    }
}
