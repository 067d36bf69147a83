import Foundation
import Messages
import ZeroMQ

/// The publishers' replay endpoints, learnt from their heartbeats, and one request client for
/// each, made when first needed; what a replay returns is checked against the stream owner rule.
final class ReplaySources {
    /// How long a replay request waits for its answer.
    static let timeoutMilliseconds: Int32 = 1_000

    private let context: Context
    private let logger: Logger
    private var endpoints: [String: String] = [:]
    private var clients: [String: RequestClient] = [:]
    /// The CURVE keys to call a publisher's replay endpoint with, by its source name (deployed
    /// mode); nil in plain mode.
    var keys: (String) throws -> RequestClient.CurveClientKeys? = { _ in nil }
    /// Checks what a publisher's replay returns (the stream owner rule); nil applies it unchecked.
    var origins: EventOrigins?

    init(context: Context, logger: Logger) {
        self.context = context
        self.logger = logger
    }

    /// Where `source` answers replay now; a changed endpoint closes the client of the old one.
    func learn(_ source: String, endpoint: String) {
        guard endpoints[source] != endpoint else { return }
        endpoints[source] = endpoint
        clients[source]?.close()
        clients[source] = nil
    }

    /// The endpoint `source` last announced, if any.
    func endpoint(of source: String) -> String? { endpoints[source] }

    /// The request client for `source`'s replay endpoint, made once; nil while no endpoint is
    /// known or the client cannot be made (logged).
    func client(for source: String, stream: String) -> RequestClient? {
        guard let endpoint = endpoints[source] else { return nil }
        if let existing = clients[source] { return existing }
        do {
            let client = RequestClient(context: context, endpoint: endpoint, timeoutMilliseconds: Self.timeoutMilliseconds, curve: try keys(source))
            clients[source] = client
            return client
        } catch {
            logger.warning("replay impossible", ["source": source, "stream": stream, "endpoint": endpoint, "error": "\(error)"])
            return nil
        }
    }

    /// Why a replayed event may not be applied (not the publisher's to send), or nil.
    func refusal(of event: ReplayedEvent, source: String, stream: String) -> ServiceError? {
        origins?.fromReplay(event, source: source, stream: stream)
    }

    /// Closes every client, on the owning thread.
    func close() {
        for client in clients.values { client.close() }
        clients.removeAll()
    }
}
