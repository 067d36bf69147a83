/// The Pushpin channel names the streams use. A held client subscribes to one (`Grip-Channel`),
/// and every event published to it reaches every client held on it:
///
/// - `order:<orderId>`: an order's events (`order.placed` … `order.pickedUp`);
/// - `device:<deviceId>`: a device's notifications (`notify.delivery`).
///
/// An id is percent-encoded outside `A–Z a–z 0–9 . _ ~ -`, so no id can carry the `,` or `;` that
/// separate channels and their parameters in `Grip-Channel`, and two ids never share a channel.
public enum StreamChannel {
    /// The channel of an order's events.
    public static func order(_ orderId: String) -> String { "order:" + escape(orderId) }

    /// The channel of a device's notifications.
    public static func device(_ deviceId: String) -> String { "device:" + escape(deviceId) }

    static func escape(_ id: String) -> String {
        var out = ""
        for byte in id.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "-"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out += "%"
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 0xF)])
            }
        }
        return out
    }
}
