import EdgeCore
import EdgeServer
import Foundation
import Messages
import Policy

/// Targets for what Pushpin hands the HTTP edge: tnetstrings, zmq-http request packets, and the
/// requests inside them through the route table.
enum EdgeTargets {
    /// Room for the seeds, tight enough that mutants meet every limit.
    static let tight = TNetStringLimits(maxBytes: 4_096, maxDepth: 4, maxElements: 64, maxStringBytes: 512, maxNumberBytes: 12)

    /// Any bytes through the decoder, with Pushpin's limits and tight ones. What decodes must
    /// encode to a value that decodes equal; without floats (whose decimal text has many forms) to
    /// the very bytes it came from.
    static func tnetstrings() -> FuzzTarget {
        FuzzTarget("tnetstrings", "any bytes through the tnetstring decoder (zmq-http's and tight limits); what it reads encodes back to the same value and bytes",
                   seeds: { (zhttpSeeds() + captured()).map { Data($0.dropFirst()) } + scalarSeeds() }) { input in
            for limits in [TNetStringLimits.zhttp, tight] {
                let value: TNetString
                do {
                    value = try TNetStringDecoder(limits: limits).decode(input)
                } catch let error as TNetStringError {
                    if error.offset < 0 || error.offset > input.count { return "an error offset \(error.offset) outside the input of \(input.count) bytes" }
                    continue
                } catch {
                    return "the decoder threw \(type(of: error))"
                }
                let encoded = value.encoded()
                guard let again = try? TNetStringDecoder(limits: limits).decode(encoded), again == value else {
                    return "\(value.kind) did not read back from its own encoding"
                }
                if !containsFloat(value), encoded != [UInt8](input) { return "a canonical value encoded to other bytes than it was read from" }
            }
            return nil
        }
    }

    /// zmq-http frames (input starting with `T`), or a request written as NUL-separated method,
    /// URI, body and `name: value` header lines (anything else): decoded, then routed for every
    /// role and none. A request read must frame and read back equal; a refusal must be answerable
    /// as a problem; a routed op's body must be one JSON object no larger than its parts allow.
    static func zhttp() -> FuzzTarget {
        let router = EdgeRouter()
        var limits = ZhttpLimits.standard
        limits.tnetstring = TNetStringLimits(maxBytes: 200_000, maxDepth: 8, maxElements: 512, maxStringBytes: 100_000)
        return FuzzTarget("zhttp", "zmq-http request packets and the HTTP requests in them through the /v1 route table, for every role; service replies as the edge passes them on",
                          seeds: { zhttpSeeds() + captured() + requestSeeds() + Seeds.examples(kind: "reply") }) { input in
            // The same bytes as a service's reply: passed on only as one JSON object.
            let answer = ServiceExchange.response(toReply: input, from: "fuzz")
            if answer.status == 200, !((try? JSONSerialization.jsonObject(with: Data(answer.body))) is [String: Any]) {
                return "a reply's body passed on that is not a JSON object: \(String(decoding: answer.body.prefix(200), as: UTF8.self))"
            }
            let request: ZhttpRequest
            if input.first == UInt8(ascii: "T") {
                do {
                    request = try ZhttpRequest.decode(input, limits: limits)
                } catch let refusal as ZhttpRefusal {
                    if case .answered(let id, _, let problem) = refusal {
                        return check(problem.response.zhttp(answering: id))
                    }
                    return nil
                } catch {
                    return "decode threw \(type(of: error))"
                }
                guard let again = try? ZhttpRequest.decode(request.frame, limits: limits), again == request else {
                    return "a request did not read back from its own frame"
                }
            } else {
                request = written(input)
            }
            for role in [nil] + Role.allCases.map(Optional.some) {
                do {
                    let call = try router.resolve(request, role: role)
                    guard call.route.op != nil else {
                        // An SSE route: the streams read Last-Event-ID themselves.
                        if call.route.isStream, let problem = lastEventId(request) { return problem }
                        continue
                    }
                    guard let object = try? JSONSerialization.jsonObject(with: Data(call.body)), object is [String: Any] else {
                        return "\(call.route.name) built a body that is not a JSON object: \(String(decoding: call.body.prefix(200), as: UTF8.self))"
                    }
                    if call.body.count > request.body.count + request.uri.utf8.count + 1_024 + request.headers.reduce(0, { $0 + $1.value.utf8.count }) {
                        return "\(call.route.name) built a body of \(call.body.count) bytes from a request of \(request.body.count)"
                    }
                    if let problem = role.flatMap({ call.route.roles.contains($0) ? nil : $0 }) {
                        return "\(call.route.name) let a \(problem.rawValue) session through"
                    }
                } catch let error as Problem {
                    if ProblemStatus.statuses[error.code] == nil { return "a problem with a code that has no status: \(error.code)" }
                    if error.detail.count > 1_000 { return "a problem echoes too much: \(error.detail.prefix(200))…" }
                    if let problem = check(error.response.zhttp(answering: request.id)) { return problem }
                } catch {
                    return "resolve threw \(type(of: error))"
                }
            }
            return nil
        }
    }

    /// A stream's Last-Event-ID: an id it reads writes back as the very text; anything else is 422.
    static func lastEventId(_ request: ZhttpRequest) -> String? {
        let text = request.headers["Last-Event-ID"]
        do {
            if let id = try StreamEventId.parse(text), String(id) != text { return "Last-Event-ID \(text ?? "") read as \(id)" }
        } catch {
            if error.status != 422 { return "a Last-Event-ID refused with \(error.status), not 422" }
        }
        return nil
    }

    /// An answer must frame, read back as Pushpin reads it, and carry a problem body that is JSON.
    static func check(_ response: ZhttpResponse) -> String? {
        guard ZhttpResponse.decode(response.frame, limits: TNetStringLimits(maxBytes: 1 << 20, maxDepth: 8, maxElements: 4_096, maxStringBytes: 1 << 20)) == response else {
            return "an answer did not read back from its frame"
        }
        guard (try? JSONSerialization.jsonObject(with: Data(response.body))) is [String: Any] else { return "a problem body that is not a JSON object" }
        return nil
    }

    /// `method\0uri\0body\0Name: value\0…` as a request.
    static func written(_ input: Data) -> ZhttpRequest {
        let parts = input.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        var headers = HTTPHeaders()
        for line in parts.dropFirst(3) {
            let pair = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2 { headers.append(pair[0], pair[1]) }
        }
        return ZhttpRequest(id: [1], method: parts.first ?? "", uri: parts.count > 1 ? parts[1] : "", headers: headers,
                            body: parts.count > 2 ? Array(parts[2].utf8) : [])
    }

    static func containsFloat(_ value: TNetString) -> Bool {
        switch value {
        case .float: true
        case .list(let items): items.contains(where: containsFloat)
        case .dictionary(let members): members.contains { containsFloat($0.value) }
        default: false
        }
    }

    /// Requests as Pushpin 1.36 sent them, captured for `PushpinCaptureTests`.
    static func captured() -> [Data] {
        let folder = Seeds.repositoryRoot.appendingPathComponent("Tests/EdgeCoreTests/Fixtures")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".zhttp") }.sorted().compactMap { try? Data(contentsOf: folder.appendingPathComponent($0)) }
    }

    static func scalarSeeds() -> [Data] {
        let values: [TNetString] = [.integer(Int64.min), .integer(0), .float(1.5e-7), .bool(true), .null, .list([]), .dictionary([]),
                                    .list([.text("hello"), .integer(12_345), .list([.null, .bool(false)])]),
                                    .dictionary([("a", .dictionary([("b", .list([.float(-0.5)]))]))])]
        return values.map { Data($0.encoded()) }
    }

    /// One request per route as Pushpin would send it, its body PROTOCOL.md's example of the op where there is one.
    static func zhttpSeeds() -> [Data] {
        RouteTable.v1.map { route in
            let (uri, body, headers) = sample(route)
            return ZhttpRequest(id: Array("pushpin-\(route.name.count)".utf8), from: Array("pushpin-proxy".utf8), method: route.method.rawValue,
                                uri: "https://cafe.example" + uri, headers: headers, body: Array(body.utf8), peerAddress: "10.1.2.3").frame
        }
    }

    /// The same requests, written out for the router alone.
    static func requestSeeds() -> [Data] {
        RouteTable.v1.map { route in
            let (uri, body, headers) = sample(route)
            return Data(([route.method.rawValue, uri, body] + headers.map { "\($0.name): \($0.value)" }).joined(separator: "\0").utf8)
        }
    }

    /// A request a route takes: its path and required query filled in, its header, a body.
    static func sample(_ route: Route) -> (uri: String, body: String, headers: HTTPHeaders) {
        let path = route.segments.map { segment -> String in
            switch segment {
            case .literal(let text): text
            case .parameter(let name): "x-\(name)"
            }
        }.joined(separator: "/")
        let query = route.parameters.filter { $0.location == .query }.map { parameter -> String in
            switch parameter.kind {
            case .string: "\(parameter.name)=en_US"
            case .integer(let range): "\(parameter.name)=\(range.upperBound)"
            case .boolean: "\(parameter.name)=true"
            }
        }
        var headers = HTTPHeaders([("Content-Type", "application/json"), ("Authorization", "Bearer abc")])
        for header in route.parameters where header.location == .header { headers.append(header.name, header.name == "Last-Event-ID" ? "45" : "key-00000001") }
        var body = ""
        if route.body != .none {
            let example = route.op.flatMap { Seeds.examples(kind: "request", name: $0).first }
                .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }?["body"] as? [String: Any]
            let filled = Set(route.filledMembers)
            let own = (example ?? [:]).filter { !filled.contains($0.key) }
            body = (try? JSONSerialization.data(withJSONObject: own, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        }
        return ("/" + path + (query.isEmpty ? "" : "?" + query.joined(separator: "&")), body, headers)
    }
}
