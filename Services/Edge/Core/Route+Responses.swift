extension Route {
    /// The success status: every route answers 200 with its reply body.
    public static let successStatus = 200

    /// The media type of the success body: JSON, or `text/event-stream` for a held SSE stream.
    public var successContentType: String { isStream ? "text/event-stream" : "application/json" }

    /// The problem statuses a route may answer, for its OpenAPI responses: those any request may
    /// meet (a malformed request or field, the rate limit, a service down or slow, a fault), a
    /// session's when it needs one, a body's when it takes one, 404 for a path naming something,
    /// and 409 for a request that changes state.
    public var problemStatuses: [Int] {
        var statuses: Set<Int> = [400, 422, 429, 500, 503, 504]
        if case .roles = access { statuses.formUnion([401, 403]) }
        if body != .none { statuses.formUnion([413, 415]) }
        if segments.contains(where: { if case .parameter = $0 { true } else { false } }) { statuses.insert(404) }
        if method != .get, op != nil { statuses.insert(409) }
        return statuses.sorted()
    }
}
