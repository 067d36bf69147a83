import Foundation
import Metrics
import ServiceRuntime
import ZeroMQ

/// The plain-HTTP listener Prometheus scrapes: a ZeroMQ STREAM socket (raw TCP) on the edge's
/// reactor. `GET /metrics` is answered with the collector's page and the connection closed; any
/// other path 404, any other method 405, a head that does not parse 400, one too long 431.
///
/// Who may scrape is whoever reaches the port: the page carries counts and names of services,
/// ops and streams, never a device, user or token, so it is guarded as Prometheus's exporters are,
/// by where it listens (loopback by default; in compose, the compose network only). It never goes
/// through Pushpin, whose port is the public one.
final class MetricsListener {
    let socket: Socket
    private let collector: MetricsCollector
    private let logger: Logger
    /// One open connection: what it sent so far, when it opened, and whether its page is coming.
    private struct Connection {
        var bytes: [UInt8] = []
        let opened: Double
        var waiting = false
    }

    private var connections: [Data: Connection] = [:]
    /// Connections this side closed, whose closing STREAM may still announce (ids are never reused).
    private var closed: [Data] = []
    /// Connections open at once; a new one past it is closed at once.
    static let maxConnections = 64
    /// A connection that has not sent a whole request head in this long is closed.
    static let headTimeoutSeconds = 10.0
    /// Answers given, by status, for health.
    private(set) var answered: [Int: Int] = [:]

    init(context: Context, listen: String, security: SocketSecurity, collector: MetricsCollector, logger: Logger) throws {
        guard security.mayBindUnsecured(listen) else {
            throw SecurityError("plain mode binds only loopback, not \(listen) for --metrics-listen: run deployed mode, pass --insecure-plain on a network you trust, or bind 127.0.0.1")
        }
        self.collector = collector
        self.logger = logger
        socket = try Socket(context, .stream)
        try socket.setLinger(milliseconds: 0)
        try socket.bind(listen)
    }

    /// Reads requests whenever the socket is readable, and closes connections that stall.
    func attach(to reactor: Reactor) {
        reactor.onReadable(socket) { [unowned self] in try self.serve() }
        reactor.every(1, name: "metrics.stalled") { [unowned self] in
            let now = Reactor.monotonic()
            for (peer, connection) in connections where !connection.waiting && now - connection.opened > Self.headTimeoutSeconds {
                answer(peer, status: 408, body: "")
            }
        }
    }

    private func serve() throws {
        for _ in 0..<256 {
            guard let frames = try socket.tryReceiveMultipart() else { return }
            guard frames.count == 2 else { continue }
            let peer = frames[0]
            if frames[1].isEmpty {
                // A connection opened or closed: STREAM says so with an empty frame.
                if connections[peer] != nil {
                    connections[peer] = nil
                } else if let index = closed.firstIndex(of: peer) {
                    closed.remove(at: index)
                } else if connections.count >= Self.maxConnections {
                    close(peer)
                } else {
                    connections[peer] = Connection(opened: Reactor.monotonic())
                }
                continue
            }
            guard var connection = connections[peer], !connection.waiting else { continue }
            connection.bytes.append(contentsOf: frames[1].prefix(MetricsHTTPRequest.maxHeadBytes + 1))
            connections[peer] = connection
            switch MetricsHTTPRequest.parse(connection.bytes) {
            case .incomplete:
                continue
            case .invalid(let status):
                answer(peer, status: status, body: "")
            case .request(let method, let path):
                if path != "/metrics" {
                    answer(peer, status: 404, body: "only /metrics is served here\n")
                } else if method != "GET" && method != "HEAD" {
                    answer(peer, status: 405, body: "GET /metrics\n", extra: "Allow: GET, HEAD\r\n")
                } else {
                    connections[peer]?.waiting = true
                    collector.collect { [weak self] page in
                        self?.answer(peer, status: 200, body: method == "HEAD" ? "" : page, length: page.utf8.count,
                                     contentType: PrometheusText.contentType)
                    }
                }
            }
        }
    }

    private func answer(_ peer: Data, status: Int, body: String, length: Int? = nil, contentType: String = "text/plain; charset=utf-8", extra: String = "") {
        // The client went away while its page was collected: nothing to answer.
        guard connections.removeValue(forKey: peer) != nil else { return }
        answered[status, default: 0] += 1
        let reason = [200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed", 408: "Request Timeout",
                      431: "Request Header Fields Too Large"][status] ?? "Error"
        let head = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(contentType)\r\nContent-Length: \(length ?? body.utf8.count)\r\n\(extra)Connection: close\r\n\r\n"
        do {
            try socket.send(multipart: [peer, Data((head + body).utf8)], dontWait: true)
        } catch {
            logger.debug("metrics answer not sent", ["error": "\(error)"])
        }
        close(peer)
    }

    /// Closes a connection: STREAM's empty frame to a peer.
    private func close(_ peer: Data) {
        try? socket.send(multipart: [peer, Data()], dontWait: true)
        closed.append(peer)
        if closed.count > 4 * Self.maxConnections { closed.removeFirst(closed.count - 4 * Self.maxConnections) }
    }

    var healthDetails: [String: String] {
        var details = ["metrics.scrapes": "\(collector.collections)", "metrics.connections": "\(connections.count)"]
        for (status, count) in answered { details["metrics.http.\(status)"] = "\(count)" }
        return details
    }

    func close() {
        socket.close()
    }
}
