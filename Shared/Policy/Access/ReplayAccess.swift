import Messages

/// Which streams a caller may `replay` beyond the op table's roles: a service or an operator any;
/// the HTTP edge's key only the streams it follows for its SSE clients, so it cannot read where
/// devices are (`region`, `device`) through a publisher's outbox.
public enum ReplayAccess {
    /// The streams the edge follows: order events and notifications, and for the café screens
    /// (issue 29) the kitchen's ticket events and the 86 marks.
    public static let edgeStreams: Set<String> = ["order", "notify", "kitchen", "menu"]

    /// Why `caller` may not replay `stream`; nil when it may (the op table has let its role in).
    public static func refusal(stream: String, caller: Caller) -> ServiceError? {
        guard caller.role == .edge, !edgeStreams.contains(stream) else { return nil }
        return ServiceError(.forbidden, "\(caller.name) (edge) may replay the order, notify, kitchen and menu streams only, not \(Quoting.quoted(stream))")
    }
}
