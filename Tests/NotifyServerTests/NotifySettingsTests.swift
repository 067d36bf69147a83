import Foundation
import NotifyCore
@testable import NotifyServer
import ServiceRuntime
import Testing

/// notification-service's settings as main reads them: the defaults `--help` shows are the
/// property defaults; the tick has a floor; retention comes from the checked days.
struct NotifySettingsTests {
    func settings(_ arguments: [String]) throws -> NotifySettings {
        NotifySettings(try Configuration(program: NotifySettings.program, specs: NotifySettings.specs, arguments: arguments, environment: [:]))
    }

    @Test("no options: the declared defaults, shown as --help shows them")
    func defaults() throws {
        let read = try settings([])
        #expect(read == NotifySettings())
        #expect(read.schedule == PickupReminderSchedule(leadSeconds: 600) && read.tickSeconds == 1 && read.retention.days == 30)
        let shown = Dictionary(uniqueKeysWithValues: NotifySettings.specs.map { ($0.name, $0.defaultValue) })
        #expect(shown["pickup-reminder-lead-seconds"] == "600" && shown["reminder-tick-seconds"] == "1" && shown["retention-days"] == "30")
        #expect(shown["listen"] == "tcp://127.0.0.1:7450")
    }

    @Test("options are read; the reminder tick never goes below 50 ms; a lead of 0 turns pickup reminders off")
    func values() throws {
        let read = try settings(["--reminder-tick-seconds", "0.001", "--pickup-reminder-lead-seconds", "0", "--retention-days", "7"])
        #expect(read.tickSeconds == 0.05 && read.schedule.leadSeconds == nil && read.retention.days == 7)
        #expect(try settings(["--reminder-tick-seconds", "0.2"]).tickSeconds == 0.2)
    }
}
