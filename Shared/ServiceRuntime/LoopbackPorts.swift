import Foundation
import Messages

/// Free TCP ports on loopback, for tests and benchmarks that start processes: all bound at once
/// (so they differ), then released for the processes to take.
///
/// They are drawn below the kernel's ephemeral range (Linux: 32768–60999). A port the kernel hands
/// out for port 0 comes from that range, and so does the source port of every outgoing
/// connection: another test's client connecting in the instant between release and the service's
/// bind took one ("Address already in use"). Below the range only an explicit bind can take it.
public enum LoopbackPorts {
    /// Where the ports are drawn from: under the ephemeral range, above the well-known and the
    /// platform's own defaults (74xx).
    public static let range = 20_000..<32_000

    public static func free(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        var ports: [Int] = []
        var attempts = 0
        while ports.count < count {
            attempts += 1
            // After many taken ports, fall back to the kernel's choice (port 0) rather than fail.
            let wanted = attempts <= 200 ? Int.random(in: range) : 0
            if wanted != 0, ports.contains(wanted) { continue }
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw ServiceError(.internalError, "socket() failed: errno \(errno)") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(wanted).bigEndian
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
            guard bound == 0 else {
                close(fd)
                if wanted == 0 { throw ServiceError(.internalError, "bind() on 127.0.0.1:0 failed: errno \(errno)") }
                continue
            }
            sockets.append(fd)
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }
}
