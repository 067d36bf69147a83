import Foundation
import ServiceRuntime
import TestSupport

/// A real Pushpin (Debian's 1.36: `pushpin` runs condure, pushpin-proxy and pushpin-handler) in a
/// temporary folder, on free loopback ports, with a minimal configuration: HTTP on `httpPort`,
/// every route handed to whoever connects to `zhttpPort` (`zhttpreq`, the edge's arrangement),
/// publishes taken on `pushInPort` (`push_in_spec`), every other socket an ipc file in the folder.
/// Stopped (runner and its children) when the test ends, failed or not.
/// The deploy templates (deploy/pushpin) are the full configuration; this is only what a test needs.
final class PushpinProcess {
    static let executable = "/usr/bin/pushpin"
    static var installed: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    let folder: URL
    let httpPort: Int
    let zhttpPort: Int
    let pushInPort: Int
    private let process = Process()

    init(maxConnections: Int = 1000, messageRate: Int? = nil) throws {
        // Short: ipc paths (folder/run/pp-condure-out-stream) must fit a socket address.
        folder = URL(fileURLWithPath: "/tmp/pp-\(UUID().uuidString.prefix(8))")
        let ports = try LoopbackPorts.free(4)
        (httpPort, zhttpPort, pushInPort) = (ports[0], ports[1], ports[2])
        let run = folder.appendingPathComponent("run").path, log = folder.appendingPathComponent("log").path
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: log, withIntermediateDirectories: true)
        let config = """
            [global]
            include={libdir}/internal.conf
            rundir=\(run)
            ipc_prefix=pp-
            port_offset=0

            [runner]
            services=condure,pushpin-proxy,pushpin-handler
            http_port=127.0.0.1:\(httpPort)
            logdir=\(log)
            log_level=2
            client_maxconn=\(maxConnections)

            [proxy]
            routesfile=routes
            sig_key=streams-test-\(UUID().uuidString)

            [handler]
            push_in_spec=tcp://127.0.0.1:\(pushInPort)
            push_in_sub_specs=ipc://\(run)/pp-push-in-sub
            push_in_http_addr=127.0.0.1
            push_in_http_port=\(ports[3])
            command_spec=ipc://\(run)/pp-handler-command
            stats_spec=ipc://\(run)/pp-stats
            \(messageRate.map { "message_rate=\($0)" } ?? "")

            """
        try config.write(to: folder.appendingPathComponent("pushpin.conf"), atomically: true, encoding: .utf8)
        try "* zhttpreq/tcp://127.0.0.1:\(zhttpPort)\n".write(to: folder.appendingPathComponent("routes"), atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = ["--config", folder.appendingPathComponent("pushpin.conf").path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try waitForHTTP()
    }

    /// Until condure accepts connections (at most 10 s).
    private func waitForHTTP() throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(httpPort).bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            close(fd)
            if connected == 0 { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw ServiceErrorForTests("Pushpin did not listen on \(httpPort) within 10 s")
    }

    /// Kills the runner's children (condure, pushpin-proxy, pushpin-handler), then the runner, and
    /// removes the folder. SIGKILL: a child of the test runner inherits its blocked signals, so
    /// Pushpin never sees a SIGTERM. Safe to call twice.
    func stop() {
        if process.isRunning {
            let runner = process.processIdentifier
            for child in Self.children(of: runner) { kill(child, SIGKILL) }
            kill(runner, SIGKILL)
            process.waitUntilExit()
        }
        if ProcessInfo.processInfo.environment["CAFE_KEEP_TEST_DATA"] == nil { try? FileManager.default.removeItem(at: folder) }
    }

    /// The end of each of Pushpin's logs, for a failure's message.
    var logs: String {
        ["condure", "pushpin-proxy", "pushpin-handler"].map { name in
            let text = (try? String(contentsOf: folder.appendingPathComponent("log/\(name).log"), encoding: .utf8)) ?? ""
            return "\(name): \(text.suffix(1500))"
        }.joined(separator: "\n")
    }

    /// The direct children of `pid`, from /proc.
    static func children(of pid: pid_t) -> [pid_t] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task -> [pid_t] in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").compactMap { pid_t(String($0).trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
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
