import Foundation
import ServiceRuntime

extension LoadRunner {
    /// What beacon-ingest published best-effort during the run and region-monitor consumed, from
    /// their health counters: waits (up to the timeout, or 1.5 s without progress) for
    /// region-monitor to catch up; the difference is what the bus or the consumer shed.
    func busCounts(_ sampler: HealthSampler, publishedBefore: Int?, consumedBefore: Int?) throws -> RunReport.Bus {
        try sampler.readAll(timeout: max(3, settings.timeout))
        let publishedAfter = sampler.counter("published.bestEffort")?.total
        var consumedAfter = sampler.counter("sightings.consumed")?.total
        var settled = false
        if let publishedBefore, let publishedAfter, let consumedBefore {
            let deadline = Reactor.monotonic() + min(settings.timeout, 10)
            var lastChange = Reactor.monotonic()
            while let consumed = consumedAfter {
                if consumed - consumedBefore >= publishedAfter - publishedBefore || Reactor.monotonic() - lastChange >= 1.5 {
                    settled = true
                    break
                }
                guard Reactor.monotonic() < deadline else { break }
                usleep(200_000)
                try sampler.readAll(timeout: max(3, settings.timeout))
                let next = sampler.counter("sightings.consumed")?.total
                if next != consumed { lastChange = Reactor.monotonic() }
                consumedAfter = next
            }
        }
        let measured = publishedBefore != nil && publishedAfter != nil && consumedBefore != nil && consumedAfter != nil
        let published = measured ? publishedAfter! - publishedBefore! : 0
        let consumed = measured ? consumedAfter! - consumedBefore! : 0
        return RunReport.Bus(measured: measured, settled: settled, publishedBestEffort: published, consumedByRegionMonitor: consumed, shed: max(0, published - consumed),
                             restarts: ["beacon-ingest": sampler.counter("published.bestEffort")?.restarts ?? 0,
                                        "region-monitor": sampler.counter("sightings.consumed")?.restarts ?? 0])
    }

    /// CPU microseconds each pipeline process has used (across restarts), nil where one did not answer.
    static func pipelineCPU(_ sampler: HealthSampler) -> [String: Int]? {
        var cpu: [String: Int] = [:]
        for name in RunReport.CPU.processes {
            guard let total = sampler.counter("cpu.\(name)")?.total else { return nil }
            cpu[name] = total
        }
        return cpu
    }
}
