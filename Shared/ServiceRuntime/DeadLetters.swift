import Foundation
import Messages

/// Publishes a message a service could not use on `deadletter.<service>.`, with the reason, and
/// counts it for health.
public final class DeadLetters {
    private let service: String
    private let publisher: EventPublisher
    private let logger: Logger
    public private(set) var count = 0

    public init(service: String, publisher: EventPublisher, logger: Logger) {
        self.service = service
        self.publisher = publisher
        self.logger = logger
    }

    /// Logs and publishes one dead letter: the stable code, the message, the topic and the start of the frame.
    public func send(topic: String, raw: Data, error: Error) {
        count += 1
        let (code, fullMessage): (String, String) = switch error {
        case let e as WireError: (e.code.rawValue, e.message)
        case let e as ServiceError: (e.code, e.message)
        default: (ErrorCode.internalError.rawValue, "\(error)")
        }
        // A hostile publisher chooses the topic and much of the message: quote neither whole.
        let message = Quoting.cut(fullMessage, limit: 300)
        let topic = Quoting.cut(topic, limit: 128)
        logger.warning("dead letter", ["topic": topic, "error.code": code, "error.message": message])
        let excerpt = String(decoding: raw.prefix(512), as: UTF8.self)
        try? publisher.publishBestEffort(.deadLetter, topic: Topic.deadLetter(service: service), stream: "deadletter",
                                         .deadLetter(DeadLetter(service: service, code: code, message: message, topic: topic, excerpt: excerpt)))
    }
}
