import Foundation
import KitchenCore
import Messages
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
    /// Deployed mode: the principal the screen acts as (a kitchen key in `--keys`); nil in plain mode.
    public var screenAs: String? = nil
    /// order-service, where the screen's 86 keys mark an item sold out (order-service owns the menu).
    public var orders = "tcp://127.0.0.1:7430"

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
            OptionSpec("screen-as", .string, default: defaults.screenAs ?? "",
                       help: "deployed mode: the kitchen principal the screen (--screen, --attach) acts as, its <name>.key in --keys; the screen refuses to start without it"),
            OptionSpec.seconds("yellow-seconds", .positive, default: defaults.times.yellowSeconds, help: "a ticket waiting this long turns yellow"),
            OptionSpec.seconds("red-seconds", .positive, default: defaults.times.redSeconds, help: "a ticket waiting this long turns red"),
            OptionSpec.seconds("recall-seconds", .nonNegative, default: defaults.times.recallSeconds, help: "a bumped ticket can be recalled for this long"),
            OptionSpec("orders", .endpoint, default: defaults.orders, help: "order-service's request endpoint: the screen's 8 and 9 keys 86 an item there and put it back"),
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
        screenAs = optional("screen-as")
        orders = config.string("orders")
    }

    /// The principal the screen acts as under security mode `mode` ("plain", "deployed") with the
    /// key folder `keys`: nil in plain mode (the developer); in deployed mode `screenAs`, which
    /// must be a kitchen in the registry. Without one the screen could not act (every request
    /// refused or unanswered), so it is refused before it takes the terminal, saying why.
    public func screenPrincipal(security mode: String, keys: String) throws -> String? {
        guard mode == SocketSecurity.Mode.deployed.rawValue else { return nil }
        guard let screenAs else {
            throw SecurityError("in deployed mode the kitchen screen acts as a kitchen key: pass --screen-as <kitchen principal> (its <name>.key in --keys; cafectl keys add makes one)")
        }
        guard !keys.isEmpty else { throw SecurityError("deployed mode needs --keys <folder> for the screen's key \(screenAs)") }
        guard let principal = try KeyFolder(keys).registry().principal(named: screenAs) else {
            throw SecurityError("--screen-as \(screenAs) is not in \(KeyFolder(keys).registryPath)")
        }
        guard principal.role == .kitchen else {
            throw SecurityError("--screen-as \(screenAs) is a \(principal.role.rawValue) key; the screen acts as a kitchen (role kitchen, cafe=<id>)")
        }
        return screenAs
    }

    /// The screen's log file: `screenLog`, or kitchen-display.screen.log in `dataDir`.
    public func screenLogPath(dataDir: String) -> String {
        screenLog ?? (dataDir as NSString).appendingPathComponent("kitchen-display.screen.log")
    }
}
