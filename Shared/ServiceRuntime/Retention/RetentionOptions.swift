/// How long a service keeps what it only needs for a while (issue 28: disk bounded by time, not
/// traffic), declared once for every service; `replayWindow`'s default is the service's own.
public struct RetentionOptions: Sendable {
    /// Published outbox events older than this are deleted (once no consumer that is replaying
    /// still needs them): the replay window a consumer that was away may come back within.
    public let replayWindow: Option<Int>

    /// Event ids a consumer applied are remembered this long (dedupe of an event seen again);
    /// longer than any publisher's replay window, since a replay can bring an event back that long.
    public static let seenEventRetention = Option.count("seen-event-retention-seconds", 60...5_184_000, default: 8 * 86_400,
                                                        help: "applied event ids are remembered this long to drop an event that comes again (must exceed every publisher's --replay-window-seconds)")
    /// How often a prune turn starts when the last one finished its work.
    public static let pruneInterval = Option.count("prune-interval-seconds", 1...3_600, default: 60,
                                                   help: "how often expired rows are deleted (in batches of 500, at most 5 ms per turn; a turn that could not finish goes on 20 ms later)")

    /// The retention options of a service whose replay window defaults to `replayWindowSeconds`.
    public init(replayWindowSeconds: Int = 7 * 86_400) {
        replayWindow = Option.count("replay-window-seconds", 60...2_592_000, default: replayWindowSeconds,
                                    help: "published outbox events older than this are deleted, unless a consumer replaying in the last 10 minutes still needs them (then at twice this age); replay from before answers replay.pruned")
    }

    /// The options, in `--help` order.
    public var specs: [OptionSpec] { [replayWindow.spec, Self.seenEventRetention.spec, Self.pruneInterval.spec] }
}
