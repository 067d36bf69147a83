import Foundation

/// This process's own resource use, from the kernel: what a benchmark divides by the work done.
public enum ProcessUsage {
    /// User and system CPU time this process has used, in microseconds (`getrusage`).
    public static func cpuMicroseconds() -> Int {
        var usage = rusage()
        guard getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 else { return 0 }
        func micros(_ t: timeval) -> Int { Int(t.tv_sec) * 1_000_000 + Int(t.tv_usec) }
        return micros(usage.ru_utime) + micros(usage.ru_stime)
    }

    /// Resident memory in bytes (`/proc/self/statm`), nil where there is no procfs.
    public static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The health details every process reports: `process.cpuMicros` and `process.residentBytes`.
    public static var healthDetails: [String: String] {
        var details = ["process.cpuMicros": "\(cpuMicroseconds())"]
        if let resident = residentBytes() { details["process.residentBytes"] = "\(resident)" }
        return details
    }
}
