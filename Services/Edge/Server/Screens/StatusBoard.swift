import EdgeCore
import Foundation
import Messages
import ServiceRuntime

/// The operator's status page (`GET /v1/screens/status`, issue 29): the bus, every service
/// instance the edge forwards to, and the edge itself, with the answer of its `health` op: status and reasons,
/// uptime, outbox pending, stream positions, and its details (consumer lag, dead letters,
/// refusals, CPU and memory). The edge asks each instance as itself (its key may call `health`)
/// every `interval`, and publishes the whole document on the `status` channel as the next event;
/// an instance that does not answer within `answerSeconds` is `unreachable`.
final class StatusBoard {
    static let interval = 2.0
    static let answerSeconds = 1.5
    static let channel = "status"

    private let edge: EdgeServer
    /// The status page's own DEALER to the bus and to each service instance, in shard order: its
    /// asks never count among the forwarded requests (`forward.*` in health) nor take their places.
    private let links: [(service: String, link: ServiceLink)]
    /// The edge's own health details beyond the server's (its bus consumer's cursors).
    private let ownDetails: () -> [String: String]
    private let publish: (PushpinPublishItem) -> Void
    private let started = Reactor.monotonic()
    /// The last document's id (1, 2, … since the edge started) and bytes.
    private(set) var seq: UInt64 = 0
    private(set) var document: [UInt8] = Array("{\"seq\":0,\"processes\":[]}".utf8)
    private var polling = false
    private var asked = 0

    init(edge: EdgeServer, host: ServiceHost, busEndpoint: String, publish: @escaping (PushpinPublishItem) -> Void) throws {
        self.edge = edge
        self.publish = publish
        let endpoints = (busEndpoint.isEmpty ? [] : [("bus", [busEndpoint])]) + edge.settings.serviceEndpoints.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        links = try endpoints.flatMap { service, peers in
            try peers.map { (service, try ServiceLink(context: host.context, service: service, peer: $0, security: host.security,
                                                      maxMessageBytes: host.maxMessageBytes, logger: host.logger)) }
        }
        ownDetails = { [unowned host] in host.bus.consumer?.healthDetails ?? [:] }
    }

    func start() {
        for (_, link) in links { edge.reactor.onReadable(link.socket) { [unowned link] in try link.drain() } }
        edge.reactor.every(0.02, name: "status.deadlines") { [unowned self] in
            let now = edge.clock.now()
            for (_, link) in links { link.expire(at: now) }
        }
        poll()
        edge.reactor.every(Self.interval, name: "status.poll") { [unowned self] in poll() }
    }

    /// One round: every instance asked at once; the document is made when the last answers.
    func poll() {
        guard !polling else { return }
        polling = true
        let targets = links
        let gather = Gather(count: targets.count)
        let deadline = edge.clock.now().adding(seconds: Self.answerSeconds)
        if targets.isEmpty { return finish([], targets: []) }
        for (index, (_, link)) in targets.enumerated() {
            asked += 1
            let id = "status-\(asked)"
            let frame = ServiceExchange.requestFrame(op: Op.health, id: id, onBehalfOf: nil, body: Array("{}".utf8))
            link.send(id: id, frame: frame, deadline: deadline) { [unowned self] answer in
                guard let all = gather.add(index, answer) else { return }
                finish(all, targets: targets)
            }
        }
    }

    private func finish(_ answers: [EdgeResponse], targets: [(service: String, link: ServiceLink)]) {
        polling = false
        var processes: [[String: Any]] = [own]
        for ((service, link), answer) in zip(targets, answers) {
            var entry: [String: Any] = ["service": service, "endpoint": link.endpoint]
            if answer.status == 200, let reply = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any] {
                entry.merge(reply) { old, _ in old }
                entry["reasons"] = ((reply["details"] as? [String: Any])?["reasons"] as? String)?.split(separator: ",").map(String.init) ?? []
            } else {
                let problem = (try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]) ?? [:]
                entry["status"] = answer.status == 403 ? "refused" : "unreachable"
                entry["reasons"] = [problem["detail"] as? String ?? "HTTP \(answer.status)"]
            }
            processes.append(entry)
        }
        seq += 1
        let object: [String: Any] = ["seq": seq, "at": edge.clock.now().milliseconds, "processes": processes]
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        document = Array(data)
        publish(PushpinPublishItem(channel: Self.channel, event: ServerSentEvent(id: seq, event: "status", data: document)))
    }

    /// The edge's own entry, from what it counts itself.
    private var own: [String: Any] {
        var details = edge.healthDetails.merging(ownDetails()) { old, _ in old }
        details["process.cpuMicros"] = "\(ProcessUsage.cpuMicroseconds())"
        if let resident = ProcessUsage.residentBytes() { details["process.residentBytes"] = "\(resident)" }
        return ["service": "edge", "instance": String(decoding: edge.instance, as: UTF8.self), "status": "ok", "reasons": [String](),
                "uptimeSeconds": Reactor.monotonic() - started, "outboxPending": 0, "streams": [String: Int](), "details": details]
    }

    func close() { for (_, link) in links { link.close() } }

    /// The held status stream after `after`: the current document when the client is behind, a
    /// `reset` when its id is not this edge's (it restarted), nothing when it is current.
    func held(after: UInt64?, keepAliveSeconds: Int) -> EdgeResponse {
        var missed: [ServerSentEvent] = []
        if let after, after > seq {
            missed = [ScreenStreams.reset(last: seq)]
        } else if let after, after < seq {
            missed = [ServerSentEvent(id: seq, event: "status", data: document)]
        }
        return HeldStream.response(channel: Self.channel + ", " + StreamChannel.screens, missed: missed, keepAliveSeconds: keepAliveSeconds)
    }
}
