import Foundation
import Messages
import ServiceRuntime

/// The bus's own dead letters: what it refused to forward, on `deadletter.<bus instance>.`, in the
/// envelope every service writes (`DeadLetters.letter`), sent straight out of its XPUB socket. Only
/// subscribers of that topic see it; the refused message never reaches its own topic's subscribers.
final class BusDeadLetters {
    private let instance: String
    private var numbering: BestEffortNumbering
    /// Sends `[topic][envelope]` to subscribers (the XPUB socket of the moment, which may be rebuilt).
    private let send: ([Data]) throws -> Void
    private(set) var count = 0

    init(instance: String, clock: any WallClock = SystemClock(), send: @escaping ([Data]) throws -> Void) {
        self.instance = instance
        numbering = BestEffortNumbering(source: instance, clock: clock)
        self.send = send
    }

    /// Publishes one dead letter; a send that fails (no subscriber can take it now) is not retried.
    func send(topic: String, raw: Data, error: ServiceError) {
        count += 1
        let letter = DeadLetters.letter(service: instance, topic: topic, raw: raw, error: error)
        let envelope = numbering.next(.deadLetter, stream: "deadletter", .deadLetter(letter))
        do {
            try send([Data(Topic.deadLetter(service: instance).utf8), Wire.encode(envelope)])
            numbering.commit(stream: "deadletter", seq: envelope.seq)
        } catch {
            // Best effort, as every dead letter: the refusal is counted and logged either way.
        }
    }
}
