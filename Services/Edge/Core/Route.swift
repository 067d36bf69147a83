import Messages
import Policy

/// One route of the REST API: a method and a path template (`/v1/orders/{orderId}`), what it
/// does (an op, a session action, the OpenAPI document), who may call it, and where each member
/// of the op's body comes from: the path, the query, a header, a constant, or the JSON body.
public struct Route: Sendable {
    /// The methods routes use.
    public enum Method: String, Sendable, CaseIterable {
        case get = "GET", post = "POST", put = "PUT", delete = "DELETE"
    }

    /// What a matched request becomes.
    public enum Action: Sendable, Equatable, CustomStringConvertible {
        /// A request to a service: the op, its body built from the request.
        case op(String)
        /// A session endpoint, handled by the edge's identity part (no op behind it).
        case session(SessionAction)
        /// `GET /v1/openapi.json`.
        case openAPI
        /// A live SSE stream held by Pushpin, answered by the edge's streams part (no op behind
        /// it: it asks `order.get` for the scope check, then holds the connection on a channel).
        case stream(StreamAction)
        /// A screen's snapshot (the web kitchen display, the pickup board): the edge composes it
        /// from its stream journal and the kitchen's ops, with the sequence number its stream resumes after.
        case screen(ScreenAction)

        public var description: String {
            switch self {
            case .op(let op): op
            case .session(let action): "session.\(action.rawValue)"
            case .openAPI: "openapi"
            case .stream(let action): action.rawValue
            case .screen(let action): action.rawValue
            }
        }
    }

    /// The SSE streams the streams part answers.
    public enum StreamAction: String, Sendable, CaseIterable {
        /// An order's events as they happen (`order.placed` … `order.ready`, `order.pickedUp`).
        case orderEvents
        /// A device's notifications as they are delivered (`notify.delivery`).
        case deviceEvents
        /// What changes a café's screens (order, kitchen and 86 events, without items or names),
        /// and the edge's heartbeat every second.
        case cafeEvents
        /// The status page's document each time the edge has asked every process (every 2 s).
        case statusEvents
    }

    /// The session endpoints the identity part answers.
    public enum SessionAction: String, Sendable, CaseIterable {
        /// An OpenID Connect ID token for a bearer session.
        case signIn
        /// An App Clip's guest session, bound to its device.
        case guest
        /// The session the bearer token names.
        case current
        /// Revokes the session the bearer token names.
        case signOut
    }

    /// Who may call a route: anyone (signing in, the API description), or sessions of these roles.
    public enum Access: Sendable, Equatable {
        case anyone
        case roles(Set<Role>)
    }

    /// What the request's body is.
    public enum Body: Sendable, Equatable {
        /// None: a request with one is refused.
        case none
        /// A JSON object whose members are the op body's (beside those from the path, query,
        /// headers and constants, which it may not repeat). `schema` names its type in the OpenAPI document.
        case object(schema: String, required: Bool)
        /// A JSON object that becomes one member of the op body: `PUT …/preference` sends the
        /// preference, the op takes `{"userId": …, "preference": <body>}`.
        case member(String, schema: String)
    }

    public let method: Method
    /// `/v1/orders/{orderId}`: literal segments and `{name}` parameters, each a whole segment.
    public let path: String
    public let action: Action
    public let access: Access
    /// One line for the API table and the OpenAPI document.
    public let summary: String
    /// Path parameters (one per `{name}`, in order), then query parameters and header fields.
    public let parameters: [Parameter]
    public let body: Body
    /// Members the route fixes: `by: customer` for a customer's cancel, `channel: kiosk` for a guest order.
    public let constants: [(String, JSONValue)]
    /// The schema name of the success body (`OrderView`), as the op's reply body is called in `Shared/Messages/Requests`.
    public let reply: String

    /// A route; its path parameters are read from `path`, each a string of at most `Parameter.maxPathBytes`.
    public init(_ method: Method, _ path: String, _ action: Action, access: Access, summary: String, query: [Parameter] = [],
                headers: [Parameter] = [], body: Body = .none, constants: [(String, JSONValue)] = [], reply: String) {
        self.method = method
        self.path = path
        self.action = action
        self.access = access
        self.summary = summary
        segments = Self.templateSegments(path)
        let pathParameters = segments.compactMap { segment -> Parameter? in
            guard case .parameter(let name) = segment else { return nil }
            return Parameter(name, in: .path, .string(maxBytes: Parameter.maxPathBytes), required: true)
        }
        self.parameters = pathParameters + query + headers
        self.body = body
        self.constants = constants
        self.reply = reply
    }

    /// A template segment: literal text or a `{name}` parameter.
    public enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    /// The template's segments, split once when the route is made: matching reads them for
    /// every route on every request (splitting each time was a tenth of the edge's CPU).
    public let segments: [Segment]

    static func templateSegments(_ path: String) -> [Segment] {
        path.split(separator: "/").map { part in
            part.hasPrefix("{") && part.hasSuffix("}") ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
    }

    /// `GET /v1/menu`.
    public var name: String { "\(method.rawValue) \(path)" }

    /// The op this route calls, or nil for the edge's own actions.
    public var op: String? {
        if case .op(let op) = action { return op }
        return nil
    }

    /// Whether the route answers a held SSE stream (`text/event-stream`) rather than one JSON body.
    public var isStream: Bool {
        if case .stream = action { return true }
        return false
    }

    /// The roles of a route that needs a session; empty for one open to anyone.
    public var roles: Set<Role> {
        if case .roles(let roles) = access { return roles }
        return []
    }

    /// The op body members this route fills from somewhere other than the JSON body.
    public var filledMembers: [String] { parameters.map(\.member) + constants.map(\.0) }
}

extension Route: CustomStringConvertible {
    public var description: String { name }
}
