import Messages

/// The principals the access tests call as, as the key registry would hold them. Past the
/// connection nothing checks the key itself, so any 40 characters do.
public enum Callers {
    public static let key = String(repeating: "0", count: 40)

    /// A phone acting for `device` and `user` (by default the device's own user).
    public static func phone(_ device: String, user: String? = nil) -> Caller {
        Caller(principal: Principal(name: "phone-\(device)", role: .phone, publicKey: key, deviceId: device, userId: user ?? "user-\(device)"))
    }

    /// An instance of a platform service.
    public static func service(_ service: String, instance: String? = nil) -> Caller {
        Caller(principal: Principal(name: instance ?? service, role: .service, publicKey: key, service: service))
    }

    public static let gateway = Caller(principal: Principal(name: "gateway-hall", role: .gateway, publicKey: key))
    public static let `operator` = Caller(principal: Principal(name: "operator", role: .operator, publicKey: key))
    public static let kiosk = Caller(principal: Principal(name: "kiosk-macs", role: .kiosk, publicKey: key, cafeId: "caffe-macs"))
    public static let kitchen = Caller(principal: Principal(name: "kitchen-macs", role: .kitchen, publicKey: key, cafeId: "caffe-macs"))
}
