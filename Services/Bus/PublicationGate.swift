import Foundation
import Messages
import Policy
import ServiceRuntime
import ZeroMQ

/// The bus's check of every publication in deployed mode (`BusAccess`): the publishing connection's
/// key must be a service key in the registry as of now, and the envelope's `source` its name.
/// What fails is dropped, counted by reason, logged (at most every 10 s per reason and
/// principal) and dead-lettered; what passes is forwarded as it came, without a copy.
final class PublicationGate {
    private let security: SocketSecurity
    private let deadLetters: BusDeadLetters
    private let logger: Logger
    private(set) var refused: [BusAccess.PublicationRefusal: Int] = [:]
    private var lastLogged: [String: Double] = [:]
    private var unlogged: [String: Int] = [:]

    init(security: SocketSecurity, deadLetters: BusDeadLetters, logger: Logger) {
        self.security = security
        self.deadLetters = deadLetters
        self.logger = logger
    }

    /// Whether to forward `message`: `[topic][envelope]` from a service key, with its own name as source.
    func admits(_ message: HeldMessage) -> Bool {
        let principal = security.caller(userId: message.userId, key: message.publicKey)?.principal
        // Reading the source walks the envelope once; nothing else of it is decoded.
        let source = message.frameCount == 2 ? EnvelopeSource.read(message.frame(1)) : nil
        guard let refusal = BusAccess.publicationRefusal(principal: principal, source: source) else { return true }
        refuse(message, refusal, principal: principal, source: source)
        return false
    }

    private func refuse(_ message: HeldMessage, _ refusal: BusAccess.PublicationRefusal, principal: Principal?, source: String?) {
        refused[refusal, default: 0] += 1
        let name = principal?.name ?? message.userId
        let explanation = BusAccess.explanation(refusal, principal: name, role: principal?.role, source: source)
        let topic = message.frameCount >= 1 ? String(decoding: message.frame(0), as: UTF8.self) : ""
        let raw = message.frameCount >= 2 ? Data(message.frame(1).prefix(512)) : Data()
        let code: ErrorCode = refusal == .malformed ? .messageMalformed : .forbidden
        deadLetters.send(topic: topic, raw: raw, error: ServiceError(code, explanation))

        // A publisher that keeps sending forgeries must not flood the log: one line per reason and
        // principal every 10 s, with how many were refused since the last.
        let key = refusal.rawValue + "\u{1}" + (name ?? "")
        let now = Reactor.monotonic()
        if let last = lastLogged[key], now - last < 10 {
            unlogged[key, default: 0] += 1
            return
        }
        lastLogged[key] = now
        let since = unlogged.removeValue(forKey: key) ?? 0
        logger.warning("publication refused", ["reason": refusal.rawValue, "principal": name ?? "", "topic": Quoting.cut(topic, limit: 128),
                                               "source": Quoting.cut(source ?? "", limit: 64), "refused.unlogged": "\(since)"])
    }

    /// Health keys: `refused.publications` and one `refused.publications.<reason>` per reason.
    var healthDetails: [String: String] {
        var details = ["refused.publications": "\(refused.values.reduce(0, +))"]
        for reason in BusAccess.PublicationRefusal.allCases { details["refused.publications.\(reason.rawValue)"] = "\(refused[reason] ?? 0)" }
        return details
    }
}
