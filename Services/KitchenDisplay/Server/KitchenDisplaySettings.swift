import Foundation
import KitchenCore
import Messages
import ServiceRuntime

/// kitchen-display's own settings: the kitchen's times (`KitchenSettings`, whose defaults are
/// declared there, in the Core, and shown by their options) and the terminal screen's. Each
/// option is declared once below; a screen setting starts from its option's default, `specs`
/// lists them for `--help`, and `init(config:)` reads them.
public struct KitchenDisplaySettings: Sendable, Equatable {
    /// Ticket colours, recall window, cancelled linger.
    public var times = KitchenSettings()
    /// Run the service with its full-screen display on this terminal.
    public var screen = Self.screenOption.defaultValue
    /// Open only the screen, against a running kitchen-display at this endpoint.
    public var attach = Self.attachOption.defaultValue
    /// The screen's first view: a station, or "expediter"; nil for every station.
    public var station = Self.stationOption.defaultValue
    /// The screen shows only this café's tickets; nil for every café.
    public var cafe = Self.cafeOption.defaultValue
    /// Where logs go while the screen owns the terminal; nil for beside the database.
    public var screenLog = Self.screenLogOption.defaultValue
    /// Deployed mode: the principal the screen acts as (a kitchen key in `--keys`); nil in plain mode.
    public var screenAs = Self.screenAsOption.defaultValue
    /// order-service, where the screen's 86 keys mark an item sold out (order-service owns the menu).
    public var orders = Self.ordersOption.defaultValue
    /// Closed tickets (picked up, cancelled) are deleted this many days after they closed.
    public var ticketRetentionDays = Self.ticketRetentionOption.defaultValue

    /// Every setting at its default.
    public init() {}

    /// The kitchen's defaults, which its options show.
    private static let timeDefaults = KitchenSettings()

    /// The options every service reads, with kitchen-display's name and request port.
    public static let common = CommonOptions(service: "kitchen-display", listenPort: 7440)
    public static let screenOption = Option.flag("screen", default: false,
                                                 help: "run the service with its full-screen display on this terminal (logs go to --screen-log)")
    public static let attachOption = Option.optional("attach",
                                                     help: "open the screen against a running kitchen-display at this endpoint (tcp://127.0.0.1:7440) instead of running the service")
    public static let stationOption = Option.optional("station", help: "the screen's first view: a station (grill), or expediter; default every station")
    public static let cafeOption = Option.optional("cafe", help: "the screen shows only this café's tickets; default every café")
    public static let screenLogOption = Option.optional("screen-log", .path,
                                                        help: "where logs go while the screen owns the terminal (default <data-dir>/kitchen-display.screen.log)")
    public static let screenAsOption = Option.optional("screen-as",
                                                       help: "deployed mode: the kitchen principal the screen (--screen, --attach) acts as, its <name>.key in --keys; the screen refuses to start without it")
    public static let yellowOption = Option.seconds("yellow-seconds", .positive, default: timeDefaults.yellowSeconds, help: "a ticket waiting this long turns yellow")
    public static let redOption = Option.seconds("red-seconds", .positive, default: timeDefaults.redSeconds, help: "a ticket waiting this long turns red")
    public static let recallOption = Option.seconds("recall-seconds", .nonNegative, default: timeDefaults.recallSeconds, help: "a bumped ticket can be recalled for this long")
    public static let ordersOption = Option<String>("orders", .endpoint, default: "tcp://127.0.0.1:7430",
                                                    help: "order-service's request endpoint: the screen's 8 and 9 keys 86 an item there and put it back")
    public static let cancelledOption = Option.seconds("cancelled-seconds", .nonNegative, default: timeDefaults.cancelledLingerSeconds,
                                                       help: "a cancelled ticket stays on screen, marked, for this long")

    /// Every option kitchen-display reads: the common ones, then its own.
    public static let ticketRetentionOption = Option.count("ticket-retention-days", 1...3_650, default: 7,
                                                           help: "closed tickets (picked up, cancelled) are deleted this many days after they closed")

    public static var specs: [OptionSpec] {
        common.specs + [screenOption.spec, attachOption.spec, stationOption.spec, cafeOption.spec, screenLogOption.spec, screenAsOption.spec,
                        yellowOption.spec, redOption.spec, recallOption.spec, ordersOption.spec, cancelledOption.spec, ticketRetentionOption.spec]
    }

    /// Reads the options of `specs` (an empty text option means its default).
    public init(config: Configuration) {
        times = KitchenSettings(yellowSeconds: config[Self.yellowOption], redSeconds: config[Self.redOption],
                                recallSeconds: config[Self.recallOption], cancelledLingerSeconds: config[Self.cancelledOption])
        screen = config[Self.screenOption]
        attach = config[Self.attachOption]
        station = config[Self.stationOption]
        cafe = config[Self.cafeOption]
        screenLog = config[Self.screenLogOption]
        screenAs = config[Self.screenAsOption]
        orders = config[Self.ordersOption]
        ticketRetentionDays = config[Self.ticketRetentionOption]
    }

    /// The principal the screen acts as under security mode `mode` with the
    /// key folder `keys`: nil in plain mode (the developer); in deployed mode `screenAs`, which
    /// must be a kitchen in the registry. Without one the screen could not act (every request
    /// refused or unanswered), so it is refused before it takes the terminal, saying why.
    public func screenPrincipal(security mode: SocketSecurity.Mode, keys: String) throws -> String? {
        guard mode == .deployed else { return nil }
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
