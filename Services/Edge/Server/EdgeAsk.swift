import EdgeCore
import Messages

/// How the streams part asks a service an op on behalf of a principal: `done` is called on the
/// edge's reactor thread with the service's answer as an HTTP response (200 with the reply's JSON
/// body, or a problem: the service's refusal, 503 when it is not connected, 504 past the deadline).
public typealias EdgeAsk = @Sendable (_ op: String, _ body: [UInt8], _ principal: OnBehalfOf,
                                      _ done: @escaping @Sendable (EdgeResponse) -> Void) -> Void
