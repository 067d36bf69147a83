import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real Pushpin for a test, from the repository's own templates: `deploy/pushpin/render.sh`
/// renders `pushpin.conf` and `routes` into `folder` (the same files `run-local.sh` renders),
/// on the ports given, and `/usr/bin/pushpin` runs them, its output in `folder/pushpin.log`.
/// `stop()` ends Pushpin and its condure, proxy and handler; call it in a `defer`.
public final class PushpinProcess {
    /// Where the clients connect (`http://127.0.0.1:<httpPort>`).
    public let httpPort: Int
    /// The `zhttpreq` route endpoint Pushpin binds; the edge's `--zhttp-endpoint`.
    public let zhttpEndpoint: String
    /// Pushpin's `push_in_spec`; the streams part's `--publish-endpoint`.
    public let publishEndpoint: String
    public let folder: URL
    private var process: Process?

    /// Renders the configuration (nothing runs yet). `controlPort` is Pushpin's own HTTP publish API.
    public init(folder: URL, httpPort: Int, zhttpPort: Int, publishPort: Int, controlPort: Int) throws {
        self.folder = folder
        self.httpPort = httpPort
        zhttpEndpoint = "tcp://127.0.0.1:\(zhttpPort)"
        publishEndpoint = "tcp://127.0.0.1:\(publishPort)"
        let render = Process()
        render.executableURL = URL(fileURLWithPath: "/bin/bash")
        render.arguments = [Self.repository.appendingPathComponent("deploy/pushpin/render.sh").path, folder.path, "--http-port", "\(httpPort)",
                            "--zhttp", zhttpEndpoint, "--publish", publishEndpoint, "--control-port", "\(controlPort)"]
        try render.run()
        render.waitUntilExit()
        guard render.terminationStatus == 0 else { throw PushpinError("render.sh exited \(render.terminationStatus)") }
    }

    /// Whether Debian's Pushpin is installed (suites that need it are enabled only then).
    public static var installed: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/pushpin") }

    /// Sets `key=value` lines of the rendered pushpin.conf before `start()`: a test's or a
    /// measurement's knobs (`client_maxconn`, `message_rate`). Only keys the template already has,
    /// so the configuration measured stays the one shipped but for what is named.
    public func override(_ settings: [String: String]) throws {
        let file = folder.appendingPathComponent("pushpin.conf")
        var lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
        for (key, value) in settings {
            guard let index = lines.firstIndex(where: { $0.hasPrefix("\(key)=") }) else { throw PushpinError("pushpin.conf.template has no \(key)") }
            lines[index] = "\(key)=\(value)"
        }
        try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
    }

    /// The end of each of Pushpin's own logs (condure, proxy, handler), for a failure's message.
    public var logs: String {
        ["condure", "pushpin-proxy", "pushpin-handler"].map { name in
            let text = (try? String(contentsOf: folder.appendingPathComponent("logs/\(name).log"), encoding: .utf8)) ?? ""
            return "\(name): \(text.suffix(1500))"
        }.joined(separator: "\n")
    }

    static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Pushpin's `sig_key` file, for the edge's `--grip-key-file`.
    public var sigKeyFile: URL { folder.appendingPathComponent("sig_key") }
    public var baseURL: String { "http://127.0.0.1:\(httpPort)" }
    public var log: String { (try? String(contentsOf: folder.appendingPathComponent("pushpin.log"), encoding: .utf8)) ?? "" }

    /// Starts Pushpin and waits (at most `timeout` s) until its HTTP port accepts connections.
    /// `env --default-signal`: a test process blocks SIGTERM in its threads, and Pushpin's
    /// children would inherit that and outlive a SIGTERM.
    public func start(timeout: Double = 20) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--default-signal", "/usr/bin/pushpin", "--config", folder.appendingPathComponent("pushpin.conf").path, "--merge-output"]
        let log = folder.appendingPathComponent("pushpin.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if Self.accepts(port: httpPort) { return }
            guard process.isRunning else { throw PushpinError("pushpin exited: \(self.log.suffix(2000))") }
            usleep(50_000)
        }
        throw PushpinError("pushpin did not listen on \(httpPort) in \(timeout) s: \(self.log.suffix(2000))")
    }

    /// SIGKILL to Pushpin and every process whose command line names this folder (its condure,
    /// proxy and handler): while one lives, Foundation counts the runner as running.
    public func stop() {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return }
        for entry in entries {
            guard let pid = Int32(entry), pid != getpid(), let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { continue }
            if String(decoding: data, as: UTF8.self).contains(folder.path) { kill(pid, SIGKILL) }
        }
        if let process, process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process = nil
    }

    /// Whether something accepts a TCP connection on 127.0.0.1:`port`.
    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    deinit { stop() }
}

public struct PushpinError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
