import Foundation
import ServiceRuntime
import ZeroMQ

/// The other end of benchmark (a), run as its own process (`load-test bench-peer`, not for
/// operators), so each side has its own libzmq I/O thread and CPU, as two services would:
///
///     load-test bench-peer sub <endpoint> [--keys DIR --as NAME --server NAME]
///         SUB, blocking receives: prints "ready" at the first warm-up message ("w."), then at the
///         end message ("e.") one line "<messages> <seconds first→last> <CPU seconds>".
///     load-test bench-peer rep [--keys DIR --as NAME]
///         REP bound on a free loopback port, printed first; echoes every request. "mark" starts
///         its CPU count, "stop" answers the CPU seconds since the mark and ends it.
///
/// With `--keys` the socket is CURVE, secured exactly as the platform's sockets are.
enum BenchPeer {
    static func run(arguments: [String]) -> Int32 {
        do {
            let tokens = try CommandLineTokens(arguments) { _ in .value }
            let flags = Dictionary(tokens.flags.map { ($0.name, $0.value) }) { $1 }
            guard let role = tokens.words.first else { usageFailure("usage: load-test bench-peer sub <endpoint> | rep [--keys DIR --as NAME --server NAME]") }
            let context = try Context(ioThreads: 1)
            let logger = Logger(service: "load-test", instance: "bench-peer", minimum: .warning)
            let security: SocketSecurity = if let keys = flags["keys"], let name = flags["as"] {
                try .deployed(folder: KeyFolder(keys), as: name, serving: role == "rep" ? context : nil, logger: logger)
            } else {
                .plain(logger: logger)
            }
            defer { security.close() }
            switch role {
            case "sub" where tokens.words.count == 2:
                try subscribe(context: context, endpoint: tokens.words[1], security: security, server: flags["server"] ?? "")
            case "rep":
                try reply(context: context, security: security)
            default:
                usageFailure("usage: load-test bench-peer sub <endpoint> | rep [--keys DIR --as NAME --server NAME]")
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
        try sub.subscribe("")
        try security.secureClient(sub, server: server)
        try sub.connect(endpoint)
        var count = 0, ready = false
        var first = 0.0, cpuAtFirst = 0.0
        while true {
            guard let frames = try sub.receiveMultipart(timeoutMilliseconds: 10_000) else { break }
            switch frames[0].first {
            case UInt8(ascii: "w"):
                if !ready { say("ready") }
                ready = true
            case UInt8(ascii: "e"):
                say("\(count) \(Bench.now() - first) \(Bench.processCPUSeconds() - cpuAtFirst)")
                return
            default:
                if count == 0 {
                    first = Bench.now()
                    cpuAtFirst = Bench.processCPUSeconds()
                }
                count += 1
            }
        }
        say("\(count) \(Bench.now() - first) \(Bench.processCPUSeconds() - cpuAtFirst)")
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

    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
