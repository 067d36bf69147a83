import Foundation
import Synchronization
import ZeroMQ

/// (a) raw libzmq on this machine, over TCP loopback, with frames the size of our sighting
/// messages: PUB→SUB throughput and REQ→REP round trip. Each socket lives on its own thread.
enum ZeroMQBenchmark {
    struct Throughput {
        var messages: Int
        var perSecond: Double
    }

    /// Publishes `messages` two-frame messages as fast as PUB takes them; the subscriber's rate
    /// from its first to its last message. High-water marks are lifted so nothing is dropped.
    static func pubSub(messages: Int, topic: Data, payload: Data) throws -> Throughput {
        let context = try Context(ioThreads: 1)
        let publisher = try Socket(context, .pub)
        defer { publisher.close() }
        try publisher.setSendHighWaterMark(0)
        try publisher.setLinger(milliseconds: 0)
        try publisher.bind("tcp://127.0.0.1:*")
        let endpoint = try publisher.lastEndpoint
        let ready = Atomic<Bool>(false)
        let result = Mutex<(count: Int, seconds: Double)>((0, 0))
        let done = Atomic<Bool>(false)
        let thread = Thread {
            do {
                let sub = try Socket(context, .sub)
                defer { sub.close() }
                try sub.setReceiveHighWaterMark(0)
                try sub.setLinger(milliseconds: 0)
                try sub.subscribe("")
                try sub.connect(endpoint)
                var count = 0
                var first = 0.0
                while true {
                    guard let frames = try sub.receiveMultipart(timeoutMilliseconds: 2_000) else { break }
                    if frames[0].first == UInt8(ascii: "w") {
                        ready.store(true, ordering: .releasing)
                        continue
                    }
                    if frames[0].first == UInt8(ascii: "e") { break }
                    if count == 0 { first = Bench.now() }
                    count += 1
                }
                let seconds = Bench.now() - first
                result.withLock { $0 = (count, seconds) }
            } catch {
                FileHandle.standardError.write(Data("pub/sub benchmark subscriber: \(error)\n".utf8))
            }
            done.store(true, ordering: .releasing)
        }
        thread.start()
        // Warm up until the subscription has reached the publisher (the slow-joiner handshake).
        while !ready.load(ordering: .acquiring) {
            try publisher.send(multipart: [Data("w.".utf8), Data()])
            usleep(10_000)
        }
        for _ in 0..<messages { try publisher.send(multipart: [topic, payload]) }
        try publisher.send(multipart: [Data("e.".utf8), Data()])
        while !done.load(ordering: .acquiring) { usleep(5_000) }
        let (count, seconds) = result.withLock { $0 }
        return Throughput(messages: count, perSecond: Double(count) / max(seconds, 1e-9))
    }

    /// Sorted round-trip times in microseconds of `count` REQ→REP exchanges echoing `payload`.
    static func reqRep(count: Int, payload: Data) throws -> [Double] {
        let context = try Context(ioThreads: 1)
        let bound = Mutex<String?>(nil)
        let done = Atomic<Bool>(false)
        let server = Thread {
            // The REP socket is created, used and closed on this thread.
            guard let rep = try? Socket(context, .rep) else { return }
            defer { rep.close() }
            try? rep.setLinger(milliseconds: 0)
            try? rep.bind("tcp://127.0.0.1:*")
            bound.withLock { $0 = (try? rep.lastEndpoint) ?? "" }
            while !done.load(ordering: .acquiring) {
                guard let frames = try? rep.receiveMultipart(timeoutMilliseconds: 100) else { continue }
                try? rep.send(multipart: frames)
            }
        }
        server.start()
        var endpoint: String?
        while endpoint == nil {
            endpoint = bound.withLock { $0 }
            if endpoint == nil { usleep(1_000) }
        }
        guard let endpoint, !endpoint.isEmpty else { throw ZeroMQError(errno: EADDRNOTAVAIL, operation: "bench REP bind") }
        let req = try Socket(context, .req)
        defer { req.close() }
        try req.setLinger(milliseconds: 0)
        try req.connect(endpoint)
        var samples: [Double] = []
        samples.reserveCapacity(count)
        for i in 0..<(count + 1_000) {
            let start = Bench.now()
            try req.send(payload)
            _ = try req.receiveMultipart()
            if i >= 1_000 { samples.append((Bench.now() - start) * 1e6) }  // the first thousand warm up
        }
        done.store(true, ordering: .releasing)
        while !server.isFinished { usleep(1_000) }
        return samples.sorted()
    }
}
