import Foundation
import Messages
import ZeroMQ

/// A request/reply client with a timeout (the ZeroMQ guide's Lazy Pirate): a REQ socket that is
/// thrown away and rebuilt when a reply does not come, so one lost reply never wedges it.
public final class RequestClient {
    public let endpoint: String
    private let context: Context
    private let timeoutMilliseconds: Int32
    private var socket: Socket?
    private let curve: CurveClientKeys?

    /// Keys for a CURVE-secured endpoint.
    public struct CurveClientKeys: Sendable {
        public let serverKey: String
        public let keyPair: CurveKeyPair
        public init(serverKey: String, keyPair: CurveKeyPair) {
            self.serverKey = serverKey
            self.keyPair = keyPair
        }
    }

    public init(context: Context, endpoint: String, timeoutMilliseconds: Int32 = 5_000, curve: CurveClientKeys? = nil) {
        self.context = context
        self.endpoint = endpoint
        self.timeoutMilliseconds = timeoutMilliseconds
        self.curve = curve
    }

    private func connected() throws -> Socket {
        if let socket { return socket }
        let s = try Socket(context, .req)
        try s.setLinger(milliseconds: 0)
        try s.setReceiveTimeout(milliseconds: timeoutMilliseconds)
        try s.setSendTimeout(milliseconds: timeoutMilliseconds)
        if let curve { try s.setCurveClient(serverKey: curve.serverKey, publicKey: curve.keyPair.publicKey, secretKey: curve.keyPair.secretKey) }
        try s.connect(endpoint)
        socket = s
        return s
    }

    /// Sends one request frame and returns the reply frame, or throws `client.timeout`.
    public func send(raw frame: Data) throws -> Data {
        guard frame.count <= RequestServer.transportLimitBytes else {
            // The server would drop the connection unread; say why instead of waiting out the timeout.
            throw ServiceError(.tooLarge, "request of \(frame.count) bytes exceeds the \(RequestServer.transportLimitBytes)-byte transport limit of every request socket; nothing was sent")
        }
        let s = try connected()
        do {
            try s.send(frame)
            let reply = try s.receiveMultipart()
            return reply.first ?? Data()
        } catch where error.isAgain {
            reset()
            throw ServiceError(.clientTimeout, "no reply from \(endpoint) within \(timeoutMilliseconds) ms")
        } catch {
            reset()
            throw error
        }
    }

    /// Calls `op` with `body`; returns the reply body or throws the service's `ServiceError`.
    public func call<Body: Codable & Sendable, Result: Codable & Sendable>(_ op: String, _ body: Body, as result: Result.Type) throws -> Result {
        try call(op, body, onBehalfOf: nil, as: result)
    }

    /// Calls `op` with `body` on behalf of `principal`: the HTTP edge's way to act for the session
    /// it authenticated (only an edge key's request may name one; PROTOCOL.md §7).
    public func call<Body: Codable & Sendable, Result: Codable & Sendable>(_ op: String, _ body: Body, onBehalfOf principal: OnBehalfOf?,
                                                                          as result: Result.Type) throws -> Result {
        let frame = Wire.encode(Request(op: op, onBehalfOf: principal, body: body))
        let reply = try send(raw: frame)
        return try Wire.decodeReply(reply, body: Result.self).get()
    }

    /// Closes the socket; the next call connects afresh.
    public func reset() {
        socket?.close()
        socket = nil
    }

    /// Closes the client on its owning thread.
    public func close() { reset() }
}
