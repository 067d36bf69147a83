import Messages
import Policy

/// The principals the access tests call as, as the key registry would hold them. Past the
/// connection nothing checks the key itself, so any 40 characters do.
public enum Callers {
    public static let key = String(repeating: "0", count: 40)

    /// Any principal: `name` with `role` and the scope given.
    public static func make(_ name: String, _ role: Role, device: String? = nil, user: String? = nil, cafe: String? = nil, service: String? = nil) -> Caller {
        Caller(principal: Principal(name: name, role: role, publicKey: key, service: service, deviceId: device, userId: user, cafeId: cafe))
    }

    /// A phone acting for `device` and `user` (by default the device's own user).
    public static func phone(_ device: String, user: String? = nil) -> Caller {
        make("phone-\(device)", .phone, device: device, user: user ?? "user-\(device)")
    }

    /// An instance of a platform service.
    public static func service(_ service: String, instance: String? = nil) -> Caller {
        make(instance ?? service, .service, service: service)
    }

    public static let gateway = make("gateway-hall", .gateway)
    public static let `operator` = make("operator", .operator)
    public static let kiosk = make("kiosk-macs", .kiosk, cafe: "caffe-macs")
    public static let kitchen = make("kitchen-macs", .kitchen, cafe: "caffe-macs")
}
