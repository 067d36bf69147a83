import Foundation
import ServiceRuntime
import TestSupport

/// A real Pushpin for the streams tests: the shipped configuration (deploy/pushpin, rendered by
/// TestSupport's `PushpinProcess`) on free loopback ports in a short temporary folder (ipc socket
/// paths must fit a socket address), started; `settings` changes named lines of it (a
/// measurement's `client_maxconn` or `message_rate`). `stop()` ends it and removes the folder.
final class StreamsPushpin {
    let process: PushpinProcess
    let httpPort: Int
    let zhttpPort: Int
    let pushInPort: Int

    init(settings: [String: String] = [:]) throws {
        let ports = try LoopbackPorts.free(4)
        (httpPort, zhttpPort, pushInPort) = (ports[0], ports[1], ports[2])
        let folder = URL(fileURLWithPath: "/tmp/pp-\(UUID().uuidString.prefix(8))")
        process = try PushpinProcess(folder: folder, httpPort: httpPort, zhttpPort: zhttpPort, publishPort: pushInPort, controlPort: ports[3])
        try process.override(settings)
        try process.start()
    }

    var logs: String { process.logs }

    func stop() {
        process.stop()
        if ProcessInfo.processInfo.environment["CAFE_KEEP_TEST_DATA"] == nil { try? FileManager.default.removeItem(at: process.folder) }
    }

    deinit { stop() }
}

/// A curl client holding an SSE stream, its output collected as it comes. Killed when the test ends.
final class HeldClient: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private var received = Data()

    init(url: String, headers: [String] = []) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sSiN", "--max-time", "20"] + headers.flatMap { ["-H", $0] } + [url]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            lock.withLock { received.append(data) }
        }
        try process.run()
    }

    var text: String { lock.withLock { String(decoding: received, as: UTF8.self) } }

    /// Waits (at most `seconds`) until the output contains `part`.
    func waitFor(_ part: String, seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if text.contains(part) { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return text.contains(part)
    }

    /// SIGKILL (a SIGTERM would stay blocked, as for Pushpin).
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}

struct ServiceErrorForTests: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
