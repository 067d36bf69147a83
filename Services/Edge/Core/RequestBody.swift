import Foundation
import Messages

/// Builds an op body from a route's members and the request's JSON body without re-encoding the
/// client's JSON: the members go first, then the body object's own members as they were sent, so
/// numbers, escapes and unknown fields reach the service exactly as the client wrote them.
enum RequestBody {
    /// JSON's whitespace (RFC 8259), around the body object.
    static let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]

    static func build(route: Route, members: [(String, JSONValue)], headers: HTTPHeaders, body: [UInt8]) throws(Problem) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (index, member) in members.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendQuoted(member.0, to: &out)
            out.append(UInt8(ascii: ":"))
            member.1.append(to: &out)
        }
        let object = try jsonObject(route: route, headers: headers, body: body)
        switch route.body {
        case .none:
            break
        case .object:
            if let object, !object.inner.isEmpty {
                let filled = Set(route.filledMembers)
                if let repeated = object.names.sorted().first(where: filled.contains) {
                    let source = route.parameters.first { $0.member == repeated }.map { "the \($0.location.rawValue) (\($0.name))" } ?? "the route"
                    throw Problem(.invalidField, "field \(repeated) comes from \(source); leave it out of the body")
                }
                if !members.isEmpty { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: object.inner)
            }
        case .member(let name, _):
            guard let object else { throw Problem(.invalidField, "\(route.name) needs a JSON body: the \(name)") }
            if !members.isEmpty { out.append(UInt8(ascii: ",")) }
            JSONText.appendQuoted(name, to: &out)
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: object.whole)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The body's object: its member names, its bytes, and the bytes between its braces. nil for
    /// no body where the route allows none; a problem for a body that is not one JSON object.
    static func jsonObject(route: Route, headers: HTTPHeaders, body: [UInt8]) throws(Problem) -> (names: [String], whole: ArraySlice<UInt8>, inner: ArraySlice<UInt8>)? {
        guard let first = body.firstIndex(where: { !whitespace.contains($0) }) else {
            switch route.body {
            case .none, .object(_, required: false): return nil
            case .object, .member: throw Problem(.invalidField, "\(route.name) needs a JSON body")
            }
        }
        if case .none = route.body { throw Problem(.malformed, "\(route.name) takes no body") }
        let type = headers["Content-Type"]?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard type == "application/json" else {
            throw Problem(.httpUnsupportedMediaType, "a body is application/json, not \(Quoting.quoted(type ?? "unlabelled"))")
        }
        let data = Data(body)
        if Wire.nestsTooDeep(data) {
            throw Problem(.invalidField, "the document nests arrays and objects more than \(Wire.maxNestingDepth) levels deep")
        }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: data, options: [])
        } catch {
            throw Problem(.malformed, "the body is not JSON")
        }
        guard let dictionary = parsed as? [String: Any] else { throw Problem(.malformed, "the body is not a JSON object") }
        if let repeated = Wire.repeatedMember(in: data) {
            throw Problem(.malformed, "field \(repeated) is given more than once")
        }
        let last = body.lastIndex(where: { !whitespace.contains($0) }) ?? first
        // JSONSerialization took it as one object: after the whitespace it opens and closes with braces.
        guard body[first] == UInt8(ascii: "{"), body[last] == UInt8(ascii: "}"), first < last else {
            throw Problem(.malformed, "the body is not a JSON object")
        }
        let inner = body[(first + 1)..<last]
        let blank = !inner.contains { !whitespace.contains($0) }
        return (Array(dictionary.keys), body[first...last], blank ? [] : inner)
    }
}
