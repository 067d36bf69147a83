import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// `cafectl tail <prefix>...`: one JSON line per message `{"topic":…,"envelope":{…}}` on stdout,
/// until `--count` messages or Ctrl-C; a per-topic summary with rates on stderr at the end.
///
/// `--stream S`, `--source X` and `--since-seq N` keep only envelopes of that stream, from that
/// publisher, with `seq` ≥ N (all three together narrow to one publisher's stream from a point,
/// e.g. to watch a replay gap close). `--count` counts the messages printed.
enum TailCommand {
    static let count = Option.count("count", default: 0, help: "stop after this many messages printed (0: until Ctrl-C)")
    static let stream = Option<String?>("stream", help: "only envelopes of this stream")
    static let source = Option<String?>("source", help: "only envelopes from this publisher")
    static let sinceSeq = Option<UInt64?>.optional("since-seq", .count(0...Int.max), help: "only envelopes with seq at least this") { UInt64($0) }
    static let flags = [ClientCommands.prettySwitch, CommandFlag(count), CommandFlag(stream), CommandFlag(source),
                        CommandFlag(sinceSeq, refusal: "a sequence number (0 or more)")]

    static func run(_ args: CommandArguments, endpoints: Endpoints) throws -> Int32 {
        let prefixes = subscriptions(Array(args.words.dropFirst()), as: endpoints.identity)
        let flags = try args.command(Self.flags)
        let pretty = flags[ClientCommands.pretty]
        let count = flags[Self.count]
        let filter = TailFilter(stream: flags[Self.stream], source: flags[Self.source], sinceSeq: flags[Self.sinceSeq])
        let shutdown = ShutdownSignal()
        shutdown.installHandlers(logger: Logger(service: "cafectl", instance: "cafectl", minimum: .warning))
        let context = try Context()
        let socket = try Socket(context, .sub)
        defer { socket.close() }
        try socket.setLinger(milliseconds: 0)
        try socket.setReceiveHighWaterMark(1_000_000)
        for prefix in prefixes { try socket.subscribe(prefix) }
        try endpoints.connect(socket, to: Endpoints.busSub)
        var seen = 0
        var skipped = 0
        var perTopic: [String: Int] = [:]
        let started = Reactor.monotonic()
        let out = FileHandle.standardOutput
        while !shutdown.isRequested && (count == 0 || seen < count) {
            guard let received = try socket.receiveMultipart(timeoutMilliseconds: 100) else { continue }
            let (frames, compact) = Self.readable(received)
            guard filter.admits(frames) else {
                skipped += 1
                continue
            }
            let topic = String(decoding: frames.first ?? Data(), as: UTF8.self)
            seen += 1
            perTopic[topic.split(separator: ".").prefix(2).joined(separator: ".") + ".", default: 0] += 1
            out.write(line(topic: topic, frames: frames, pretty: pretty, compact: compact))
        }
        let seconds = max(Reactor.monotonic() - started, 0.001)
        var summary = "tail: \(seen) messages in \(String(format: "%.1f", seconds)) s"
        if filter.isActive { summary += " (\(skipped) more did not match \(filter))" }
        for (topic, n) in perTopic.sorted(by: { $0.key < $1.key }) {
            summary += "\n  \(topic)  \(n)  (\(String(format: "%.1f", Double(n) / seconds))/s)"
        }
        FileHandle.standardError.write(Data((summary + "\n").utf8))
        return 0
    }

    /// What to subscribe to: the prefixes given, or every topic. A phone's key may receive only
    /// its own deliveries (the bus drops every other subscription of a phone), so a phone tails
    /// `notify.delivery.<its device>.` unless told otherwise, and hears why anything else stays quiet.
    static func subscriptions(_ given: [String], as identity: Identity) -> [String] {
        guard let principal = identity.principal, principal.role == .phone, let device = principal.deviceId else {
            return given.isEmpty ? [""] : given
        }
        let own = "notify.delivery.\(device)."
        let foreign = given.filter { !$0.hasPrefix(own) }
        if !foreign.isEmpty {
            FileHandle.standardError.write(Data("tail: \(principal.name) is a phone: the bus delivers it only \(own)…; it drops \(foreign.map { "\"\($0)\"" }.joined(separator: ", "))\n".utf8))
        }
        return given.isEmpty ? [own] : given
    }

    /// The message as it is printed: a compact sighting batch's frame (`CompactSightingBatch`)
    /// replaced by its envelope's JSON, and whether it was; a frame that does not read stays as
    /// it came (printed `raw`, in hex).
    static func readable(_ frames: [Data]) -> (frames: [Data], compact: Bool) {
        guard frames.count == 2, CompactSightingBatch.isCompact(frames[1]), let envelope = try? Wire.decodeEnvelope(frames[1], maxBytes: .max) else {
            return (frames, false)
        }
        return ([frames[0], Wire.encode(envelope)], true)
    }

    /// One message's line: `{"topic":…,"envelope":{…}}`, with `"wire":"compact"` when the
    /// envelope came as a compact frame; `raw` instead of `envelope` for a frame that is not JSON.
    static func line(topic: String, frames: [Data], pretty: Bool, compact: Bool = false) -> Data {
        let body = frames.count > 1 ? frames[1] : Data()
        let parsed = try? JSONSerialization.jsonObject(with: body)
        var object: [String: Any] = ["topic": topic]
        if let parsed { object["envelope"] = parsed } else { object["raw"] = DeadLetters.excerpt(body) }
        if frames.count != 2 { object["frames"] = frames.count }
        if compact { object["wire"] = "compact" }
        if !pretty, parsed != nil, frames.count == 2 {
            // Splice the envelope as published: the line shows exactly what went over the wire
            // (a compact frame: the JSON it reads as).
            var data = Data("{\"topic\":".utf8)
            data.append(Wire.encode(topic))
            if compact { data.append(Data(",\"wire\":\"compact\"".utf8)) }
            data.append(Data(",\"envelope\":".utf8))
            data.append(body)
            data.append(Data("}\n".utf8))
            return data
        }
        let options: JSONSerialization.WritingOptions = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.withoutEscapingSlashes]
        var data = (try? JSONSerialization.data(withJSONObject: object, options: options)) ?? Data()
        data.append(UInt8(ascii: "\n"))
        return data
    }
}

/// Which envelopes `cafectl tail` prints: by stream, by publisher (`source`), from a sequence number.
struct TailFilter: CustomStringConvertible {
    var stream: String?
    var source: String?
    var sinceSeq: UInt64?

    init(stream: String? = nil, source: String? = nil, sinceSeq: UInt64? = nil) {
        self.stream = stream
        self.source = source
        self.sinceSeq = sinceSeq
    }

    var isActive: Bool { stream != nil || source != nil || sinceSeq != nil }

    /// Whether a message passes. With a filter set, a message that is not a two-frame envelope
    /// with `stream`, `source` and `seq` cannot match.
    func admits(_ frames: [Data]) -> Bool {
        guard isActive else { return true }
        guard frames.count == 2, let head = try? JSONDecoder().decode(EnvelopeHead.self, from: frames[1]) else { return false }
        if let stream, head.stream != stream { return false }
        if let source, head.source != source { return false }
        if let sinceSeq, head.seq < sinceSeq { return false }
        return true
    }

    var description: String {
        [stream.map { "--stream \($0)" }, source.map { "--source \($0)" }, sinceSeq.map { "--since-seq \($0)" }].compactMap { $0 }.joined(separator: " ")
    }

    /// The envelope fields the filter reads; the body is not decoded.
    private struct EnvelopeHead: Decodable {
        var source: String
        var stream: String
        var seq: UInt64
    }
}

/// `cafectl publish <topic> <envelope-json>`: sends one raw message to the bus, as any publisher would.
enum PublishCommand {
    static func run(_ args: CommandArguments, endpoints: Endpoints) throws -> Int32 {
        _ = try args.command([])
        guard args.words.count == 3 else { throw UsageError("usage: cafectl publish <topic> <envelope-json>") }
        let context = try Context()
        let socket = try Socket(context, .pub)
        defer { socket.close() }
        try socket.setLinger(milliseconds: 1_000)
        try endpoints.connect(socket, to: Endpoints.busPub)
        // A PUB socket drops what it sends before the bus has connected and passed subscriptions
        // upstream (the slow-joiner case); give the handshake a moment.
        usleep(300_000)
        try socket.send(multipart: [Data(args.words[1].utf8), Data(args.words[2].utf8)])
        return 0
    }
}
