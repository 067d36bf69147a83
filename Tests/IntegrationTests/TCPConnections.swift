import Foundation

/// One IPv4 TCP socket as the kernel lists it in `/proc/net/tcp`: how a test sees what a real
/// process's sockets are doing without asking the process (one that is stopped, or whose peer
/// just died), e.g. a request still sitting unread in its socket, or every client of a dead
/// server having closed its end.
struct TCPConnection {
    let localPort: Int
    let remotePort: Int
    /// The kernel's state number: 01 established, 08 close-wait (the peer closed, this end not yet).
    let state: Int
    /// Bytes received and not yet read by the process.
    let receiveQueue: Int
    /// The socket's inode, as a process's `/proc/<pid>/fd` links name it (`socket:[inode]`).
    let inode: Int

    /// Still held by its process: established, or closed by the peer and not yet by this end.
    var isOpen: Bool { state == 0x01 || state == 0x08 }

    /// Every IPv4 TCP socket of this network namespace (the tests listen on 127.0.0.1).
    static func all() -> [TCPConnection] {
        // Read to the end: `String(contentsOfFile:)` stops after the first page of a /proc file.
        guard let file = FileHandle(forReadingAtPath: "/proc/net/tcp") else { return [] }
        defer { try? file.close() }
        let table = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        return table.split(separator: "\n").dropFirst().compactMap { line in
            // Addresses as HEXIP:HEXPORT, numbers in hex but the inode.
            let fields = line.split(separator: " ")
            // sl local_address rem_address st tx_queue:rx_queue tr:when retrnsmt uid timeout inode …
            guard fields.count > 9,
                  let local = fields[1].split(separator: ":").last.flatMap({ Int($0, radix: 16) }),
                  let remote = fields[2].split(separator: ":").last.flatMap({ Int($0, radix: 16) }),
                  let state = Int(fields[3], radix: 16),
                  let received = fields[4].split(separator: ":").last.flatMap({ Int($0, radix: 16) }),
                  let inode = Int(fields[9])
            else { return nil }
            return TCPConnection(localPort: local, remotePort: remote, state: state, receiveQueue: received, inode: inode)
        }
    }

    /// True when bytes that process `sender` sent to the server on `port` sit unread in the
    /// server's socket (the server stopped, say, with a request of `sender`'s in flight).
    static func unread(at port: Int, from sender: Int32) -> Bool {
        let folder = "/proc/\(sender)/fd"
        let sockets = Set(((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).compactMap { fd -> Int? in
            guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(fd)"), link.hasPrefix("socket:[") else { return nil }
            return Int(link.dropFirst("socket:[".count).dropLast())
        })
        let connections = all()
        let senderPorts = Set(connections.filter { $0.remotePort == port && sockets.contains($0.inode) }.map(\.localPort))
        return connections.contains { $0.localPort == port && senderPorts.contains($0.remotePort) && $0.receiveQueue > 0 }
    }
}
