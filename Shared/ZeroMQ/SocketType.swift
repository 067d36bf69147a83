import CZeroMQ

/// The ZeroMQ socket patterns the platform uses.
public enum SocketType: Sendable, CustomStringConvertible {
    /// `stream` is raw TCP (the edge's plain-HTTP metrics listener): frames are [peer id, bytes].
    case pub, sub, xpub, xsub, req, rep, router, dealer, push, pull, pair, stream

    var raw: Int32 {
        switch self {
        case .pub: ZMQ_PUB
        case .sub: ZMQ_SUB
        case .xpub: ZMQ_XPUB
        case .xsub: ZMQ_XSUB
        case .req: ZMQ_REQ
        case .rep: ZMQ_REP
        case .router: ZMQ_ROUTER
        case .dealer: ZMQ_DEALER
        case .push: ZMQ_PUSH
        case .pull: ZMQ_PULL
        case .pair: ZMQ_PAIR
        case .stream: ZMQ_STREAM
        }
    }

    public var description: String {
        switch self {
        case .pub: "PUB"
        case .sub: "SUB"
        case .xpub: "XPUB"
        case .xsub: "XSUB"
        case .req: "REQ"
        case .rep: "REP"
        case .router: "ROUTER"
        case .dealer: "DEALER"
        case .push: "PUSH"
        case .pull: "PULL"
        case .pair: "PAIR"
        case .stream: "STREAM"
        }
    }
}
