import Foundation
import Messages
import ServiceRuntime

/// Small measuring helpers for the benchmarks: wall time, resident memory, exact percentiles.
enum Bench {
    /// Starts the executable `name` beside this one in `bin`, its output in `<root>/<name>.log`.
    static func spawn(_ bin: URL, _ name: String, _ arguments: [String], logsIn root: URL) throws -> Process {
        let process = Process()
        process.executableURL = bin.appendingPathComponent(name)
        process.arguments = arguments
        let log = root.appendingPathComponent("\(name).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return process
    }

    /// The folder of this executable, where the services' executables are built beside it.
    static var binaryDirectory: URL {
        URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]).deletingLastPathComponent()
    }

    /// Waits until each service behind `clients` answers `health`; throws naming the first that
    /// did not within `timeout` seconds (its log is under `root`).
    static func awaitHealthy(_ clients: [(client: RequestClient, name: String)], logsIn root: URL, timeout: Double = 20) throws {
        for (client, name) in clients {
            let deadline = now() + timeout
            while (try? client.call(Op.health, Empty(), as: HealthStatus.self)) == nil {
                guard now() < deadline else { throw ServiceError(.internalError, "\(name) did not start; see \(root.path)") }
                usleep(100_000)
            }
        }
    }

    /// Seconds on the monotonic clock.
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// CPU seconds the calling thread has used, to turn a rate into a per-core rate.
    static func cpuSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// CPU seconds (user + system) this process has used, every thread included.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// CPU seconds (user + system) process `pid` has used, from /proc; nil when unreadable.
    static func cpuSeconds(pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = text.lastIndex(of: ")") else { return nil }
        // After "pid (comm) ": state is field 3, utime field 14, stime field 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Resident set size of a process in bytes (VmRSS from /proc), nil when unreadable.
    static func residentBytes(pid: Int32 = getpid()) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        let kb = line.split(separator: " ").compactMap { Int($0) }.first
        return kb.map { $0 * 1024 }
    }

    /// Exact percentile of already sorted samples (nearest rank).
    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    static func format(_ value: Double, _ digits: Int = 0) -> String {
        String(format: "%.\(digits)f", value)
    }

    /// 1234567 → "1,234,567".
    static func grouped(_ value: Double) -> String {
        let formatter = NumberFormatter()
        formatter.numberStyle = .decimal
        formatter.maximumFractionDigits = 0
        formatter.locale = Locale(identifier: "en_US")
        return formatter.string(from: NSNumber(value: value)) ?? "\(Int(value))"
    }
}

/// A throwaway key folder for benchmark (a)'s CURVE run: every service and the operator.
struct BenchKeys {
    let folder: KeyFolder

    init() throws {
        folder = KeyFolder(FileManager.default.temporaryDirectory.appendingPathComponent("cafe-bench-keys-\(getpid())").path)
        try folder.initialize()
    }

    func remove() { try? FileManager.default.removeItem(atPath: folder.path) }
}
