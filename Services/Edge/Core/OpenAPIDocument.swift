import Policy

/// `GET /v1/openapi.json`: the route table written as an OpenAPI 3.1 document, so the API a
/// client reads is the one the edge answers (`OpenAPIDocumentTests` holds each to the other).
/// Each operation carries its op (`x-op`) and roles (`x-roles`) beside the standard members;
/// request and reply bodies name the op's body types (`Shared/Messages/Requests`, described
/// member by member in PROTOCOL.md §5).
public enum OpenAPIDocument {
    /// The OpenAPI version the document follows.
    public static let version = "3.1.0"

    /// The document for `routes`.
    public static func make(routes: [Route] = RouteTable.v1) -> JSONValue {
        var paths: [(String, JSONValue)] = []
        for path in unique(routes.map(\.path)) {
            let operations = routes.filter { $0.path == path }.map { ($0.method.rawValue.lowercased(), operation($0)) }
            paths.append((path, .object(operations)))
        }
        return .object([
            ("openapi", .string(version)),
            ("info", .object([
                ("title", .string("Campus Café")),
                ("version", .string("1")),
                ("description", .string("Phones, App Clips, kiosks and kitchen tablets: the platform's ops over HTTPS. Errors are RFC 9457 problems carrying the platform's error code.")),
            ])),
            ("paths", .object(paths)),
            ("components", .object([
                ("securitySchemes", .object([("bearer", .object([("type", .string("http")), ("scheme", .string("bearer"))]))])),
                ("schemas", .object(schemas(routes))),
            ])),
        ])
    }

    /// The document's bytes, as the edge serves them.
    public static func encoded(routes: [Route] = RouteTable.v1) -> [UInt8] { make(routes: routes).encoded() }

    static func operation(_ route: Route) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("operationId", .string(operationId(route))),
            ("summary", .string(route.summary)),
            ("x-action", .string(route.action.description)),
        ]
        if let op = route.op { members.append(("x-op", .string(op))) }
        members.append(("x-roles", .array(Role.allCases.filter(route.roles.contains).map { .string($0.rawValue) })))
        members.append(("security", .array(route.access == .anyone ? [] : [.object([("bearer", .array([]))])])))
        if !route.parameters.isEmpty { members.append(("parameters", .array(route.parameters.map(parameter)))) }
        if let body = requestBody(route) { members.append(("requestBody", body)) }
        var responses: [(String, JSONValue)] = [
            (String(Route.successStatus), .object([
                ("description", .string(ProblemStatus.reason(Route.successStatus))),
                ("content", .object([(route.successContentType, .object([("schema", reference(route.reply))]))])),
            ])),
        ]
        for status in route.problemStatuses {
            responses.append((String(status), .object([
                ("description", .string(ProblemStatus.reason(status))),
                ("content", .object([(Problem.contentType, .object([("schema", reference("Problem"))]))])),
            ])))
        }
        members.append(("responses", .object(responses)))
        return .object(members)
    }

    /// `get_v1_orders_orderId`: unique per route, as OpenAPI requires.
    public static func operationId(_ route: Route) -> String {
        ([route.method.rawValue.lowercased()] + route.segments.map { segment in
            switch segment {
            case .literal(let text): text.replacingOccurrences(of: ".", with: "_").replacingOccurrences(of: "-", with: "_")
            case .parameter(let name): name
            }
        }).joined(separator: "_")
    }

    static func parameter(_ parameter: Parameter) -> JSONValue {
        let schema: JSONValue = switch parameter.kind {
        case .string(let maxBytes): .object([("type", .string("string")), ("minLength", .integer(1)), ("maxLength", .integer(Int64(maxBytes)))])
        case .integer(let range): .object([("type", .string("integer")), ("minimum", .integer(range.lowerBound)), ("maximum", .integer(range.upperBound))])
        case .boolean: .object([("type", .string("boolean"))])
        }
        var members: [(String, JSONValue)] = [("name", .string(parameter.name)), ("in", .string(parameter.location.rawValue)),
                                              ("required", .bool(parameter.required))]
        if !parameter.summary.isEmpty { members.append(("description", .string(parameter.summary))) }
        members.append(("schema", schema))
        return .object(members)
    }

    static func requestBody(_ route: Route) -> JSONValue? {
        let schema: String, required: Bool, description: String
        switch route.body {
        case .none: return nil
        case .object(let name, let isRequired):
            schema = name
            required = isRequired
            let filled = route.filledMembers
            description = filled.isEmpty ? "\(name)" : "\(name) without \(filled.joined(separator: ", ")) (from the path, query, headers or route)"
        case .member(let member, let name):
            schema = name
            required = true
            description = "the \(member) member of the op's body"
        }
        return .object([
            ("description", .string(description)),
            ("required", .bool(required)),
            ("content", .object([("application/json", .object([("schema", reference(schema))]))])),
        ])
    }

    static func reference(_ schema: String) -> JSONValue { .object([("$ref", .string("#/components/schemas/\(schema)"))]) }

    /// Every schema a route names, then `Problem` (RFC 9457 with the platform's `code`).
    static func schemas(_ routes: [Route]) -> [(String, JSONValue)] {
        var names: [String] = []
        for route in routes {
            switch route.body {
            case .none: break
            case .object(let name, _), .member(_, let name): names.append(name)
            }
            names.append(route.reply)
        }
        var schemas: [(String, JSONValue)] = unique(names).map { name in
            (name, .object([("type", .string("object")), ("description", .string(schemaDescription(name)))]))
        }
        let string = JSONValue.object([("type", .string("string"))])
        schemas.append(("Problem", .object([
            ("type", .string("object")),
            ("description", .string("RFC 9457 problem details, served as \(Problem.contentType)")),
            ("required", .array(["type", "title", "status", "detail", "code"].map(JSONValue.string))),
            ("properties", .object([
                ("type", string), ("title", string), ("status", .object([("type", .string("integer"))])), ("detail", string),
                ("code", .object([("type", .string("string")), ("description", .string("the platform's stable error code (PROTOCOL.md §6 and the edge's own)"))])),
                ("details", .object([("type", .string("object")), ("additionalProperties", string)])),
            ])),
        ])))
        return schemas
    }

    static func schemaDescription(_ name: String) -> String {
        switch name {
        case "OpenAPIDocument": "this document"
        case "SignInRequest", "GuestSessionRequest", "Session": "a session body of the edge's identity part"
        case "OrderEventStream": "server-sent events held open: `id` (the event's seq on order-service's order stream), `event` (the type, e.g. order.ready) and `data` (the event's body: the whole order) for each event after Last-Event-ID, then each as it happens"
        case "DeviceEventStream": "server-sent events held open: `id` (the event's seq on notification-service's notify stream), `event` (notify.delivery) and `data` (the notification) for each after Last-Event-ID, then each as it is delivered"
        default: "\(name), as PROTOCOL.md §5 and Shared/Messages/Requests define it"
        }
    }

    static func unique(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }
}
