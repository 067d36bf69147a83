import Foundation

/// One decoder that takes input from the network (or a user), as a fuzz entry: `check` feeds it
/// one input and says what went wrong, nil when nothing did. A decoder that traps stops the
/// process by itself; `check` reports what a trap cannot show: two routes that disagree (the
/// hand-written reader and Foundation's, or a value that does not survive encoding and decoding
/// again). libFuzzer's entry (`Tests/Fuzz/LibFuzzer`) turns a report into a crash; the tests and
/// `cafe-fuzz run` into a failure with the input.
///
/// A target keeps state (a router, decoders), so it belongs to one thread: make one per user.
public final class FuzzTarget {
    public let name: String
    /// What it feeds and to what, for `cafe-fuzz list` and the README.
    public let summary: String
    private let seedInputs: () -> [Data]
    private let body: (Data) -> String?

    init(_ name: String, _ summary: String, seeds: @escaping () -> [Data], check: @escaping (Data) -> String?) {
        self.name = name
        self.summary = summary
        self.seedInputs = seeds
        self.body = check
    }

    /// The inputs to start from: PROTOCOL.md's examples of this kind and a few of the platform's own.
    public func seeds() -> [Data] { seedInputs() }

    /// Feeds one input to the decoders; the disagreement found, or nil.
    public func check(_ input: Data) -> String? { body(input) }
}

/// Every fuzz target, by name.
public enum FuzzTargets {
    /// The names, in the order `deploy/fuzz.sh` runs them.
    public static let names = ["requests", "sightings", "batches", "fixes", "envelopes", "compact", "replies", "catalog", "options", "identity", "tnetstrings", "zhttp", "sessions", "apns", "webhook", "metrics"]

    /// A new instance of the target called `name`, or nil.
    public static func make(_ name: String) -> FuzzTarget? {
        switch name {
        case "requests": RequestTargets.requests()
        case "sightings": RequestTargets.sightings()
        case "batches": RequestTargets.batches()
        case "fixes": RequestTargets.fixes()
        case "envelopes": EnvelopeTargets.envelopes()
        case "compact": EnvelopeTargets.compact()
        case "replies": EnvelopeTargets.replies()
        case "catalog": CatalogTarget.make()
        case "options": OptionsTarget.make()
        case "identity": IdentityTarget.make()
        case "tnetstrings": EdgeTargets.tnetstrings()
        case "zhttp": EdgeTargets.zhttp()
        case "sessions": SessionTarget.make()
        case "apns": APNsTarget.make()
        case "webhook": WebhookTarget.make()
        case "metrics": MetricsTarget.make()
        default: nil
        }
    }

    /// One new instance of every target.
    public static func all() -> [FuzzTarget] { names.compactMap(make) }
}
