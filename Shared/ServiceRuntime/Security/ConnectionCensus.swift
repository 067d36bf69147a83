/// The connections a process's listeners hold, by listener and by peer address, as libzmq's socket
/// monitors report them (`ACCEPTED` with the new descriptor, `DISCONNECTED` when it ends), and
/// the caps that bound them (issue 28: a flood of 32,000 connections in 2 s stalled everything).
///
/// A connection past its address's cap or its listener's is refused as soon as it is accepted
/// (the ZAP thread shuts its descriptor down): one host cannot take every connection a listener
/// may hold, and a listener cannot hold more than the process's descriptors allow. Events of
/// different listeners come on different monitors and may be read late, so a descriptor may be
/// reported accepted again before its end was read: the census then counts the old connection
/// gone, and it never holds more entries than the process has descriptors.
///
/// Handshakes that fail before the ZAP handler is asked (a client without CURVE, one that breaks
/// off or times out) are counted here too: they leave no ZAP request behind.
public struct ConnectionCensus: Sendable {
    /// The caps: connections one peer address may hold across the process's listeners, and one
    /// listener may hold (0: no cap).
    public var maxPerAddress: Int
    public var maxPerListener: Int

    private struct Key: Hashable {
        var listener: String
        var fd: UInt32
    }
    private var open: [Key: String] = [:]
    private var perAddress: [String: Int] = [:]
    private var perListener: [String: Int] = [:]

    /// Connections accepted, refused over a cap, and handshakes that failed without a ZAP request, since start.
    public private(set) var accepted = 0
    public private(set) var refusedPerAddress = 0
    public private(set) var refusedPerListener = 0
    /// A peer that spoke another mechanism (a plain client at a CURVE socket) or broke ZMTP.
    public private(set) var failedProtocol = 0
    /// A handshake that ended without detail: the peer went away, or `--handshake-timeout-ms` passed.
    public private(set) var failedNoDetail = 0

    public init(maxPerAddress: Int, maxPerListener: Int) {
        self.maxPerAddress = maxPerAddress
        self.maxPerListener = maxPerListener
    }

    /// What to do with a connection just accepted.
    public enum Admission: String, Sendable {
        case admitted
        /// Its peer address holds `maxPerAddress` already.
        case overAddress
        /// Its listener holds `maxPerListener` already.
        case overListener
    }

    /// Records that `listener` accepted descriptor `fd` from `address`; refused connections are not held.
    public mutating func accepted(listener: String, fd: UInt32, address: String) -> Admission {
        let key = Key(listener: listener, fd: fd)
        if open[key] != nil { ended(key) }
        accepted += 1
        if maxPerAddress > 0, perAddress[address, default: 0] >= maxPerAddress {
            refusedPerAddress += 1
            return .overAddress
        }
        if maxPerListener > 0, perListener[listener, default: 0] >= maxPerListener {
            refusedPerListener += 1
            return .overListener
        }
        open[key] = address
        perAddress[address, default: 0] += 1
        perListener[listener, default: 0] += 1
        return .admitted
    }

    /// Records that the connection on `fd` of `listener` ended (one not held is ignored).
    public mutating func disconnected(listener: String, fd: UInt32) {
        ended(Key(listener: listener, fd: fd))
    }

    public mutating func handshakeFailed(protocol isProtocol: Bool) {
        if isProtocol { failedProtocol += 1 } else { failedNoDetail += 1 }
    }

    private mutating func ended(_ key: Key) {
        guard let address = open.removeValue(forKey: key) else { return }
        perAddress[address, default: 1] -= 1
        if perAddress[address] == 0 { perAddress[address] = nil }
        perListener[key.listener, default: 1] -= 1
        if perListener[key.listener] == 0 { perListener[key.listener] = nil }
    }

    /// Connections held now, in all and by the busiest address.
    public var held: Int { open.count }
    public var busiestAddress: Int { perAddress.values.max() ?? 0 }
    /// Connections `listener` holds now.
    public func held(listener: String) -> Int { perListener[listener] ?? 0 }
    public func held(address: String) -> Int { perAddress[address] ?? 0 }
}
