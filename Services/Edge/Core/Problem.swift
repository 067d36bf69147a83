import Messages

/// An RFC 9457 problem: what the edge answers for every refusal, its own or a service's, as
/// `application/problem+json`. `code` is the platform's stable error code (a client matches on
/// it, never on `detail`); `status` follows from it (`ProblemStatus`).
public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: String
    public let status: Int
    /// For humans: the service's message, or the edge's.
    public let detail: String
    /// Machine-readable facts (`nextFreeStart` of a full window), from the service's error.
    public let details: [String: String]?
    /// Header fields the status calls for (`Allow` on 405, `WWW-Authenticate` on 401).
    public let headers: [(String, String)]

    /// A problem of one of the platform's codes; its status follows from the code.
    public init(_ code: ErrorCode, _ detail: String, details: [String: String]? = nil, headers: [(String, String)] = []) {
        self.init(code: code.rawValue, detail: detail, details: details, headers: headers)
    }

    /// A problem of a code as a string (a service's, which this build may not know: 500).
    public init(code: String, detail: String, details: [String: String]? = nil, headers: [(String, String)] = []) {
        self.code = code
        self.status = ProblemStatus.status(of: code)
        self.detail = detail
        self.details = details
        self.headers = headers
    }

    /// A service's refusal, as the edge passes it on.
    public init(_ error: ServiceError) {
        self.init(code: error.code, detail: error.message, details: error.details)
    }

    /// The same code, status, detail, details and fields.
    public static func == (lhs: Problem, rhs: Problem) -> Bool {
        lhs.code == rhs.code && lhs.status == rhs.status && lhs.detail == rhs.detail && lhs.details == rhs.details
            && lhs.headers.map { "\($0.0): \($0.1)" } == rhs.headers.map { "\($0.0): \($0.1)" }
    }

    /// RFC 9457's media type.
    public static let contentType = "application/problem+json"

    /// The problem type URI of a code: a URN, since the codes are documented, not served.
    public static func type(of code: String) -> String { "urn:campus-cafe:error:\(code)" }

    /// The body: `type`, `title`, `status`, `detail`, the `code` extension member, and `details` when given.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("type", .string(Self.type(of: code))),
            ("title", .string(ProblemStatus.reason(status))),
            ("status", .integer(Int64(status))),
            ("detail", .string(detail)),
            ("code", .string(code)),
        ]
        if let details, !details.isEmpty {
            members.append(("details", .object(details.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
        }
        return .object(members)
    }

    /// The whole HTTP answer.
    public var response: EdgeResponse {
        EdgeResponse(status: status, headers: [("Content-Type", Self.contentType)] + headers, body: json.encoded())
    }

    public var description: String { "\(status) \(code): \(detail)" }
}
