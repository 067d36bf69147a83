import CZeroMQ

/// Typed access to the socket options the platform sets.
extension Socket {
    func setIntOption(_ option: Int32, _ value: Int32, _ name: String) throws(ZeroMQError) {
        let h = try live("zmq_setsockopt \(name)")
        var v = value
        if zmq_setsockopt(h, option, &v, MemoryLayout<Int32>.size) != 0 { throw .last("zmq_setsockopt \(name)") }
    }

    func intOption(_ option: Int32, _ name: String) throws(ZeroMQError) -> Int32 {
        let h = try live("zmq_getsockopt \(name)")
        var v: Int32 = 0
        var size = MemoryLayout<Int32>.size
        if zmq_getsockopt(h, option, &v, &size) != 0 { throw .last("zmq_getsockopt \(name)") }
        return v
    }

    func setBytesOption(_ option: Int32, _ bytes: [UInt8], _ name: String) throws(ZeroMQError) {
        let h = try live("zmq_setsockopt \(name)")
        let rc = bytes.withUnsafeBytes { zmq_setsockopt(h, option, $0.baseAddress, $0.count) }
        if rc != 0 { throw .last("zmq_setsockopt \(name)") }
    }

    func stringOption(_ option: Int32) throws(ZeroMQError) -> String {
        let h = try live("zmq_getsockopt")
        var buffer = [CChar](repeating: 0, count: 1024)
        var size = buffer.count
        if zmq_getsockopt(h, option, &buffer, &size) != 0 { throw .last("zmq_getsockopt") }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Messages queued for sending before the socket blocks or drops (per peer).
    public func setSendHighWaterMark(_ messages: Int32) throws(ZeroMQError) { try setIntOption(ZMQ_SNDHWM, messages, "ZMQ_SNDHWM") }
    /// Messages queued on receipt before the peer is pushed back or messages dropped.
    public func setReceiveHighWaterMark(_ messages: Int32) throws(ZeroMQError) { try setIntOption(ZMQ_RCVHWM, messages, "ZMQ_RCVHWM") }
    /// How long `close()` keeps unsent messages, in milliseconds (0 drops them, -1 waits forever).
    public func setLinger(milliseconds: Int32) throws(ZeroMQError) { try setIntOption(ZMQ_LINGER, milliseconds, "ZMQ_LINGER") }
    /// Blocking send gives up with EAGAIN after this long (-1: never).
    public func setSendTimeout(milliseconds: Int32) throws(ZeroMQError) { try setIntOption(ZMQ_SNDTIMEO, milliseconds, "ZMQ_SNDTIMEO") }
    /// Blocking receive gives up with EAGAIN after this long (-1: never).
    public func setReceiveTimeout(milliseconds: Int32) throws(ZeroMQError) { try setIntOption(ZMQ_RCVTIMEO, milliseconds, "ZMQ_RCVTIMEO") }
    /// Peers sending a larger frame are disconnected (-1: no limit).
    public func setMaxMessageSize(bytes: Int64) throws(ZeroMQError) {
        let h = try live("zmq_setsockopt ZMQ_MAXMSGSIZE")
        var v = bytes
        if zmq_setsockopt(h, ZMQ_MAXMSGSIZE, &v, MemoryLayout<Int64>.size) != 0 { throw .last("zmq_setsockopt ZMQ_MAXMSGSIZE") }
    }
    /// ZMTP heartbeats: ping every `interval`, drop the peer after `timeout` without traffic, ask peers to use `ttl`.
    public func setHeartbeat(intervalMilliseconds: Int32, timeoutMilliseconds: Int32, ttlMilliseconds: Int32 = 0) throws(ZeroMQError) {
        try setIntOption(ZMQ_HEARTBEAT_IVL, intervalMilliseconds, "ZMQ_HEARTBEAT_IVL")
        try setIntOption(ZMQ_HEARTBEAT_TIMEOUT, timeoutMilliseconds, "ZMQ_HEARTBEAT_TIMEOUT")
        if ttlMilliseconds > 0 { try setIntOption(ZMQ_HEARTBEAT_TTL, ttlMilliseconds, "ZMQ_HEARTBEAT_TTL") }
    }
    /// Reconnect after `milliseconds`, backing off up to `maxMilliseconds` (0: no back-off).
    public func setReconnectInterval(milliseconds: Int32, maxMilliseconds: Int32 = 0) throws(ZeroMQError) {
        try setIntOption(ZMQ_RECONNECT_IVL, milliseconds, "ZMQ_RECONNECT_IVL")
        try setIntOption(ZMQ_RECONNECT_IVL_MAX, maxMilliseconds, "ZMQ_RECONNECT_IVL_MAX")
    }
    /// Queue messages only to completed connections (REQ/DEALER/PUSH: no message parked on a dead peer).
    public func setImmediate(_ on: Bool) throws(ZeroMQError) { try setIntOption(ZMQ_IMMEDIATE, on ? 1 : 0, "ZMQ_IMMEDIATE") }
    /// REQ: allow a new request after a lost reply, matching replies to requests.
    public func setRequestRelaxed(_ on: Bool) throws(ZeroMQError) {
        try setIntOption(ZMQ_REQ_RELAXED, on ? 1 : 0, "ZMQ_REQ_RELAXED")
        try setIntOption(ZMQ_REQ_CORRELATE, on ? 1 : 0, "ZMQ_REQ_CORRELATE")
    }
    /// XPUB: pass every (un)subscription upstream, duplicates included, so a proxy chain stays exact.
    public func setXPubVerbose(_ on: Bool) throws(ZeroMQError) { try setIntOption(ZMQ_XPUB_VERBOSE, on ? 1 : 0, "ZMQ_XPUB_VERBOSE") }
    /// SUB: receive messages whose topic frame starts with `prefix` ("" receives everything).
    public func subscribe(_ prefix: String) throws(ZeroMQError) { try setBytesOption(ZMQ_SUBSCRIBE, Array(prefix.utf8), "ZMQ_SUBSCRIBE") }
    /// SUB: stop receiving a prefix subscribed before.
    public func unsubscribe(_ prefix: String) throws(ZeroMQError) { try setBytesOption(ZMQ_UNSUBSCRIBE, Array(prefix.utf8), "ZMQ_UNSUBSCRIBE") }
    /// Whether the last received frame has more frames after it.
    public var hasMore: Bool { get throws(ZeroMQError) { try intOption(ZMQ_RCVMORE, "ZMQ_RCVMORE") != 0 } }
    /// Current send high-water mark.
    public var sendHighWaterMark: Int32 { get throws(ZeroMQError) { try intOption(ZMQ_SNDHWM, "ZMQ_SNDHWM") } }
    /// Current receive high-water mark.
    public var receiveHighWaterMark: Int32 { get throws(ZeroMQError) { try intOption(ZMQ_RCVHWM, "ZMQ_RCVHWM") } }
    /// Current linger in milliseconds.
    public var linger: Int32 { get throws(ZeroMQError) { try intOption(ZMQ_LINGER, "ZMQ_LINGER") } }
    /// Current send timeout in milliseconds (-1: never).
    public var sendTimeout: Int32 { get throws(ZeroMQError) { try intOption(ZMQ_SNDTIMEO, "ZMQ_SNDTIMEO") } }
    /// Current receive timeout in milliseconds (-1: never).
    public var receiveTimeout: Int32 { get throws(ZeroMQError) { try intOption(ZMQ_RCVTIMEO, "ZMQ_RCVTIMEO") } }
    /// Current largest frame accepted from a peer, in bytes (-1: no limit).
    public var maxMessageSize: Int64 {
        get throws(ZeroMQError) {
            let h = try live("zmq_getsockopt ZMQ_MAXMSGSIZE")
            var v: Int64 = 0
            var size = MemoryLayout<Int64>.size
            if zmq_getsockopt(h, ZMQ_MAXMSGSIZE, &v, &size) != 0 { throw .last("zmq_getsockopt ZMQ_MAXMSGSIZE") }
            return v
        }
    }
    /// Current ZMTP heartbeat: ping interval, timeout and the TTL asked of peers, in milliseconds.
    public var heartbeat: (interval: Int32, timeout: Int32, ttl: Int32) {
        get throws(ZeroMQError) {
            (try intOption(ZMQ_HEARTBEAT_IVL, "ZMQ_HEARTBEAT_IVL"), try intOption(ZMQ_HEARTBEAT_TIMEOUT, "ZMQ_HEARTBEAT_TIMEOUT"),
             try intOption(ZMQ_HEARTBEAT_TTL, "ZMQ_HEARTBEAT_TTL"))
        }
    }
    /// Current reconnect interval and its back-off ceiling, in milliseconds.
    public var reconnectInterval: (milliseconds: Int32, maxMilliseconds: Int32) {
        get throws(ZeroMQError) { (try intOption(ZMQ_RECONNECT_IVL, "ZMQ_RECONNECT_IVL"), try intOption(ZMQ_RECONNECT_IVL_MAX, "ZMQ_RECONNECT_IVL_MAX")) }
    }
    /// Whether messages queue only to completed connections.
    public var immediate: Bool { get throws(ZeroMQError) { try intOption(ZMQ_IMMEDIATE, "ZMQ_IMMEDIATE") != 0 } }
    /// The ZAP domain this socket authenticates in.
    public var zapDomain: String { get throws(ZeroMQError) { try stringOption(ZMQ_ZAP_DOMAIN) } }

    /// Makes this socket a CURVE server with its long-term secret key (Z85, 40 characters).
    /// Clients are authenticated by the ZAP handler of the context; without one libzmq accepts any client.
    public func setCurveServer(secretKey: String) throws(ZeroMQError) {
        try setIntOption(ZMQ_CURVE_SERVER, 1, "ZMQ_CURVE_SERVER")
        try setBytesOption(ZMQ_CURVE_SECRETKEY, Array(secretKey.utf8), "ZMQ_CURVE_SECRETKEY")
    }
    /// Makes this socket a CURVE client of the server with `serverKey`, using its own key pair (Z85).
    public func setCurveClient(serverKey: String, publicKey: String, secretKey: String) throws(ZeroMQError) {
        try setBytesOption(ZMQ_CURVE_SERVERKEY, Array(serverKey.utf8), "ZMQ_CURVE_SERVERKEY")
        try setBytesOption(ZMQ_CURVE_PUBLICKEY, Array(publicKey.utf8), "ZMQ_CURVE_PUBLICKEY")
        try setBytesOption(ZMQ_CURVE_SECRETKEY, Array(secretKey.utf8), "ZMQ_CURVE_SECRETKEY")
    }
    /// The ZAP domain this socket authenticates in.
    public func setZAPDomain(_ domain: String) throws(ZeroMQError) { try setBytesOption(ZMQ_ZAP_DOMAIN, Array(domain.utf8), "ZMQ_ZAP_DOMAIN") }
}
