import Messages

/// The typed answer to a replay of a pruned range: the events before `oldestSeq` are gone, and a
/// consumer continues from `oldestSeq`, counting what it lost, instead of seeing a silent gap.
public enum ReplayPruned {
    /// The refusal for a replay of `stream` from before `oldestSeq`, the oldest event kept.
    public static func error(stream: String, fromSeq: UInt64, oldestSeq: UInt64) -> ServiceError {
        ServiceError(.replayPruned, "events of \(Quoting.quoted(stream)) before seq \(oldestSeq) were pruned (older than the replay window); replay from \(oldestSeq) on",
                     details: ["oldestSeq": "\(oldestSeq)"])
    }

    /// The oldest seq a `replay.pruned` refusal names (a plain decimal within `Envelope.seqRange`);
    /// nil for another error or a malformed one.
    public static func oldestSeq(in error: Error) -> UInt64? {
        guard let error = error as? ServiceError, error.code == ErrorCode.replayPruned.rawValue,
              let text = error.details?["oldestSeq"], text.count <= 20, let seq = UInt64(text), String(seq) == text,
              Envelope.seqRange.contains(seq) else { return nil }
        return seq
    }
}
