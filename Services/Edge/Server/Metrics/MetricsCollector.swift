import EdgeCore
import Foundation
import Messages
import Metrics
import ServiceRuntime

/// Asks every process for `health` and turns the answers into one `/metrics` page: the services
/// over the edge's own links (the sockets it forwards on), the bus over a link of its own, and the
/// edge itself over its request socket. Scrapes that arrive while one is being collected wait for
/// it, so a scraper hammering the port costs the services one health request each per collection.
final class MetricsCollector {
    /// One process to ask: its labels and the link to it.
    struct Target {
        let service: String
        let instance: String
        let link: ServiceLink
    }

    let targets: [Target]
    private let clock: any WallClock
    private let timeoutSeconds: Double
    private var waiting: [(String) -> Void] = []
    private var nextId: UInt64 = 0
    /// Collections made, for health.
    private(set) var collections = 0

    init(targets: [Target], clock: any WallClock, timeoutMilliseconds: Int) {
        self.targets = targets
        self.clock = clock
        timeoutSeconds = Double(timeoutMilliseconds) / 1_000
    }

    /// The instance label of a service's `index`th endpoint: the server named in `name@tcp://…`,
    /// else the service's name, with `-s<index>` when it has several (the compose file's names).
    static func instanceName(service: String, peer: String, index: Int, count: Int) -> String {
        if let at = peer.firstIndex(of: "@"), !peer[..<at].contains("/") { return String(peer[..<at]) }
        return count > 1 ? "\(service)-s\(index)" : service
    }

    /// Calls `done` with the page once every process answered or ran out of time.
    func collect(_ done: @escaping (String) -> Void) {
        waiting.append(done)
        guard waiting.count == 1 else { return }
        let started = Reactor.monotonic()
        var answers: [Int: HealthStatus?] = [:]
        let deadline = clock.now().adding(seconds: timeoutSeconds)
        for (index, target) in targets.enumerated() {
            nextId &+= 1
            let frame = ServiceExchange.requestFrame(op: Op.health, id: "metrics-\(nextId)", body: Array("{}".utf8))
            target.link.send(id: "metrics-\(nextId)", frame: frame, deadline: deadline) { [unowned self] response in
                answers[index] = Self.health(from: response)
                if answers.count == targets.count { finish(answers, started: started) }
            }
        }
        if targets.isEmpty { finish([:], started: started) }
    }

    private func finish(_ answers: [Int: HealthStatus?], started: Double) {
        collections += 1
        var page = PrometheusText()
        for (index, target) in targets.enumerated() {
            if let health = answers[index] ?? nil {
                HealthExposition.add(health, service: target.service, instance: target.instance, to: &page)
            } else {
                HealthExposition.addDown(service: target.service, instance: target.instance, to: &page)
            }
        }
        page.add(.scrape, [], Reactor.monotonic() - started)
        let text = page.render()
        let callers = waiting
        waiting.removeAll()
        for caller in callers { caller(text) }
    }

    /// The health in a 200 answer, nil for anything else (not connected, timed out, unreadable).
    static func health(from response: EdgeResponse) -> HealthStatus? {
        response.status == 200 ? HealthExposition.decode(response.body) : nil
    }
}
