import Foundation
import ServiceRuntime

/// region-monitor's retention. Fixes are kept `--fix-retention-seconds` (the engine forgets them
/// every minute; storage deletes them in small batches through the host's `Pruner`, so a campus of
/// walking phones never has one long delete in front of its sightings). The records, nearest
/// answers and device statuses are one row per device (and condition), changed in place: they
/// grow with the phones on campus, not with time. Region events are kept for replay
/// `--replay-window-seconds` (15 minutes by default, see `RegionMonitorSettings.common`).
extension RegionService {
    /// Drops fixes older than the retention, in memory and in storage (every batch at once).
    func expireFixes() throws {
        let now = clock.now()
        engine.expireFixes(now: now)
        while try store.deleteFixes(before: engine.fixCutoff(now: now), limit: 500) == 500 {}
    }

    func addRetention() {
        pruner.add("fixes") { [unowned self] limit in
            try store.deleteFixes(before: engine.fixCutoff(now: clock.now()), limit: limit)
        }
    }
}
