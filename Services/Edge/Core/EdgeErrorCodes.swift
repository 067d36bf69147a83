import Messages

/// The codes the HTTP edge itself answers with, before any service is asked: what HTTP can get
/// wrong that a ZeroMQ request cannot. They travel in a problem's `code` member beside the
/// services' own codes (`ServiceError.swift`), and `ProblemStatus` gives each its status.
extension ErrorCode {
    /// No route has this path.
    public static let httpNotFound: ErrorCode = "http.notFound"
    /// A route has this path, but not this method; the answer's `Allow` header lists the methods.
    public static let httpMethodNotAllowed: ErrorCode = "http.methodNotAllowed"
    /// A body that is not `application/json`.
    public static let httpUnsupportedMediaType: ErrorCode = "http.unsupportedMediaType"
    /// A request URI longer than the edge reads.
    public static let httpURITooLong: ErrorCode = "http.uriTooLong"
    /// Too many header fields, or one or all of them too long.
    public static let httpHeadersTooLarge: ErrorCode = "http.headersTooLarge"
    /// A route that needs a session, called without a valid bearer token.
    public static let httpUnauthenticated: ErrorCode = "http.unauthenticated"
    /// Too many requests from one token or address; the answer's `Retry-After` says when to retry.
    public static let httpRateLimited: ErrorCode = "http.rateLimited"
    /// The service an op goes to is down or not connected; the detail says which.
    public static let httpServiceUnavailable: ErrorCode = "http.serviceUnavailable"
}

/// The edge's own codes, for the tests and the manual that must list each.
public enum EdgeErrorCodes {
    /// Each code the edge answers with itself.
    public static let all: [ErrorCode] = [.httpNotFound, .httpMethodNotAllowed, .httpUnsupportedMediaType, .httpURITooLong,
                                          .httpHeadersTooLarge, .httpUnauthenticated, .httpRateLimited, .httpServiceUnavailable]
}
