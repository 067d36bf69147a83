/// The kitchen's tunable times, from the command line; the rules take them, never a global.
/// Each default is declared once, here; the service's options show these in `--help`.
public struct KitchenSettings: Sendable, Equatable {
    /// A ticket waiting this long turns yellow.
    public var yellowSeconds = 300.0
    /// A ticket waiting this long turns red.
    public var redSeconds = 480.0
    /// A bumped ticket can be recalled for this long: 15 minutes, as far back as kitchens reach
    /// (the web kitchen display lists the last 50 bumped within it, issue 29).
    public var recallSeconds = 900.0
    /// A cancelled ticket stays on the station screen, marked, for this long.
    public var cancelledLingerSeconds = 60.0
    /// A link is down when nothing came through it for this long (heartbeats are every second).
    public var linkTimeoutSeconds = 3.5

    /// The defaults, with the times given replacing theirs.
    public init(yellowSeconds: Double? = nil, redSeconds: Double? = nil, recallSeconds: Double? = nil, cancelledLingerSeconds: Double? = nil,
                linkTimeoutSeconds: Double? = nil) {
        if let yellowSeconds { self.yellowSeconds = yellowSeconds }
        if let redSeconds { self.redSeconds = redSeconds }
        if let recallSeconds { self.recallSeconds = recallSeconds }
        if let cancelledLingerSeconds { self.cancelledLingerSeconds = cancelledLingerSeconds }
        if let linkTimeoutSeconds { self.linkTimeoutSeconds = linkTimeoutSeconds }
    }
}
