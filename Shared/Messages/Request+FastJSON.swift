/// Hand-written readers for requests: every request's head, and whole requests whose body has a reader.
extension RequestHead: FastJSONDecodable {
    /// `op` and `id`; the body is skipped (its member names still checked for repeats).
    static func read(from scanner: inout JSONScanner) -> RequestHead? {
        var op: String?, id: String?
        let ok = scanner.object { sc, key in
            switch key {
            case "op": fill(&op, sc.string())
            case "id": fill(&id, sc.string())
            default: nil
            }
        }
        guard ok, let op else { return nil }
        return RequestHead(op: op, id: id)
    }
}

extension Request: FastJSONDecodable where Body: FastJSONDecodable {
    static func read(from scanner: inout JSONScanner) -> Request? {
        var op: String?, id: String?, body: Body?
        let ok = scanner.object { sc, key in
            switch key {
            case "op": fill(&op, sc.string())
            case "id": fill(&id, sc.string())
            case "body": fill(&body, Body.read(from: &sc))
            default: nil
            }
        }
        guard ok, let op, let body else { return nil }
        return Request(op: op, id: id ?? "", body: body)
    }
}
