import Foundation
import Testing

/// notification-service's `--retention-days` through the real executable: a bad value, from the
/// flag or the environment, exits 2 with one line before anything opens.
@Suite("Notification retention option of the real executable")
struct NotificationRetentionOptionTests {
    @Test("a retention that is not a whole number of days 1…3650 exits 2 with one line", arguments: ["0", "3651", "-1", "1.5", "thirty", ""])
    func badRetention(value: String) throws {
        for (arguments, environment) in [(["--retention-days", value], [String: String]()), ([], ["CAFE_RETENTION_DAYS": value])] {
            let (status, text) = try Self.run(arguments, environment: environment)
            #expect(status == 2, "\(arguments) \(environment)")
            #expect(text.split(separator: "\n").count == 1 && text.contains("notification-service"), "\(text)")
            #expect(text.contains(environment.isEmpty ? "--retention-days" : "CAFE_RETENTION_DAYS"), "\(text)")
        }
    }

    @Test("--help lists --retention-days with its default")
    func help() throws {
        let process = Process()
        process.executableURL = try Platform.binaryDirectory().appendingPathComponent("notification-service")
        process.arguments = ["--help"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(text.contains("--retention-days <integer>") && text.contains("env CAFE_RETENTION_DAYS, default 30"), "\(text)")
    }

    /// Runs notification-service with only these arguments and environment; its status and stderr.
    static func run(_ arguments: [String], environment: [String: String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = try Platform.binaryDirectory().appendingPathComponent("notification-service")
        process.arguments = arguments
        process.environment = environment
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
