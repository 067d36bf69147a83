import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// (a) raw libzmq on this machine, over TCP loopback between two processes (this one and a
/// `load-test bench-peer`), with frames the size of our sighting messages and blocking receives:
/// PUB→SUB throughput and REQ→REP round trips, each with the CPU both processes spent per
/// message. In deployed mode both sockets are CURVE with a ZAP handler, secured by the same code
/// as the platform's (`SocketSecurity`), so the difference is what CURVE itself costs.
enum ZeroMQBenchmark {
    struct Figures {
        var messages: Int
        var perSecond: Double
        /// CPU microseconds per PUB→SUB message, publisher and subscriber together.
        var cpuMicrosPerMessage: Double
        /// Sorted REQ→REP round trips in microseconds.
        var roundTrips: [Double]
        /// CPU microseconds per round trip, both processes.
        var cpuMicrosPerRoundTrip: Double
    }

    /// Both measurements in `mode`; deployed mode uses `keys` (the server is "bus", the client "operator").
    static func run(keys: KeyFolder?, messages: Int, roundTrips: Int, topic: Data, payload: Data) throws -> Figures {
        let throughput = try pubSub(keys: keys, messages: messages, topic: topic, payload: payload)
        let rtt = try reqRep(keys: keys, count: roundTrips, payload: payload)
        return Figures(messages: throughput.messages, perSecond: throughput.perSecond, cpuMicrosPerMessage: throughput.cpuMicros,
                       roundTrips: rtt.samples, cpuMicrosPerRoundTrip: rtt.cpuMicros)
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

    /// Publishes `messages` two-frame messages as fast as PUB takes them to a subscriber process;
    /// its rate from its first to its last message. High-water marks are lifted so nothing is dropped.
    static func pubSub(keys: KeyFolder?, messages: Int, topic: Data, payload: Data) throws -> (messages: Int, perSecond: Double, cpuMicros: Double) {
        let context = try Context(ioThreads: 1)
        let security = try security(keys, as: "bus", serving: context)
        defer { security.close() }
        let publisher = try Socket(context, .pub)
        defer { publisher.close() }
        try publisher.setSendHighWaterMark(0)
        try publisher.setLinger(milliseconds: 0)
        try security.secureServer(publisher, endpoint: "tcp://127.0.0.1:0")
        try publisher.bind("tcp://127.0.0.1:*")
        let peer = try PeerProcess(["sub", try publisher.lastEndpoint] + peerArguments(keys, as: "operator", server: "bus"))
        defer { peer.stop() }
        // Warm up until the subscription has reached the publisher (the slow-joiner handshake).
        while try peer.line(timeoutMilliseconds: 10) == nil {
            guard peer.isRunning else { throw ServiceError(.internalError, "the bench subscriber exited before it was ready") }
            try publisher.send(multipart: [Data("w.".utf8), Data()])
        }
        let cpuBefore = Bench.processCPUSeconds()
        for _ in 0..<messages { try publisher.send(multipart: [topic, payload]) }
        try publisher.send(multipart: [Data("e.".utf8), Data()])
        guard let result = try peer.line(timeoutMilliseconds: 60_000) else { throw ServiceError(.internalError, "the bench subscriber did not report") }
        let cpu = Bench.processCPUSeconds() - cpuBefore
        let fields = result.split(separator: " ").compactMap { Double($0) }
        guard fields.count == 3 else { throw ServiceError(.internalError, "the bench subscriber reported \"\(result)\"") }
        let count = Int(fields[0])
        return (count, Double(count) / max(fields[1], 1e-9), (cpu + fields[2]) / Double(max(count, 1)) * 1e6)
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
    private var buffer = Data()

    init(_ arguments: [String]) throws {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        process.executableURL = URL(fileURLWithPath: me)
        process.arguments = ["bench-peer"] + arguments
        process.standardOutput = output
        try process.run()
    }

    var isRunning: Bool { process.isRunning }

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

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
    }
}
