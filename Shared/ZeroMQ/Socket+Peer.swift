import CZeroMQ
import Foundation

/// A message with what the connection it came on proved about its sender.
public struct PeerMessage {
    public var frames: [Data]
    /// The ZAP handler's User-Id for the connection (deployed mode); nil on a connection no
    /// handler authenticated (plain mode, inproc).
    public var userId: String?
    /// The `X-Key` property the ZAP handler attached: the client's CURVE public key (Z85).
    public var publicKey: String?
    /// The `X-Session` property the ZAP handler attached: unique to the connection's handshake.
    public var session: String?
}

extension Socket {
    /// Receives one whole multipart message with its sender's ZAP properties, if one is queued.
    ///
    /// libzmq attaches the properties to every frame a peer sent on an authenticated connection
    /// (not to the routing-id frame a ROUTER adds); they are read from the first frame that has
    /// them (`zmq_msg_gets`, "User-Id" and "X-Key").
    public func tryReceivePeerMessage() throws(ZeroMQError) -> PeerMessage? {
        let h = try live("zmq_msg_recv")
        var result = PeerMessage(frames: [], userId: nil, publicKey: nil, session: nil)
        var msg = zmq_msg_t()
        var flags = ZMQ_DONTWAIT
        while true {
            zmq_msg_init(&msg)
            defer { zmq_msg_close(&msg) }
            var rc: Int32
            repeat {
                rc = zmq_msg_recv(&msg, h, flags)
            } while rc < 0 && cafe_zmq_errno() == cafe_EINTR()
            if rc < 0 {
                let error = ZeroMQError.last("zmq_msg_recv")
                if error.isAgain && flags == ZMQ_DONTWAIT { return nil }
                throw error
            }
            // A ROUTER's routing-id frame carries no properties: read them from the first frame that has them.
            if result.userId == nil && result.publicKey == nil {
                result.userId = Self.property(of: &msg, "User-Id")
                result.publicKey = Self.property(of: &msg, "X-Key")
                result.session = Self.property(of: &msg, "X-Session")
            }
            let size = zmq_msg_size(&msg)
            result.frames.append(size == 0 ? Data() : Data(bytes: zmq_msg_data(&msg), count: size))
            if zmq_msg_more(&msg) == 0 { return result }
            flags = 0
        }
    }

    /// A metadata property of a received message, or nil when the connection has none.
    static func property(of msg: inout zmq_msg_t, _ name: String) -> String? {
        guard let value = zmq_msg_gets(&msg, name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    /// XPUB: hand every subscription message to the application, which applies the ones it
    /// allows with `subscribe`/`unsubscribe` (ZMQ_XPUB_MANUAL).
    public func setXPubManual(_ on: Bool) throws(ZeroMQError) { try setIntOption(ZMQ_XPUB_MANUAL, on ? 1 : 0, "ZMQ_XPUB_MANUAL") }

    /// XPUB in manual mode: subscribes the connection of the subscription message received last to
    /// `prefix` (raw bytes: a subscription need not be UTF-8).
    public func subscribe(bytes prefix: [UInt8]) throws(ZeroMQError) { try setBytesOption(ZMQ_SUBSCRIBE, prefix, "ZMQ_SUBSCRIBE") }

    /// XPUB in manual mode: unsubscribes the connection of the message received last from `prefix`.
    public func unsubscribe(bytes prefix: [UInt8]) throws(ZeroMQError) { try setBytesOption(ZMQ_UNSUBSCRIBE, prefix, "ZMQ_UNSUBSCRIBE") }

}

/// Z85, the text form of CURVE keys (ZeroMQ RFC 32).
public enum Z85 {
    /// Encodes a 32-byte binary key as its 40-character text; nil for any other length.
    public static func encodeKey(_ bytes: Data) -> String? {
        guard bytes.count == 32 else { return nil }
        var text = [CChar](repeating: 0, count: 41)
        let ok = bytes.withUnsafeBytes { raw in
            zmq_z85_encode(&text, raw.bindMemory(to: UInt8.self).baseAddress, 32) != nil
        }
        return ok ? text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } : nil
    }

    /// Whether `text` is a 40-character Z85 key that decodes.
    public static func isKey(_ text: String) -> Bool {
        guard text.utf8.count == 40 else { return false }
        var bytes = [UInt8](repeating: 0, count: 32)
        return zmq_z85_decode(&bytes, text) != nil
    }

    /// The public key of a secret key (Z85 in, Z85 out); nil when `secret` is not a key.
    public static func publicKey(ofSecret secret: String) -> String? {
        guard isKey(secret) else { return nil }
        var text = [CChar](repeating: 0, count: 41)
        guard zmq_curve_public(&text, secret) == 0 else { return nil }
        return text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
