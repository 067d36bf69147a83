import KitchenCore
@testable import KitchenServer
import Messages

/// The ops as the plain-mode developer calls them (every scope check passes): the board's tests
/// exercise the kitchen's rules, not who may call; `KitchenScopeServerTests` call through the
/// router as principals.
extension KitchenService {
    func command(_ command: TicketBoard.Command, _ ticketId: String) throws -> TicketView { try self.command(command, ticketId, as: .developer) }
    func rush(_ request: RushCommand) throws -> ExpediterOrder { try rush(request, as: .developer) }
    func tickets(_ query: TicketsQuery) throws -> TicketsReply { try tickets(query, as: .developer) }
    func orders(_ query: OrdersQuery) throws -> OrdersReply { try orders(query, as: .developer) }
    func counts(_ query: CountsQuery) throws -> CountsReply { try counts(query, as: .developer) }
}
