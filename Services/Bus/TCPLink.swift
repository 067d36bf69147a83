import BusCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One TCP connection libzmq accepted, seen through its descriptor: who it is (both addresses, read
/// when it began, so a descriptor number the kernel gave to another connection since is never
/// mistaken for it), what the kernel says of it, and a way to end it.
///
/// libzmq owns the descriptor (its I/O thread reads, writes and closes it); the bus only asks the
/// kernel about it and, to cut it, shuts it down: libzmq then sees the connection end as if the peer
/// had gone, closes it and gives back its queues.
struct TCPLink {
    let fd: Int32
    /// "ip:port" of the peer and of our end.
    let peer: String
    let local: String

    /// The link behind `fd` now, or nil when it is no TCP connection (closed already, or another kind).
    init?(fd: Int32) {
        guard let peer = Self.address(fd, peer: true), let local = Self.address(fd, peer: false) else { return nil }
        self.fd = fd
        self.peer = peer
        self.local = local
    }

    /// Whether `fd` is still this connection (same two addresses).
    var isCurrent: Bool { Self.address(fd, peer: true) == peer && Self.address(fd, peer: false) == local }

    /// The kernel's counters for the connection, or nil when it cannot say (closed meanwhile).
    func sample() -> SubscriberLinks.Sample? {
        // struct tcp_info (linux/tcp.h): tcpi_bytes_acked at 120, tcpi_bytes_received at 128 (Linux 4.1+).
        var info = [UInt8](repeating: 0, count: 232)
        var length = socklen_t(info.count)
        let got = info.withUnsafeMutableBytes { getsockopt(fd, 6 /* IPPROTO_TCP */, 11 /* TCP_INFO */, $0.baseAddress, &length) }
        guard got == 0, length >= 136 else { return nil }
        var queued: Int32 = 0
        // SIOCOUTQ: bytes not yet sent or not yet acknowledged.
        guard ioctl(fd, 0x5411, &queued) == 0 else { return nil }
        func u64(_ at: Int) -> UInt64 { info[at..<at + 8].reversed().reduce(0) { $0 << 8 | UInt64($1) } }
        return SubscriberLinks.Sample(queuedBytes: Int(queued), ackedBytes: u64(120), receivedBytes: u64(128))
    }

    /// Ends the connection, if `fd` is still it.
    func cut() -> Bool {
        guard isCurrent else { return false }
        return shutdown(fd, Int32(SHUT_RDWR)) == 0
    }

    /// "ip:port" of one end of `fd`'s connection; nil when `fd` is no IP socket.
    static func address(_ fd: Int32, peer: Bool) -> String? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let got = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { peer ? getpeername(fd, $0, &length) : getsockname(fd, $0, &length) }
        }
        guard got == 0 else { return nil }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST)), service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let named = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), &service, socklen_t(service.count), NI_NUMERICHOST | NI_NUMERICSERV)
            }
        }
        guard named == 0, storage.ss_family == sa_family_t(AF_INET) || storage.ss_family == sa_family_t(AF_INET6) else { return nil }
        return String(cString: host) + ":" + String(cString: service)
    }
}
