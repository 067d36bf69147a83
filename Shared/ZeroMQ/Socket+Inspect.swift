import CZeroMQ
import Foundation

/// A message held in libzmq's buffers while a proxy decides whether to forward it: its first
/// frames, how many it had, and what its connection proved about the sender.
public struct HeldMessage {
    /// The ZAP handler's User-Id for the connection (nil on one no handler authenticated).
    public let userId: String?
    /// The `X-Key` property the ZAP handler attached: the client's CURVE public key (Z85).
    public let publicKey: String?
    /// How many frames the message had.
    public let frameCount: Int
    fileprivate let messages: UnsafeMutablePointer<zmq_msg_t>
    fileprivate let kept: Int

    /// The bytes of frame `index` (below `min(frameCount, kept)`); valid only inside the verdict.
    public func frame(_ index: Int) -> UnsafeRawBufferPointer {
        precondition(index < kept, "frame \(index) of a message held with \(kept) frames")
        return UnsafeRawBufferPointer(start: zmq_msg_data(messages + index), count: zmq_msg_size(messages + index))
    }
}

extension Socket {
    /// Receives one queued message and forwards it to `destination` only when `verdict` says so,
    /// without copying it: the proxy hop of `forwardOne`, with a look at the message first.
    ///
    /// At most `keep` frames are held; a message with more is received whole, shown to the
    /// verdict with its first `keep` frames, and never forwarded. Returns nil when nothing was
    /// queued, else whether the message was forwarded.
    public func forwardOne(to destination: Socket, keep: Int = 2, verdict: (HeldMessage) -> Bool) throws(ZeroMQError) -> Bool? {
        precondition(keep > 0)
        let src = try live("zmq_msg_recv")
        let dst = try destination.live("zmq_msg_send")
        // One slot per frame kept, and one more that frames beyond them are received into and dropped.
        let messages = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: keep + 1)
        for i in 0...keep { zmq_msg_init(messages + i) }
        defer {
            for i in 0...keep { zmq_msg_close(messages + i) }
            messages.deallocate()
        }
        var count = 0
        var flags = ZMQ_DONTWAIT
        while true {
            let slot = messages + min(count, keep)
            var rc: Int32
            repeat {
                rc = zmq_msg_recv(slot, src, flags)
            } while rc < 0 && cafe_zmq_errno() == cafe_EINTR()
            if rc < 0 {
                let error = ZeroMQError.last("zmq_msg_recv")
                if error.isAgain && flags == ZMQ_DONTWAIT { return nil }
                throw error
            }
            count += 1
            if zmq_msg_more(slot) == 0 { break }
            // The rest of a multipart message is already queued; never wait between its frames.
            flags = 0
        }
        let message = HeldMessage(userId: Self.property(of: &messages[0], "User-Id"), publicKey: Self.property(of: &messages[0], "X-Key"),
                                  frameCount: count, messages: messages, kept: min(count, keep))
        guard verdict(message), count <= keep else { return false }
        for i in 0..<count {
            let more = i < count - 1
            var rc: Int32
            // zmq_msg_send takes the frame's content on success and leaves the slot empty.
            repeat {
                rc = zmq_msg_send(messages + i, dst, more ? ZMQ_SNDMORE : 0)
            } while rc < 0 && cafe_zmq_errno() == cafe_EINTR()
            if rc < 0 { throw ZeroMQError.last("zmq_msg_send") }
        }
        return true
    }
}
