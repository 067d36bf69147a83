import Foundation
@testable import OrderServer
import ServiceRuntime
import Testing
import TestSupport

/// order-service's settings as main reads them: the defaults `--help` shows are the property
/// defaults, and `--region-endpoints` must be ZeroMQ endpoints.
struct OrderSettingsTests {
    func settings(_ arguments: [String], environment: [String: String] = [:]) throws -> OrderSettings {
        try OrderSettings(Configuration(program: OrderSettings.program, specs: OrderSettings.specs, arguments: arguments, environment: environment))
    }

    @Test("no options: the declared defaults, shown as --help shows them")
    func defaults() throws {
        #expect(try settings([]) == OrderSettings())
        let shown = Dictionary(uniqueKeysWithValues: OrderSettings.specs.map { ($0.name, $0.defaultValue) })
        #expect(shown["reservation-hold-seconds"] == "600" && shown["region-retry-seconds"] == "5" && shown["region-timeout-ms"] == "1000")
        #expect(shown["region-endpoints"] == "tcp://127.0.0.1:7420" && shown["campus"] == "deploy/campus.json" && shown["listen"] == "tcp://127.0.0.1:7430")
    }

    @Test("options and environment variables are read into the settings")
    func values() throws {
        let read = try settings(["--region-endpoints", "tcp://a:1, ipc:///tmp/r2", "--reservation-hold-seconds", "90.5", "--region-timeout-ms", "250"],
                                environment: ["CAFE_REGION_RETRY_SECONDS": "2"])
        #expect(read.regionEndpoints == ["tcp://a:1", "ipc:///tmp/r2"])
        #expect(read.reservationHoldSeconds == 90.5 && read.regionTimeoutMilliseconds == 250 && read.regionRetrySeconds == 2)
    }

    @Test("region endpoints that are not ZeroMQ endpoints are refused with the option named and the value as given",
          arguments: ["foo, bar", " , ", "tcp://a:1,http://b"])
    func badEndpoints(value: String) throws {
        for (arguments, environment, origin) in [(["--region-endpoints", value], [String: String](), "--region-endpoints"),
                                                  ([], ["CAFE_REGION_ENDPOINTS": value], "CAFE_REGION_ENDPOINTS")] {
            #expect {
                _ = try settings(arguments, environment: environment)
            } throws: { error in
                "\(error)" == "order-service: \(origin) must be ZeroMQ endpoints separated by commas, not \"\(value)\""
            }
        }
    }
}
