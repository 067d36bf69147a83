import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// (a) raw libzmq on this machine, taken the way libzmq's own perf tools take it: over TCP
/// loopback between separate processes (`load-test bench-peer`), each with its own context and
/// I/O thread, blocking receives, frames the size of our sighting messages. PUB→SUB direct, and
/// PUB→XSUB/`zmq_proxy`/XPUB→SUB through a third process (the bus's two hops), each with the
/// CPU every process spent per message from its own rusage; and REQ→REP round trips. In deployed
/// mode every socket is CURVE with a ZAP handler, secured by the same code as the platform's
/// (`SocketSecurity`), so the difference is what CURVE itself costs.
enum ZeroMQBenchmark {
    struct Throughput {
        var messages: Int
        var perSecond: Double
        /// CPU microseconds per message, every process of the path together.
        var cpuMicrosPerMessage: Double
        /// Whether every message and the end marker arrived (else the subscriber timed out).
        var complete: Bool
    }

    struct Figures {
        /// PUB→SUB, publisher and subscriber processes.
        var direct: Throughput
        /// PUB→XSUB|proxy|XPUB→SUB, three processes: the shape of the bus.
        var twoHop: Throughput
        /// Sorted REQ→REP round trips in microseconds.
        var roundTrips: [Double]
        /// CPU microseconds per round trip, both processes.
        var cpuMicrosPerRoundTrip: Double
    }

    /// All measurements in `mode`; deployed mode uses `keys`.
    static func run(keys: KeyFolder?, messages: Int, roundTrips: Int, topicBytes: Int, payloadBytes: Int) throws -> Figures {
        // A run whose subscriber did not get every message up to the end marker (it then waited
        // out its receive timeout, and the rate would count the wait) is taken again, once.
        func measured(throughProxy: Bool) throws -> Throughput {
            let first = try pubSub(keys: keys, messages: messages, topicBytes: topicBytes, payloadBytes: payloadBytes, throughProxy: throughProxy)
            guard !first.complete else { return first }
            logLine("load-test bench: the \(throughProxy ? "two-hop" : "direct") run got \(first.messages) of \(messages) messages and no end marker; measuring again")
            return try pubSub(keys: keys, messages: messages, topicBytes: topicBytes, payloadBytes: payloadBytes, throughProxy: throughProxy)
        }
        let direct = try measured(throughProxy: false)
        let twoHop = try measured(throughProxy: true)
        let rtt = try reqRep(keys: keys, count: roundTrips, payload: Data(repeating: UInt8(ascii: "x"), count: payloadBytes))
        return Figures(direct: direct, twoHop: twoHop, roundTrips: rtt.samples, cpuMicrosPerRoundTrip: rtt.cpuMicros)
    }

    static func security(_ keys: KeyFolder?, as name: String, serving context: Context?) throws -> SocketSecurity {
        let logger = Logger(service: "load-test", instance: "bench", minimum: .warning)
        guard let keys else { return .plain(logger: logger) }
        return try .deployed(folder: keys, as: name, serving: context, logger: logger)
    }

    static func peerArguments(_ keys: KeyFolder?, as name: String, server: String?) -> [String] {
        guard let keys else { return [] }
        return ["--keys", keys.path, "--as", name] + (server.map { ["--server", $0] } ?? [])
    }

    /// `messages` two-frame messages from a publisher process to a subscriber process, directly or
    /// through a proxy process; the rate from the subscriber's first to its last message.
    /// High-water marks are lifted so nothing is dropped.
    static func pubSub(keys: KeyFolder?, messages: Int, topicBytes: Int, payloadBytes: Int, throughProxy: Bool) throws -> Throughput {
        var proxy: PeerProcess?
        defer { proxy?.stop() }
        let subscriber: PeerProcess, publishTo: String
        if throughProxy {
            let started = try PeerProcess(["proxy"] + peerArguments(keys, as: "bus", server: nil))
            proxy = started
            guard let line = try started.line(timeoutMilliseconds: 10_000) else { throw ServiceError(.internalError, "the bench proxy did not start") }
            let ends = line.split(separator: " ").map(String.init)
            guard ends.count == 2 else { throw ServiceError(.internalError, "the bench proxy said \"\(line)\"") }
            subscriber = try PeerProcess(["sub", ends[1]] + peerArguments(keys, as: "region-monitor", server: "bus"))
            publishTo = ends[0]
        } else {
            subscriber = try PeerProcess(["sub", "bind"] + peerArguments(keys, as: "bus", server: nil))
            guard let endpoint = try subscriber.line(timeoutMilliseconds: 10_000) else { throw ServiceError(.internalError, "the bench subscriber did not start") }
            publishTo = endpoint
        }
        defer { subscriber.stop() }
        let publisher = try PeerProcess(["pub", publishTo, "\(messages)", "\(topicBytes)", "\(payloadBytes)"]
                                        + peerArguments(keys, as: "beacon-ingest", server: "bus"), input: true)
        defer { publisher.stop() }
        // Warm-up messages flow until the subscription has reached the publisher (the slow joiner).
        guard try subscriber.line(timeoutMilliseconds: 20_000) == "ready" else { throw ServiceError(.internalError, "the bench subscriber never received") }
        let proxyCPUBefore = proxy.flatMap { Bench.cpuSeconds(pid: $0.pid) } ?? 0
        publisher.tell("go")
        guard let result = try subscriber.line(timeoutMilliseconds: 120_000) else { throw ServiceError(.internalError, "the bench subscriber did not report") }
        let proxyCPU = proxy.flatMap { Bench.cpuSeconds(pid: $0.pid) }.map { $0 - proxyCPUBefore } ?? 0
        publisher.tell("done")
        guard let publisherLine = try publisher.line(timeoutMilliseconds: 10_000), let publisherCPU = Double(publisherLine) else {
            throw ServiceError(.internalError, "the bench publisher did not report")
        }
        let words = result.split(separator: " ")
        let fields = words.prefix(3).compactMap { Double($0) }
        guard fields.count == 3, words.count == 4 else { throw ServiceError(.internalError, "the bench subscriber reported \"\(result)\"") }
        let count = Int(fields[0])
        return Throughput(messages: count, perSecond: Double(count) / max(fields[1], 1e-9),
                          cpuMicrosPerMessage: (publisherCPU + fields[2] + proxyCPU) / Double(max(count, 1)) * 1e6,
                          complete: words[3] == "end" && count == messages)
    }

    /// Sorted round-trip times in microseconds of `count` REQ→REP exchanges echoing `payload`
    /// with a REP socket in a peer process, and the CPU both spent per exchange.
    static func reqRep(keys: KeyFolder?, count: Int, payload: Data) throws -> (samples: [Double], cpuMicros: Double) {
        let peer = try PeerProcess(["rep"] + peerArguments(keys, as: "bus", server: nil))
        defer { peer.stop() }
        guard let endpoint = try peer.line(timeoutMilliseconds: 10_000) else { throw ServiceError(.internalError, "the bench REP peer did not start") }
        let context = try Context(ioThreads: 1)
        let security = try security(keys, as: "operator", serving: nil)
        let req = try Socket(context, .req)
        defer { req.close() }
        try req.setLinger(milliseconds: 0)
        try security.secureClient(req, server: "bus")
        try req.connect(endpoint)
        func exchange(_ frame: Data) throws -> [Data] {
            try req.send(frame)
            return try req.receiveMultipart()
        }
        for _ in 0..<1_000 { _ = try exchange(payload) }  // warm up
        _ = try exchange(Data("mark".utf8))
        var samples: [Double] = []
        samples.reserveCapacity(count)
        let cpuBefore = Bench.processCPUSeconds()
        for _ in 0..<count {
            let start = Bench.now()
            _ = try exchange(payload)
            samples.append((Bench.now() - start) * 1e6)
        }
        let cpu = Bench.processCPUSeconds() - cpuBefore
        let peerCPU = Double(String(decoding: try exchange(Data("stop".utf8)).first ?? Data(), as: UTF8.self)) ?? 0
        return (samples.sorted(), (cpu + peerCPU) / Double(max(count, 1)) * 1e6)
    }
}

/// A `load-test bench-peer` child process and the lines it prints.
final class PeerProcess {
    private let process = Process()
    private let output = Pipe()
    private let input: Pipe?
    private var buffer = Data()

    /// With `input`, lines can be sent to its standard input (`tell`).
    init(_ arguments: [String], input: Bool = false) throws {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        process.executableURL = URL(fileURLWithPath: me)
        process.arguments = ["bench-peer"] + arguments
        process.standardOutput = output
        self.input = input ? Pipe() : nil
        if let pipe = self.input { process.standardInput = pipe }
        try process.run()
    }

    var isRunning: Bool { process.isRunning }
    var pid: Int32 { process.processIdentifier }

    /// Writes one line to its standard input.
    func tell(_ line: String) {
        input?.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// The next line it printed, waiting up to `timeoutMilliseconds`; nil when none came.
    func line(timeoutMilliseconds: Int32) throws -> String? {
        let deadline = Bench.now() + Double(timeoutMilliseconds) / 1000
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer = Data(buffer[buffer.index(after: newline)...])
                return line
            }
            let left = Int32(max(0, (deadline - Bench.now()) * 1000))
            var descriptor = pollfd(fd: output.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, left) > 0 else { return nil }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }  // it closed its output
            buffer.append(chunk)
        }
    }

    /// SIGTERM, and SIGKILL when it has not exited 2 s later (the proxy sits in `zmq_proxy`,
    /// which a handled SIGTERM does not end): a benchmark never hangs on a peer.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        let deadline = Bench.now() + 2
        while process.isRunning, Bench.now() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
