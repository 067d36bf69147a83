/// A request the route table has read: the route it matched, and for an op the body to send it
/// (a JSON object, the members from the path, query, headers and constants first, then the
/// client's own). The edge wraps `body` in `{"op", "id", "body"}` and sends it to the op's service.
public struct EdgeCall: Sendable {
    public let route: Route
    public let action: Route.Action
    /// The op body, or for a session action the request's JSON body (empty when it had none).
    public let body: [UInt8]
    /// The path parameters by name, for session actions and logs.
    public let pathParameters: [String: String]

    /// A matched route and what it calls with.
    public init(route: Route, body: [UInt8], pathParameters: [String: String]) {
        self.route = route
        self.action = route.action
        self.body = body
        self.pathParameters = pathParameters
    }
}
