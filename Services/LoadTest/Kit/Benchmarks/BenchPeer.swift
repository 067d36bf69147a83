import Foundation
import ServiceRuntime
import ZeroMQ
import CZeroMQ

/// The processes of benchmark (a), each its own `load-test bench-peer` (not for operators), so
/// every end has its own context, libzmq I/O thread and CPU, as libzmq's own perf tools
/// (`local_thr`/`remote_thr`) and two services would:
///
///     load-test bench-peer sub <endpoint> [--keys DIR --as NAME --server NAME]
///         SUB connected to <endpoint>, blocking receives (no poll per message): prints "ready" at
///         the first warm-up message ("w."), then at the end message ("e.") one line
///         "<messages> <seconds first→last> <CPU seconds first→last>". With "bind" for the
///         endpoint it binds a free loopback port instead, and prints it first.
///     load-test bench-peer pub <endpoint> <messages> <topic bytes> <payload bytes> [--keys …]
///         PUB connected to <endpoint>: sends warm-up messages until a line "go" arrives on stdin,
///         then <messages> two-frame messages and the end message; at a second line ("done")
///         prints the CPU seconds since "go" and exits.
///     load-test bench-peer proxy [--keys DIR --as NAME]
///         XSUB and XPUB bound on free loopback ports (printed "<xsub> <xpub>"), joined by
///         libzmq's own `zmq_proxy`, as the bus joins its two sides.
///     load-test bench-peer rep [--keys DIR --as NAME]
///         REP bound on a free loopback port, printed first; echoes every request. "mark" starts
///         its CPU count, "stop" answers the CPU seconds since the mark and ends it.
///     load-test bench-peer relay <xsub> <xpub> <from> <to>
///         A service's hop with no work in it (`load-test run`'s raw chains): a SUB on the proxy's
///         <xpub> subscribed to <from> and a PULL bound on a free loopback port (printed first);
///         every two-frame message either receives is published to the proxy's <xsub> with its
///         topic's <from> prefix replaced by <to>. It ends after 30 s without a message.
///
/// With `--keys` the sockets are CURVE, secured exactly as the platform's sockets are.
public enum BenchPeer {
    // Flags only from the command line: the orchestrator passes each one, and a CAFE_KEYS meant
    // for the platform must not turn a plain peer into a CURVE one.
    static let keys = Option<String>("keys", .path, default: "", help: "the key folder: with --as, the sockets are CURVE")
    static let principal = Option<String>("as", default: "", help: "the principal this end acts as")
    static let server = Option<String>("server", default: "", help: "the principal of the server a connecting end dials")
    static let usage = "usage: load-test bench-peer sub <endpoint> | pub <endpoint> <messages> <topic bytes> <payload bytes> | proxy | rep "
        + "| relay <xsub> <xpub> <from> <to> [--keys DIR --as NAME --server NAME]"

    /// Runs one peer process with `arguments` (after `bench-peer`); the exit status.
    public static func run(arguments: [String]) -> Int32 {
        do {
            let config = try Configuration(program: "load-test bench-peer", specs: [keys.spec, principal.spec, server.spec], arguments: arguments,
                                           environment: [:], allowPositional: true)
            guard let role = config.positional.first else { usageFailure(usage) }
            let context = try Context(ioThreads: 1)
            let logger = Logger(service: "load-test", instance: "bench-peer", minimum: .warning)
            let words = config.positional
            let serving = role == "rep" || role == "proxy" || words.dropFirst().first == "bind"
            let security: SocketSecurity = if !config[keys].isEmpty, !config[principal].isEmpty {
                try .deployed(folder: KeyFolder(config[keys]), as: config[principal], serving: serving ? context : nil, logger: logger)
            } else {
                .plain(logger: logger)
            }
            defer { security.close() }
            switch role {
            case "sub" where words.count == 2:
                try subscribe(context: context, endpoint: words[1], security: security, server: config[server])
            case "pub" where words.count == 5:
                guard let messages = Int(words[2]), let topicBytes = Int(words[3]), let payloadBytes = Int(words[4]),
                      messages > 0, (1...256).contains(topicBytes), (0...65_536).contains(payloadBytes) else { usageFailure(usage) }
                try publish(context: context, endpoint: words[1], messages: messages, topic: Data(repeating: UInt8(ascii: "s"), count: topicBytes),
                            payload: Data(repeating: UInt8(ascii: "x"), count: payloadBytes), security: security, server: config[server])
            case "proxy":
                try proxy(context: context, security: security)
            case "rep":
                try reply(context: context, security: security)
            case "relay" where words.count == 5 && !words[3].isEmpty:
                try relay(context: context, xsub: words[1], xpub: words[2], from: Data(words[3].utf8), to: Data(words[4].utf8))
            default:
                usageFailure(usage)
            }
            return 0
        } catch {
            logLine("load-test bench-peer: \(error)")
            return 1
        }
    }

    static func subscribe(context: Context, endpoint: String, security: SocketSecurity, server: String) throws {
        let sub = try Socket(context, .sub)
        defer { sub.close() }
        try sub.setReceiveHighWaterMark(0)
        try sub.setLinger(milliseconds: 0)
        // A blocking receive with a timeout on the socket, as local_thr does: no zmq_poll per message.
        try sub.setReceiveTimeout(milliseconds: 20_000)
        try sub.subscribe("")
        if endpoint == "bind" {
            // Direct: the subscriber binds and the publisher connects, as local_thr and remote_thr do.
            try security.secureServer(sub, endpoint: "tcp://127.0.0.1:0")
            try sub.bind("tcp://127.0.0.1:*")
            say(try sub.lastEndpoint)
        } else {
            try security.secureClient(sub, server: server)
            try sub.connect(endpoint)
        }
        var count = 0, ready = false
        var first = 0.0, cpuAtFirst = 0.0
        var msg = zmq_msg_t()
        zmq_msg_init(&msg)
        defer { zmq_msg_close(&msg) }
        let handle = try sub.rawHandle()
        while true {
            // Topic frame, then the payload frame, each received into one reused message.
            guard zmq_msg_recv(&msg, handle, 0) >= 0 else { break }
            let head = zmq_msg_size(&msg) > 0 ? zmq_msg_data(&msg).load(as: UInt8.self) : 0
            while zmq_msg_more(&msg) != 0 { guard zmq_msg_recv(&msg, handle, 0) >= 0 else { break } }
            switch head {
            case UInt8(ascii: "w"):
                if !ready { say("ready") }
                ready = true
            case UInt8(ascii: "e"):
                say("\(count) \(Bench.now() - first) \(Bench.processCPUSeconds() - cpuAtFirst) end")
                return
            default:
                if count == 0 {
                    first = Bench.now()
                    cpuAtFirst = Bench.processCPUSeconds()
                    // Once messages flow, a second without one means the rest is not coming.
                    try sub.setReceiveTimeout(milliseconds: 1_000)
                }
                count += 1
            }
        }
        // No end marker within the receive timeout: the time is to the last message (the wait taken off).
        say("\(count) \(Bench.now() - first - (count > 0 ? 1 : 0)) \(Bench.processCPUSeconds() - cpuAtFirst) timeout")
    }

    static func publish(context: Context, endpoint: String, messages: Int, topic: Data, payload: Data, security: SocketSecurity, server: String) throws {
        let pub = try Socket(context, .pub)
        defer { pub.close() }
        try pub.setSendHighWaterMark(0)
        try pub.setLinger(milliseconds: 5_000)
        try security.secureClient(pub, server: server)
        try pub.connect(endpoint)
        // Warm up until the orchestrator says the subscriber is receiving (the slow-joiner handshake).
        let input = FileHandle.standardInput.fileDescriptor
        while true {
            try pub.send(multipart: [Data("w.".utf8), Data()])
            var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, 10) > 0 { break }
        }
        _ = readLine()  // "go"
        let cpuAtGo = Bench.processCPUSeconds()
        let handle = try pub.rawHandle()
        topic.withUnsafeBytes { t in
            payload.withUnsafeBytes { p in
                for _ in 0..<messages {
                    zmq_send(handle, t.baseAddress, t.count, ZMQ_SNDMORE)
                    zmq_send(handle, p.baseAddress, p.count, 0)
                }
            }
        }
        try pub.send(multipart: [Data("e.".utf8), Data()])
        // The I/O thread may still be sending: count its CPU once the subscriber has it all ("done").
        _ = readLine()
        say("\(Bench.processCPUSeconds() - cpuAtGo)")
    }

    static func proxy(context: Context, security: SocketSecurity) throws {
        let xsub = try Socket(context, .xsub), xpub = try Socket(context, .xpub)
        defer { xsub.close(); xpub.close() }
        // High-water marks before bind: a listener takes its sockets' options when it binds, so
        // set later they would not apply, and XPUB drops what exceeds the default 1,000.
        try xsub.setReceiveHighWaterMark(0)
        try xpub.setSendHighWaterMark(0)
        for socket in [xsub, xpub] {
            try socket.setLinger(milliseconds: 0)
            try security.secureServer(socket, endpoint: "tcp://127.0.0.1:0")
            try socket.bind("tcp://127.0.0.1:*")
        }
        say("\(try xsub.lastEndpoint) \(try xpub.lastEndpoint)")
        // Runs until the orchestrator ends this process.
        zmq_proxy(try xsub.rawHandle(), try xpub.rawHandle(), nil)
    }

    static func reply(context: Context, security: SocketSecurity) throws {
        let rep = try Socket(context, .rep)
        defer { rep.close() }
        try rep.setLinger(milliseconds: 0)
        try security.secureServer(rep, endpoint: "tcp://127.0.0.1:0")
        try rep.bind("tcp://127.0.0.1:*")
        say(try rep.lastEndpoint)
        var mark = Bench.processCPUSeconds()
        while true {
            guard let frames = try rep.receiveMultipart(timeoutMilliseconds: 30_000) else { return }
            if frames == [Data("mark".utf8)] {
                mark = Bench.processCPUSeconds()
            } else if frames == [Data("stop".utf8)] {
                try rep.send(multipart: [Data("\(Bench.processCPUSeconds() - mark)".utf8)])
                return
            }
            try rep.send(multipart: frames)
        }
    }

    /// Plain libzmq only: the raw chains measure what the hops cost without the platform's security.
    static func relay(context: Context, xsub: String, xpub: String, from: Data, to: Data) throws {
        let sub = try Socket(context, .sub), pull = try Socket(context, .pull), pub = try Socket(context, .pub)
        defer { sub.close(); pull.close(); pub.close() }
        for socket in [sub, pull, pub] { try socket.setLinger(milliseconds: 0) }
        try sub.setReceiveHighWaterMark(0)
        try pub.setSendHighWaterMark(0)
        try sub.subscribe(String(decoding: from, as: UTF8.self))
        try sub.connect(xpub)
        try pub.connect(xsub)
        try pull.bind("tcp://127.0.0.1:*")
        say(try pull.lastEndpoint)
        var poller = Poller()
        _ = poller.register(sub)
        _ = poller.register(pull)
        while true {
            let ready = try poller.poll(timeoutMilliseconds: 30_000)
            if ready.isEmpty { return }
            for index in ready {
                while let frames = try (index == 0 ? sub : pull).tryReceiveMultipart() {
                    guard frames.count == 2, frames[0].starts(with: from) else { continue }
                    try pub.send(multipart: [to + frames[0].dropFirst(from.count), frames[1]])
                }
            }
        }
    }

    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
