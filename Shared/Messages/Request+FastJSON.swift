/// Hand-written readers for requests: every request's head, and whole requests whose body has a reader.
extension RequestHead: FastJSONDecodable {
    /// `op`, `id` and `onBehalfOf`; the body is skipped (its member names still checked for repeats).
    static func read(from scanner: inout JSONScanner) -> RequestHead? {
        var op: String?, id: String?, onBehalfOf: OnBehalfOf?
        let ok = scanner.object { sc, key in
            switch key {
            case "op": fill(&op, sc.string())
            case "id": fill(&id, sc.string())
            case "onBehalfOf": fill(&onBehalfOf, OnBehalfOf.read(from: &sc))
            default: nil
            }
        }
        guard ok, let op else { return nil }
        return RequestHead(op: op, id: id, onBehalfOf: onBehalfOf)
    }
}

extension OnBehalfOf: FastJSONDecodable {
    /// Strings only; a null or any other value gives up, and Foundation words the error.
    static func read(from scanner: inout JSONScanner) -> OnBehalfOf? {
        var role: String?, name: String?, userId: String?, deviceId: String?, cafeId: String?
        let ok = scanner.object { sc, key in
            switch key {
            case "role": fill(&role, sc.string())
            case "name": fill(&name, sc.string())
            case "userId": fill(&userId, sc.string())
            case "deviceId": fill(&deviceId, sc.string())
            case "cafeId": fill(&cafeId, sc.string())
            default: nil
            }
        }
        guard ok, let role, let name else { return nil }
        return OnBehalfOf(role: role, name: name, userId: userId, deviceId: deviceId, cafeId: cafeId)
    }
}

extension Request: FastJSONDecodable where Body: FastJSONDecodable {
    static func read(from scanner: inout JSONScanner) -> Request? {
        var op: String?, id: String?, onBehalfOf: OnBehalfOf?, body: Body?
        let ok = scanner.object { sc, key in
            switch key {
            case "op": fill(&op, sc.string())
            case "id": fill(&id, sc.string())
            case "onBehalfOf": fill(&onBehalfOf, OnBehalfOf.read(from: &sc))
            case "body": fill(&body, Body.read(from: &sc))
            default: nil
            }
        }
        guard ok, let op, let body else { return nil }
        return Request(op: op, id: id ?? "", onBehalfOf: onBehalfOf, body: body)
    }
}
