import EdgeCore
import Foundation
import Messages
import Policy
import Testing

/// Every way a request is refused before any service is asked, and the role rules: each route has
/// a caller who must be refused.
@Suite("route table: refusals")
struct EdgeRefusalTests {
    let router = EdgeRouter()
    static let json = HTTPHeaders([("Content-Type", "application/json")])

    func problem(_ method: String, _ uri: String, body: String = "", headers: HTTPHeaders = json, role: Role? = .phone) -> Problem? {
        do {
            _ = try router.resolve(method: method, uri: uri, headers: headers, body: Array(body.utf8), role: role)
            return nil
        } catch {
            return error
        }
    }

    @Test("no route: 404; the path with another method: 405 naming the methods it takes")
    func unknownPaths() throws {
        #expect(problem("GET", "/v1/nothing")?.status == 404)
        #expect(problem("GET", "/v2/menu")?.status == 404)
        #expect(problem("GET", "/v1/menu/")?.status == 404, "a trailing slash is another path")
        #expect(problem("GET", "/v1/orders//history")?.status == 404, "an empty parameter matches nothing")
        let wrongMethod = try #require(problem("PATCH", "/v1/devices/d1/reminders"))
        #expect(wrongMethod.status == 405 && wrongMethod.code == ErrorCode.httpMethodNotAllowed.rawValue)
        #expect(wrongMethod.headers.first { $0.0 == "Allow" }?.1 == "POST, GET")
    }

    @Test("without a session: 401 with WWW-Authenticate; signing in and the document need none")
    func unauthenticated() throws {
        let refused = try #require(problem("GET", "/v1/menu?locale=en_US", role: nil))
        #expect(refused.status == 401 && refused.code == ErrorCode.httpUnauthenticated.rawValue)
        #expect(refused.headers.contains { $0.0 == "WWW-Authenticate" && $0.1 == "Bearer" })
        #expect(problem("GET", "/v1/openapi.json", role: nil) == nil)
        #expect(problem("POST", "/v1/sessions", body: #"{"idToken":"x"}"#, role: nil) == nil)
        #expect(problem("POST", "/v1/sessions/guest", body: #"{"deviceId":"clip-1"}"#, role: nil) == nil)
    }

    /// A request that passes the route's own checks, for the role tests.
    static func sample(_ route: Route) -> (uri: String, body: String, headers: HTTPHeaders) {
        let path = route.segments.map { segment -> String in
            switch segment {
            case .literal(let text): text
            case .parameter(let name): "x-\(name)"
            }
        }.joined(separator: "/")
        let query = route.parameters.filter { $0.location == .query && $0.required }.map { "\($0.name)=en_US" }
        var headers = json
        for header in route.parameters where header.location == .header { headers.append(header.name, "key-00000001") }
        let body = route.body == .none ? "" : "{}"
        return ("/" + path + (query.isEmpty ? "" : "?" + query.joined(separator: "&")), body, headers)
    }

    @Test("every route: each session role it is not open to gets 403 auth.forbidden, each it is open to passes", arguments: RouteTable.v1)
    func roles(_ route: Route) throws {
        let (uri, body, headers) = Self.sample(route)
        for role in Role.allCases {
            let refused = problem(route.method.rawValue, uri, body: body, headers: headers, role: role)
            if route.access == .anyone || route.roles.contains(role) {
                #expect(refused == nil, "\(role) on \(route.name): \(refused.map(String.init(describing:)) ?? "")")
            } else {
                #expect(refused?.code == ErrorCode.forbidden.rawValue && refused?.status == 403, "\(role) on \(route.name)")
            }
        }
        if route.access != .anyone {
            #expect(problem(route.method.rawValue, uri, body: body, headers: headers, role: nil)?.status == 401, "\(route.name) without a session")
        }
    }

    @Test("a route is never open to a role its op is not (OpAccess stays the rule at the service)", arguments: RouteTable.v1)
    func rolesWithinOpAccess(_ route: Route) throws {
        guard let op = route.op else { return }
        let rule = try #require(OpAccess.rules[op], "\(op) has no OpAccess rule")
        #expect(route.roles.isSubset(of: rule.roles), "\(route.name): \(route.roles) is wider than \(op)'s \(rule.roles)")
        #expect(route.roles.isSubset(of: RouteTable.sessionRoles) && !route.roles.isEmpty)
    }

    @Test("query parameters: a required one missing, a wrong type, out of range, unknown or repeated: 422", arguments: [
        "/v1/menu", "/v1/menu?locale=", "/v1/cafes/macs/windows?locale=en_US&count=97", "/v1/cafes/macs/windows?locale=en_US&count=0",
        "/v1/cafes/macs/windows?locale=en_US&count=2.5", "/v1/cafes/macs/windows?locale=en_US&count=-0x1", "/v1/menu?locale=en_US&lang=de",
        "/v1/menu?locale=en_US&locale=de_DE", "/v1/devices/d/reminders?includeDone=yes", "/v1/devices/d/inbox?limit=99999999999999999999",
    ])
    func queryRefusals(_ uri: String) {
        let refused = problem("GET", uri)
        #expect(refused?.status == 422 && refused?.code == ErrorCode.invalidField.rawValue, "\(uri): \(refused.map(String.init(describing:)) ?? "accepted")")
    }

    @Test("bad percent-encoding or a control character in the path or query: 400")
    func encodings() {
        for uri in ["/v1/orders/%ZZ", "/v1/orders/%", "/v1/orders/%00", "/v1/orders/%FF%FE", "/v1/menu?locale=%E2%28"] {
            #expect(problem("GET", uri)?.status == 400, "\(uri)")
        }
        #expect(problem("GET", "/v1/orders/caf%C3%A9") == nil, "UTF-8 escapes read")
        #expect(problem("GET", "https://cafe.example:8443/v1/orders/o1?locale=en_US") == nil, "an absolute URI, as Pushpin sends it")
        #expect(problem("GET", "cafe.example/v1/menu")?.status == 400)
    }

    @Test("POST /v1/orders without an Idempotency-Key, or with one in the body as well, is refused")
    func idempotencyKey() {
        let body = #"{"channel":"app","cafeId":"macs","reservationId":"r","items":[],"locale":"en_US"}"#
        #expect(problem("POST", "/v1/orders", body: body)?.status == 422)
        var headers = Self.json
        headers.append("Idempotency-Key", "k-00000001")
        #expect(problem("POST", "/v1/orders", body: body, headers: headers) == nil)
        var repeated = headers
        repeated.append("idempotency-key", "k-00000002")
        #expect(problem("POST", "/v1/orders", body: body, headers: repeated)?.status == 422, "two keys: which one counts?")
        let twice = problem("POST", "/v1/orders", body: #"{"idempotencyKey":"other-key","channel":"app"}"#, headers: headers)
        #expect(twice?.status == 422 && twice?.detail.contains("Idempotency-Key") == true)
    }

    @Test("a body member the path, the query or the route fixes is refused, never overridden")
    func noOverride() {
        #expect(problem("POST", "/v1/devices/d1/reminders", body: #"{"deviceId":"someone-else","cafeId":"c","text":"t"}"#)?.status == 422)
        #expect(problem("POST", "/v1/orders/o1/cancel", body: #"{"by":"kitchen","reason":"x"}"#)?.status == 422, "a customer cannot cancel as the kitchen")
        var headers = Self.json
        headers.append("Idempotency-Key", "kiosk-0001")
        #expect(problem("POST", "/v1/cafes/macs/guest-orders", body: #"{"channel":"app"}"#, headers: headers, role: .kiosk)?.status == 422,
                "a kiosk cannot place an app order")
    }

    @Test("bodies: none where none is taken, JSON objects only, labelled application/json", arguments: [
        ("GET", "/v1/devices/d/nearest", "{}", 400),
        ("POST", "/v1/devices/d/reminders", "", 422),
        ("POST", "/v1/devices/d/reminders", "   ", 422),
        ("POST", "/v1/devices/d/reminders", "not json", 400),
        ("POST", "/v1/devices/d/reminders", "[1,2]", 400),
        ("POST", "/v1/devices/d/reminders", "\"text\"", 400),
        ("POST", "/v1/devices/d/reminders", "{\"a\":1}{}", 400),
        ("POST", "/v1/devices/d/reminders", "{\"text\":\"a\",\"text\":\"b\"}", 400),
        ("POST", "/v1/devices/d/reminders", String(repeating: "[", count: 65) + String(repeating: "]", count: 65), 422),
        ("PUT", "/v1/users/u/preference", "", 422),
        ("PUT", "/v1/users/u/preference", "[]", 400),
    ])
    func bodies(_ method: String, _ uri: String, _ body: String, _ status: Int) {
        #expect(problem(method, uri, body: body)?.status == status, "\(method) \(uri) \(body.prefix(20))")
    }

    @Test("a body labelled other than application/json: 415; a charset parameter is fine")
    func mediaType() {
        let body = #"{"cafeId":"c","text":"t"}"#
        #expect(problem("POST", "/v1/devices/d/reminders", body: body, headers: HTTPHeaders([("Content-Type", "text/plain")]))?.status == 415)
        #expect(problem("POST", "/v1/devices/d/reminders", body: body, headers: HTTPHeaders())?.status == 415)
        #expect(problem("POST", "/v1/devices/d/reminders", body: body, headers: HTTPHeaders([("content-type", "Application/JSON; charset=utf-8")])) == nil)
    }

    @Test("no two routes of one method can match the same path")
    func unambiguous() {
        let routes = RouteTable.v1
        for (i, a) in routes.enumerated() {
            for b in routes[(i + 1)...] where a.method == b.method && a.segments.count == b.segments.count {
                let overlap = zip(a.segments, b.segments).allSatisfy { pair in
                    if case .literal(let x) = pair.0, case .literal(let y) = pair.1 { return x == y }
                    return true
                }
                #expect(!overlap, "\(a.name) and \(b.name) can match the same request")
            }
        }
    }
}
