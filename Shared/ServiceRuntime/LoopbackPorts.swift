import Foundation
import Messages

/// Free TCP ports on loopback, for tests and benchmarks that start processes: all bound to port 0
/// at once (so they differ), read back, then released for the processes to take.
public enum LoopbackPorts {
    public static func free(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        var ports: [Int] = []
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw ServiceError(.internalError, "socket() failed: errno \(errno)") }
            sockets.append(fd)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
            guard bound == 0 else { throw ServiceError(.internalError, "bind() on 127.0.0.1:0 failed: errno \(errno)") }
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }
}
