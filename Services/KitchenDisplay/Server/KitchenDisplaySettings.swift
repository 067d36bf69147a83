import Foundation
import KitchenCore
import ServiceRuntime

/// kitchen-display's own settings: the kitchen's times (`KitchenSettings`, whose defaults are
/// declared there) and the terminal screen's. Each default is declared once, as a property
/// default; the options (`specs`) show them in `--help`, and `init(config:)` reads them.
public struct KitchenDisplaySettings: Sendable, Equatable {
    /// Ticket colours, recall window, cancelled linger.
    public var times = KitchenSettings()
    /// Run the service with its full-screen display on this terminal.
    public var screen = false
    /// Open only the screen, against a running kitchen-display at this endpoint.
    public var attach: String? = nil
    /// The screen's first view: a station, or "expediter"; nil for every station.
    public var station: String? = nil
    /// The screen shows only this café's tickets; nil for every café.
    public var cafe: String? = nil
    /// Where logs go while the screen owns the terminal; nil for beside the database.
    public var screenLog: String? = nil

    /// Every setting at its default.
    public init() {}

    /// Every option kitchen-display reads: the common ones, then its own.
    public static var specs: [OptionSpec] {
        let defaults = KitchenDisplaySettings()
        return ServiceHost.commonSpecs(service: "kitchen-display", listenPort: 7440) + [
            OptionSpec("screen", .flag, default: "\(defaults.screen)", help: "run the service with its full-screen display on this terminal (logs go to --screen-log)"),
            OptionSpec("attach", .string, default: defaults.attach ?? "",
                       help: "open the screen against a running kitchen-display at this endpoint (tcp://127.0.0.1:7440) instead of running the service"),
            OptionSpec("station", .string, default: defaults.station ?? "", help: "the screen's first view: a station (grill), or expediter; default every station"),
            OptionSpec("cafe", .string, default: defaults.cafe ?? "", help: "the screen shows only this café's tickets; default every café"),
            OptionSpec("screen-log", .path, default: defaults.screenLog ?? "",
                       help: "where logs go while the screen owns the terminal (default <data-dir>/kitchen-display.screen.log)"),
            OptionSpec.seconds("yellow-seconds", .positive, default: defaults.times.yellowSeconds, help: "a ticket waiting this long turns yellow"),
            OptionSpec.seconds("red-seconds", .positive, default: defaults.times.redSeconds, help: "a ticket waiting this long turns red"),
            OptionSpec.seconds("recall-seconds", .nonNegative, default: defaults.times.recallSeconds, help: "a bumped ticket can be recalled for this long"),
            OptionSpec.seconds("cancelled-seconds", .nonNegative, default: defaults.times.cancelledLingerSeconds,
                       help: "a cancelled ticket stays on screen, marked, for this long"),
        ]
    }

    /// Reads the options of `specs` (an empty text option means its default).
    public init(config: Configuration) {
        func optional(_ name: String) -> String? { config.string(name).isEmpty ? nil : config.string(name) }
        times = KitchenSettings(yellowSeconds: config.double("yellow-seconds"), redSeconds: config.double("red-seconds"),
                                recallSeconds: config.double("recall-seconds"), cancelledLingerSeconds: config.double("cancelled-seconds"))
        screen = config.bool("screen")
        attach = optional("attach")
        station = optional("station")
        cafe = optional("cafe")
        screenLog = optional("screen-log")
    }

    /// The screen's log file: `screenLog`, or kitchen-display.screen.log in `dataDir`.
    public func screenLogPath(dataDir: String) -> String {
        screenLog ?? (dataDir as NSString).appendingPathComponent("kitchen-display.screen.log")
    }
}
