import CZeroMQ
import Foundation

/// One event from libzmq's socket monitor (`zmq_socket_monitor`).
public struct SocketEvent: Sendable, Equatable {
    /// `ZMQ_EVENT_*`.
    public let event: UInt16
    /// The event's value (a file descriptor, an errno, a reconnect interval).
    public let value: UInt32
    /// The peer endpoint it is about.
    public let endpoint: String

    public static let connected = UInt16(ZMQ_EVENT_CONNECTED)
    public static let disconnected = UInt16(ZMQ_EVENT_DISCONNECTED)
    /// The ZMTP handshake (and its security mechanism, CURVE or none) completed: the link carries messages.
    public static let handshakeSucceeded = UInt16(ZMQ_EVENT_HANDSHAKE_SUCCEEDED)
    /// The peer refused our credentials (a ZAP 400: a key it does not know, or no CURVE).
    public static let handshakeFailedAuth = UInt16(ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)
    /// The handshake broke off (a wrong server key, a peer speaking another mechanism).
    public static let handshakeFailedProtocol = UInt16(ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL)
    public static let handshakeFailedNoDetail = UInt16(ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL)
    /// A listener accepted a connection; the value is its file descriptor.
    public static let accepted = UInt16(ZMQ_EVENT_ACCEPTED)
    /// The monitored socket was closed: no event follows.
    public static let monitorStopped = UInt16(ZMQ_EVENT_MONITOR_STOPPED)
    /// The events a listener's census reads (`ConnectionCensus`).
    public static let censusMask = ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL

    /// Reads the two frames a monitor sends: [u16 event, u32 value][endpoint]. Nil when malformed.
    public init?(frames: [Data]) {
        guard frames.count == 2, frames[0].count == 6 else { return nil }
        let bytes = [UInt8](frames[0])
        event = UInt16(bytes[0]) | UInt16(bytes[1]) << 8
        value = UInt32(bytes[2]) | UInt32(bytes[3]) << 8 | UInt32(bytes[4]) << 16 | UInt32(bytes[5]) << 24
        endpoint = String(decoding: frames[1], as: UTF8.self)
    }
}

extension Socket {
    /// Asks libzmq to report this socket's `events` (`ZMQ_EVENT_*` bits) on a PAIR socket bound at
    /// the inproc `endpoint`; connect a `.pair` socket there to read them as `SocketEvent`s.
    public func monitor(_ endpoint: String, events: Int32) throws(ZeroMQError) {
        let h = try live("zmq_socket_monitor \(endpoint)")
        if zmq_socket_monitor(h, endpoint, events) != 0 { throw .last("zmq_socket_monitor \(endpoint)") }
    }
}
