/// One publisher's stream, as a consumer follows it.
struct StreamKey: Hashable {
    let source: String
    let stream: String

    /// "source/stream", as health shows it.
    var name: String { source + "/" + stream }
}
