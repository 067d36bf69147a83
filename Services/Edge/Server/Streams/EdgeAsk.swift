import EdgeCore
import Messages

/// How the streams part asks a service an op on behalf of a principal: the edge server's
/// closure (the shared interface of issue 26). `done` is called on the server's reactor thread
/// with the service's answer as an HTTP response: 200 with the reply's JSON body, or a problem
/// (403, 404, 503, 504 …). Declared here until the server's declaration is merged; one of the two goes.
public typealias EdgeAsk = @Sendable (_ op: String, _ body: [UInt8], _ principal: OnBehalfOf,
                                      _ done: @escaping @Sendable (EdgeResponse) -> Void) -> Void
