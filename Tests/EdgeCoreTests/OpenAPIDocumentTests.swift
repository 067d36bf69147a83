import EdgeCore
import Foundation
import Policy
import Testing

/// The OpenAPI document against the route table, as ProtocolDocumentTests holds PROTOCOL.md to the
/// ops: every route is there with its method, parameters, body and responses, and nothing else is.
@Suite("GET /v1/openapi.json: the route table as OpenAPI 3.1")
struct OpenAPIDocumentTests {
    let document: [String: Any]

    init() throws {
        document = try #require(JSONSerialization.jsonObject(with: Data(OpenAPIDocument.encoded())) as? [String: Any])
    }

    var paths: [String: [String: Any]] { (document["paths"] as? [String: [String: Any]]) ?? [:] }

    func entry(_ route: Route) -> [String: Any]? {
        paths[route.path]?[route.method.rawValue.lowercased()] as? [String: Any]
    }

    @Test("it is OpenAPI 3.1 with the bearer scheme and the Problem schema")
    func header() throws {
        #expect(document["openapi"] as? String == "3.1.0")
        let components = try #require(document["components"] as? [String: Any])
        let schemes = try #require(components["securitySchemes"] as? [String: [String: String]])
        #expect(schemes["bearer"] == ["type": "http", "scheme": "bearer"])
        #expect((components["schemas"] as? [String: Any])?["Problem"] != nil)
    }

    @Test("every route is there with its method, op and roles; nothing else is", arguments: RouteTable.v1)
    func routePresent(_ route: Route) throws {
        let operation = try #require(entry(route), "\(route.name) is missing")
        #expect(operation["x-action"] as? String == route.action.description)
        #expect(operation["x-op"] as? String == route.op)
        #expect(Set(operation["x-roles"] as? [String] ?? []) == Set(route.roles.map(\.rawValue)))
        let security = operation["security"] as? [[String: [String]]] ?? []
        #expect(security.isEmpty == (route.access == .anyone))
        #expect(operation["operationId"] as? String == OpenAPIDocument.operationId(route))
    }

    @Test("nothing but the routes: as many operations as routes, unique operation ids")
    func nothingExtra() {
        let operations = paths.flatMap { path, methods in methods.keys.map { "\($0.uppercased()) \(path)" } }
        #expect(Set(operations) == Set(RouteTable.v1.map(\.name)))
        #expect(operations.count == RouteTable.v1.count)
        let ids = paths.values.flatMap { $0.values.compactMap { ($0 as? [String: Any])?["operationId"] as? String } }
        #expect(Set(ids).count == ids.count)
    }

    @Test("each parameter: its name, where, whether required, and its type's bounds", arguments: RouteTable.v1)
    func parameters(_ route: Route) throws {
        let operation = try #require(entry(route))
        let documented = operation["parameters"] as? [[String: Any]] ?? []
        #expect(documented.count == route.parameters.count, "\(route.name)")
        for (parameter, entry) in zip(route.parameters, documented) {
            #expect(entry["name"] as? String == parameter.name && entry["in"] as? String == parameter.location.rawValue, "\(route.name)")
            #expect(entry["required"] as? Bool == parameter.required, "\(route.name) \(parameter.name)")
            let schema = try #require(entry["schema"] as? [String: Any])
            switch parameter.kind {
            case .string(let maxBytes): #expect(schema["type"] as? String == "string" && schema["maxLength"] as? Int == maxBytes)
            case .integer(let range):
                #expect(schema["type"] as? String == "integer" && schema["minimum"] as? Int64 == range.lowerBound && schema["maximum"] as? Int64 == range.upperBound)
            case .boolean: #expect(schema["type"] as? String == "boolean")
            }
        }
        let pathNames = route.segments.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
        #expect(pathNames == route.parameters.filter { $0.location == .path }.map(\.name), "every {name} is a path parameter")
    }

    @Test("the request body when the route takes one, and every response with its schema", arguments: RouteTable.v1)
    func bodiesAndResponses(_ route: Route) throws {
        let operation = try #require(entry(route))
        let body = operation["requestBody"] as? [String: Any]
        #expect((body == nil) == (route.body == .none), "\(route.name)")
        if case .object(let schema, let required) = route.body {
            #expect(body?["required"] as? Bool == required)
            #expect(((body?["content"] as? [String: Any])?["application/json"] as? [String: Any]).flatMap { ($0["schema"] as? [String: String])?["$ref"] }
                    == "#/components/schemas/\(schema)")
        }
        let responses = try #require(operation["responses"] as? [String: [String: Any]])
        #expect(Set(responses.keys) == Set(([Route.successStatus] + route.problemStatuses).map(String.init)), "\(route.name)")
        let schemas = (document["components"] as? [String: Any])?["schemas"] as? [String: Any] ?? [:]
        for (status, response) in responses {
            let content = try #require(response["content"] as? [String: [String: [String: String]]])
            let type = status == "200" ? route.successContentType : "application/problem+json"
            let reference = try #require(content[type]?["schema"]?["$ref"], "\(route.name) \(status)")
            #expect(reference == "#/components/schemas/" + (status == "200" ? route.reply : "Problem"))
            #expect(schemas[String(reference.dropFirst("#/components/schemas/".count))] != nil, "\(reference) is defined")
        }
    }

    @Test("the document is the same bytes every time (it is served as it is generated)")
    func stable() {
        #expect(OpenAPIDocument.encoded() == OpenAPIDocument.encoded())
    }
}
