import Messages
@testable import OrderServer

/// The ops as the plain-mode developer calls them (every scope check passes): the domain tests
/// exercise the rules, not who may call; `OrderScopeServerTests` call through the router as
/// principals.
extension OrderService {
    func setPreference(_ request: PreferenceRequest) throws -> PreferenceView { try setPreference(request, as: .developer) }
    func menu(_ request: MenuRequest) throws -> MenuReply { try menu(request, as: .developer) }
    func windows(_ request: WindowsRequest) throws -> WindowsReply { try windows(request, as: .developer) }
    func reserve(_ request: ReserveRequest) throws -> ReservationView { try reserve(request, as: .developer) }
    func place(_ request: PlaceOrderRequest) throws -> OrderView { try place(request, as: .developer) }
    func history(_ query: OrderQuery) throws -> OrderHistory { try history(query, as: .developer) }
    func claim(_ request: ClaimOrdersRequest) throws -> ClaimOrdersReply { try claim(request, as: .developer) }
}
