import Foundation
import Messages
import Policy
import ServiceRuntime
import ZeroMQ

/// `replays`: operator clients, each with a key of its own, calling `replay` (limit 1,000) in a
/// loop against one service, every answer read in full and the next asked at once; a `busy` or
/// `rateLimited` answer is not waited out (issue 28: fifty of them pushed `order.place` from
/// 1.2 ms to 317 ms).
final class ReplayFlood: AbuseAttack {
    let name = "replays"
    private let clients: Int
    private let endpoint: String
    private let stream: String
    private let counters = AttackCounters()
    private var runID = ""

    init(settings: AbuseSettings) {
        clients = settings.replayClients
        endpoint = settings.replayEndpoint
        stream = settings.replayStream
    }

    var summary: String { "\(clients) operator clients replaying stream \(stream) (limit 1,000) from \(endpoint) in a loop" }

    private func keyName(_ client: Int) -> String { "\(runID)-replayer-\(client)" }

    func keys(runID: String) -> [LoadSecurity.Mint] {
        self.runID = runID
        return (0..<clients).map { LoadSecurity.Mint(name: keyName($0), role: .operator) }
    }

    func start(context: Context, keys: AttackKeys) throws {
        let (server, address) = PeerEndpoint.split(endpoint, defaultName: "order-service")
        let frame = Wire.encode(Request(op: Op.replay, body: ReplayRequest(stream: stream, fromSeq: 1, limit: 1_000)))
        for client in 0..<clients {
            let curve = keys.keys(keyName(client), server: server)
            counters.spawn("replayer \(client)") { [counters] in
                let requests = RequestClient(context: context, endpoint: address, timeoutMilliseconds: 2_000, curve: curve)
                defer { requests.close() }
                while !counters.isStopped {
                    do {
                        let reply = try requests.send(raw: frame)
                        counters.add(Self.outcome(reply))
                        if Self.outcome(reply) == "answered" { counters.add("bytes", reply.count) }
                    } catch {
                        counters.add("unanswered")
                    }
                }
            }
        }
    }

    /// "answered", or the error code a reply carries.
    static func outcome(_ reply: Data) -> String {
        if reply.starts(with: Array("{\"ok\":true".utf8)) { return "answered" }
        guard let error = (try? Wire.decodeReply(reply, body: Empty.self))?.error else { return "unreadable" }
        return error.code
    }

    func stop() -> [(String, Int)] { counters.stopAndWait() }
}

/// `requests`: one phone key sending `menu.get` to order-service as fast as it is answered, 100
/// in flight (issue 28: 20,000 in 10.6 s, all answered, each asking region-monitor for the
/// nearest café).
final class RequestFlood: AbuseAttack {
    let name = "requests"
    private let endpoint: String
    private let counters = AttackCounters()
    private var runID = ""

    init(settings: AbuseSettings) {
        endpoint = settings.orders
    }

    var summary: String { "one phone key sending menu.get to \(endpoint), 100 in flight" }

    private var keyName: String { "\(runID)-flooder" }

    func keys(runID: String) -> [LoadSecurity.Mint] {
        self.runID = runID
        return [LoadSecurity.Mint(name: keyName, role: .phone, deviceId: "\(runID)-flood-device", userId: "\(runID)-flood-user")]
    }

    func start(context: Context, keys: AttackKeys) throws {
        let (server, address) = PeerEndpoint.split(endpoint, defaultName: "order-service")
        let curve = keys.keys(keyName, server: server)
        let frame = Wire.encode(Request(op: Op.menuGet, body: MenuRequest(userId: "\(runID)-flood-user", deviceId: "\(runID)-flood-device", locale: "en_US")))
        counters.spawn("request flood") { [counters] in
            do {
                let socket = try Socket(context, .dealer)
                defer { socket.close() }
                try socket.setLinger(milliseconds: 0)
                if let curve { try socket.setCurveClient(serverKey: curve.serverKey, publicKey: curve.keyPair.publicKey, secretKey: curve.keyPair.secretKey) }
                try socket.connect(address)
                var inFlight = 0
                while !counters.isStopped {
                    while inFlight < 100 {
                        do {
                            try socket.send(multipart: [Data(), frame], dontWait: true)
                            inFlight += 1
                        } catch { break }
                    }
                    guard let frames = try socket.receiveMultipart(timeoutMilliseconds: 200) else {
                        // Nothing in 200 ms: count what was outstanding as unanswered and start over.
                        counters.add("unanswered", inFlight)
                        inFlight = 0
                        continue
                    }
                    inFlight -= 1
                    counters.add(ReplayFlood.outcome(frames.last ?? Data()))
                }
            } catch {
                counters.add("socket.failed")
            }
        }
    }

    func stop() -> [(String, Int)] { counters.stopAndWait() }
}
