import Foundation
import Messages
import Policy

/// Finds the route of a request and builds what it calls: pure, given the method, URI, header
/// fields, body bytes and the session's role (nil without a session). Every refusal is a
/// `Problem`, in this order: the path (404), the method (405), the session (401, 403), the query
/// and header parameters (422), then the body (415, 400, 422). The body's size was held to its
/// limit before this (`ZhttpRequest`, 413).
public struct EdgeRouter: Sendable {
    public let routes: [Route]

    /// A router over `routes` (the `/v1` table unless a test gives others).
    public init(routes: [Route] = RouteTable.v1) {
        self.routes = routes
    }

    /// The call `request` makes, or the problem that refuses it.
    public func resolve(_ request: ZhttpRequest, role: Role?) throws(Problem) -> EdgeCall {
        try resolve(method: request.method, uri: request.uri, headers: request.headers, body: request.body, role: role)
    }

    /// The call a request makes, or the problem that refuses it.
    public func resolve(method: String, uri: String, headers: HTTPHeaders, body: [UInt8], role: Role?) throws(Problem) -> EdgeCall {
        let target = try RequestTarget.parse(uri)
        let (route, path) = try match(method: method, segments: target.segments)
        try authorize(route, role: role)
        var members: [(String, JSONValue)] = []
        for parameter in route.parameters {
            let text: String?
            switch parameter.location {
            case .path: text = path[parameter.name]
            case .query: text = target.queryValue(parameter.name)
            case .header:
                // Two fields of one name may not both count: which one would the service see?
                guard headers.values(parameter.name).count <= 1 else {
                    throw Problem(.invalidField, "header \(parameter.name) is given more than once")
                }
                text = headers[parameter.name]
            }
            guard let text else {
                if parameter.required { throw Problem(.invalidField, "missing \(parameter.location.rawValue) parameter \(parameter.name)") }
                continue
            }
            guard let value = parameter.value(text) else {
                throw Problem(.invalidField, "\(parameter.location.rawValue) parameter \(parameter.name) \(parameter.expectation)")
            }
            members.append((parameter.member, value))
        }
        let known = Set(route.parameters.filter { $0.location == .query }.map(\.name))
        if let unknown = target.query.first(where: { !known.contains($0.name) }) {
            let accepted = known.isEmpty ? "none" : known.sorted().joined(separator: ", ")
            throw Problem(.invalidField, "\(route.name) takes no query parameter \(Quoting.quoted(unknown.name)) (it takes: \(accepted))")
        }
        members += route.constants
        // A screen's snapshot or stream takes its query as an object the edge reads itself.
        if case .screen = route.action { return EdgeCall(route: route, body: JSONValue.object(members).encoded(), pathParameters: path) }
        if route.action == .stream(.cafeEvents) { return EdgeCall(route: route, body: JSONValue.object(members).encoded(), pathParameters: path) }
        guard route.op != nil else {
            // Session actions and the document take the body as it is; the identity part reads it.
            if case .none = route.body, !body.isEmpty { throw Problem(.malformed, "\(route.name) takes no body") }
            // Held to the same rules as an op's body (one JSON object, labelled, bounded depth, no repeats).
            if case .object = route.body { _ = try RequestBody.jsonObject(route: route, headers: headers, body: body) }
            return EdgeCall(route: route, body: body, pathParameters: path)
        }
        return EdgeCall(route: route, body: try RequestBody.build(route: route, members: members, headers: headers, body: body), pathParameters: path)
    }

    /// The route whose template matches, with its path parameters; 404 when no route has the
    /// path, 405 (with `Allow`) when routes have it for other methods only.
    public func match(method: String, segments: [String]) throws(Problem) -> (Route, [String: String]) {
        var allowed: [String] = []
        for route in routes {
            guard let parameters = Self.parameters(of: route, in: segments) else { continue }
            if route.method.rawValue == method { return (route, parameters) }
            allowed.append(route.method.rawValue)
        }
        let path = "/" + segments.joined(separator: "/")
        guard allowed.isEmpty else {
            throw Problem(.httpMethodNotAllowed, "\(Quoting.quoted(path)) takes \(allowed.joined(separator: ", ")), not \(Quoting.quoted(method))",
                          headers: [("Allow", allowed.joined(separator: ", "))])
        }
        throw Problem(.httpNotFound, "no route \(Quoting.quoted(path)); GET /v1/openapi.json lists them")
    }

    /// Refuses a route that needs a session without one (401) or with a role it is not open to (403).
    public func authorize(_ route: Route, role: Role?) throws(Problem) {
        guard case .roles(let roles) = route.access else { return }
        guard let role else {
            throw Problem(.httpUnauthenticated, "\(route.name) needs a session: send Authorization: Bearer <token>",
                          headers: [("WWW-Authenticate", "Bearer")])
        }
        guard roles.contains(role) else {
            let open = Role.allCases.filter(roles.contains).map(\.rawValue).joined(separator: ", ")
            throw Problem(.forbidden, "a \(role.rawValue) session may not call \(route.name); it is open to: \(open)")
        }
    }

    /// The path parameters when `segments` fits the route's template, else nil.
    static func parameters(of route: Route, in segments: [String]) -> [String: String]? {
        let template = route.segments
        guard template.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (part, segment) in zip(template, segments) {
            switch part {
            case .literal(let text): if text != segment { return nil }
            case .parameter(let name):
                if segment.isEmpty { return nil }
                parameters[name] = segment
            }
        }
        return parameters
    }
}
