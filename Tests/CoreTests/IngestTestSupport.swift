import Messages

/// Reports and statuses for beacon-ingest's tests: a test suite adopts this and calls them as its
/// own static members (also inside `@Test(arguments:)`).
protocol IngestFixtures {}

extension IngestFixtures {
    static var device: String { "phone-1" }

    static func status(_ authorization: Authorization, foreground: Bool = true, precise: Bool = true, ranging: Bool = true) -> DeviceStatusReport {
        DeviceStatusReport(authorization: authorization, foreground: foreground, precise: precise, monitoringAvailable: true, rangingAvailable: ranging)
    }

    static func known(_ authorization: Authorization, foreground: Bool = true, precise: Bool = true, ranging: Bool = true) -> DeviceStatus {
        DeviceStatus(deviceId: device, authorization: authorization, foreground: foreground, precise: precise,
                     monitoringAvailable: true, rangingAvailable: ranging, changedAt: .at(-3600))
    }

    static func ranging(uuid: String = campusUUID, major: Int = 1, minor: Int = 2, rssi: Int = -65, measuredPower: Int = -59,
                        proximity: Proximity? = nil, accuracy: Double? = nil, at time: Timestamp = t0) -> RangingReport {
        RangingReport(uuid: uuid, major: major, minor: minor, rssi: rssi, measuredPower: measuredPower, timestamp: time,
                      proximity: proximity, accuracy: accuracy)
    }

    static func fix(latitude: Double = 37.3349, longitude: Double = -122.009, accuracy: Double = 10, precise: Bool = true,
                    at time: Timestamp = t0) -> FixReport {
        FixReport(latitude: latitude, longitude: longitude, horizontalAccuracy: accuracy, precise: precise, timestamp: time)
    }
}
