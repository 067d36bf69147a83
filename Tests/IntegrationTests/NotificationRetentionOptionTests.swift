import Foundation
import Testing

/// notification-service's `--retention-days` through the real executable: a bad value, from the
/// flag or the environment, exits 2 with one line before anything opens.
@Suite("Notification retention option of the real executable")
struct NotificationRetentionOptionTests {
    @Test("a retention that is not a whole number of days 1…3650 exits 2 with one line", arguments: ["0", "3651", "-1", "1.5", "thirty", ""])
    func badRetention(value: String) throws {
        for (arguments, environment) in [(["--retention-days", value], [String: String]()), ([], ["CAFE_RETENTION_DAYS": value])] {
            let result = try runCommand(try Platform.binaryDirectory().appendingPathComponent("notification-service"), arguments, environment: environment)
            let (status, text) = (result.status, result.err)
            #expect(status == 2, "\(arguments) \(environment)")
            #expect(text.split(separator: "\n").count == 1 && text.contains("notification-service"), "\(text)")
            #expect(text.contains(environment.isEmpty ? "--retention-days" : "CAFE_RETENTION_DAYS"), "\(text)")
        }
    }

    @Test("--help lists --retention-days with its default")
    func help() throws {
        let result = try runCommand(try Platform.binaryDirectory().appendingPathComponent("notification-service"), ["--help"])
        #expect(result.status == 0)
        #expect(result.out.contains("--retention-days <integer>") && result.out.contains("env CAFE_RETENTION_DAYS, default 30"), "\(result.out)")
    }
}
