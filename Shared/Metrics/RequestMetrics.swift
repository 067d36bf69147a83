/// Requests a process answered, per op: how many, how many failed and with which error code, and
/// how long each took to answer (`LatencyBuckets`). The request router records every request; the
/// figures go out in `health` under `op:<op>:…` keys (`healthDetails`), which the edge's
/// `/metrics` turns into `cafe_requests_total`, `cafe_request_errors_total` and
/// `cafe_request_duration_seconds`.
///
/// Ops are the ones the router answers, so a caller cannot add labels: anything else is counted
/// under `other`, and at most `maxOps` ops and `maxCodes` codes per op are kept.
public struct RequestMetrics: Sendable, Equatable {
    /// One op's figures.
    public struct OpFigures: Sendable, Equatable {
        public var requests: UInt64 = 0
        /// Error replies by error code (`auth.forbidden`, `order.windowFull`, …).
        public var errors: [String: UInt64] = [:]
        public var latency = LatencyBuckets()
    }

    /// The op name requests the router does not answer are counted under.
    public static let otherOp = "other"
    /// The most ops kept; past it, requests count under `other`.
    public static let maxOps = 64
    /// The most error codes kept for one op; past it, under `other`.
    public static let maxCodes = 32

    public private(set) var ops: [String: OpFigures] = [:]

    public init() {}

    /// Counts one request to `op`, answered after `seconds`, with `errorCode` when it failed.
    public mutating func record(op: String, seconds: Double, errorCode: String?) {
        let name = ops[op] != nil || ops.count < Self.maxOps ? op : Self.otherOp
        var figures = ops[name] ?? OpFigures()
        figures.requests &+= 1
        figures.latency.record(seconds: seconds)
        if let errorCode {
            let code = figures.errors[errorCode] != nil || figures.errors.count < Self.maxCodes ? errorCode : Self.otherOp
            figures.errors[code, default: 0] &+= 1
        }
        ops[name] = figures
    }

    /// `op:<op>:requests`, `op:<op>:error:<code>` and `op:<op>:latency` (`LatencyBuckets.encoded`).
    public var healthDetails: [String: String] {
        var details: [String: String] = [:]
        for (op, figures) in ops {
            details["op:\(op):requests"] = "\(figures.requests)"
            details["op:\(op):latency"] = figures.latency.encoded
            for (code, count) in figures.errors { details["op:\(op):error:\(code)"] = "\(count)" }
        }
        return details
    }
}
