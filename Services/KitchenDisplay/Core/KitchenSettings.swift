/// The kitchen's tunable times, from the command line; the rules take them, never a global.
public struct KitchenSettings: Sendable, Equatable {
    /// A ticket waiting this long turns yellow.
    public var yellowSeconds: Double
    /// A ticket waiting this long turns red.
    public var redSeconds: Double
    /// A bumped ticket can be recalled for this long.
    public var recallSeconds: Double
    /// A cancelled ticket stays on the station screen, marked, for this long.
    public var cancelledLingerSeconds: Double
    /// A link is down when nothing came through it for this long (heartbeats are every second).
    public var linkTimeoutSeconds: Double

    public init(yellowSeconds: Double = 300, redSeconds: Double = 480, recallSeconds: Double = 120, cancelledLingerSeconds: Double = 60,
                linkTimeoutSeconds: Double = 3.5) {
        self.yellowSeconds = yellowSeconds
        self.redSeconds = redSeconds
        self.recallSeconds = recallSeconds
        self.cancelledLingerSeconds = cancelledLingerSeconds
        self.linkTimeoutSeconds = linkTimeoutSeconds
    }
}
