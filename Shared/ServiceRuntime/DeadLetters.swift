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
        let letter = Self.letter(service: service, topic: topic, raw: raw, error: error)
        logger.warning("dead letter", ["topic": letter.topic, "error.code": letter.code, "error.message": letter.message])
        try? publisher.publishBestEffort(.deadLetter, topic: Topic.deadLetter(service: service), stream: "deadletter", .deadLetter(letter))
    }

    /// The dead letter for a message `service` could not use, as every publisher of dead letters
    /// (services and the bus) writes it: the error's stable code and message, and at most 128
    /// characters of the topic, 300 of the message and 512 bytes of the frame.
    public static func letter(service: String, topic: String, raw: Data, error: Error) -> DeadLetter {
        let (code, fullMessage): (String, String) = switch error {
        case let e as WireError: (e.code.rawValue, e.message)
        case let e as ServiceError: (e.code, e.message)
        default: (ErrorCode.internalError.rawValue, "\(error)")
        }
        // A hostile publisher chooses the topic and much of the message: quote neither whole.
        return DeadLetter(service: service, code: code, message: Quoting.cut(fullMessage, limit: 300), topic: Quoting.cut(topic, limit: 128),
                          excerpt: excerpt(raw))
    }

    /// At most 512 bytes of a frame as text; a compact frame (`CompactSightingBatch`), which is
    /// not text, as the hex of at most its first 256 bytes.
    public static func excerpt(_ raw: Data) -> String {
        guard CompactSightingBatch.isCompact(raw) else { return String(decoding: raw.prefix(512), as: UTF8.self) }
        let digits = Array("0123456789abcdef")
        let hex = String(raw.prefix(256).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
        return "compact frame of \(raw.count) bytes, hex: " + hex + (raw.count > 256 ? "…" : "")
    }
}
