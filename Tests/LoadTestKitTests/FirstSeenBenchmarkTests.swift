import Campus
import Foundation
@testable import LoadTestKit
import Testing

@Suite("bench (e): first-seen devices through region-monitor's consumer in process")
struct FirstSeenBenchmarkTests {
    static var campusPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("deploy/campus.json").path
    }

    @Test("each first-seen device is announced twice (its café entered, its nearest beacon named), over messages of 64 and a short last one")
    func everyDeviceAnnounced() throws {
        let catalog = try CampusCatalog.load(path: Self.campusPath)
        // 130 devices: two full messages of 64 and one of 2.
        let result = try FirstSeenBenchmark.run(catalog: catalog, campusPath: Self.campusPath, devices: 130)
        #expect(result.devices == 130)
        #expect(result.events == 2 * 130, "a region event and a nearest answer for every device")
        #expect(result.processMicrosPerDevice > 0 && result.threadMicrosPerDevice > 0)
    }
}
