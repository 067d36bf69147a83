/// An HTTP answer as the edge hands it to Pushpin: status, header fields in order, body bytes.
public struct EdgeResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    /// An answer as given.
    public init(status: Int, headers: [(String, String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON answer: a service's reply body passed on as it came.
    public static func json(_ body: [UInt8], status: Int = 200) -> EdgeResponse {
        EdgeResponse(status: status, headers: [("Content-Type", "application/json")], body: body)
    }

    /// The same status, fields in order, and body.
    public static func == (lhs: EdgeResponse, rhs: EdgeResponse) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body && lhs.headers.map { "\($0.0): \($0.1)" } == rhs.headers.map { "\($0.0): \($0.1)" }
    }

    /// The zmq-http packet answering the request whose id is `requestId`.
    public func zhttp(answering requestId: [UInt8], from instance: String? = nil) -> ZhttpResponse {
        ZhttpResponse(id: requestId, from: instance.map { Array($0.utf8) }, code: status, reason: ProblemStatus.reason(status),
                      headers: HTTPHeaders(headers), body: body)
    }
}
