import Campus
import Messages

/// Prices an order from the café's menu: the server computes every amount, in minor units,
/// with overflow checked. Items, quantities and modifiers are checked against that café's menu.
public enum Pricing {
    public static let maxQuantity = 50
    public static let maxLines = 50

    /// The priced lines and total of `items` at `cafe`, or the refusal naming the first bad item.
    public static func price(_ items: [OrderItemRequest], at cafe: Cafe) throws(ServiceError) -> (lines: [OrderLine], total: Int64) {
        guard !items.isEmpty else { throw ServiceError(.invalidField, "an order needs at least one item") }
        guard items.count <= maxLines else { throw ServiceError(.tooLarge, "an order has at most \(maxLines) lines, got \(items.count)") }
        var lines: [OrderLine] = []
        var total: Int64 = 0
        for (index, request) in items.enumerated() {
            guard let item = cafe.item(request.itemId) else {
                throw ServiceError(.unknownItem, "items[\(index)]: \"\(request.itemId.prefix(40))\" is not on the menu of \(cafe.name)")
            }
            guard (1...maxQuantity).contains(request.quantity) else {
                throw ServiceError(.invalidQuantity, "items[\(index)]: quantity \(request.quantity) must be 1…\(maxQuantity)")
            }
            let modifierIDs = request.modifiers ?? []
            guard Set(modifierIDs).count == modifierIDs.count else {
                throw ServiceError(.invalidField, "items[\(index)]: a modifier is listed twice")
            }
            var unit = item.price
            var names: [String] = []
            for id in modifierIDs {
                guard let modifier = item.modifiers.first(where: { $0.id == id }) else {
                    throw ServiceError(.unknownItem, "items[\(index)]: \"\(id.prefix(40))\" is not a modifier of \(item.name)")
                }
                let (withModifier, overflow) = unit.addingReportingOverflow(modifier.price)
                guard !overflow else { throw ServiceError(.invalidQuantity, "items[\(index)]: amount overflows") }
                unit = withModifier
                names.append(modifier.name)
            }
            let (lineTotal, overflow) = unit.multipliedReportingOverflow(by: Int64(request.quantity))
            guard !overflow else { throw ServiceError(.invalidQuantity, "items[\(index)]: amount overflows") }
            // A station makes a line's units side by side (a grill holds several patties), so
            // the line takes one unit's prep time, its modifiers included.
            lines.append(OrderLine(itemId: item.id, name: item.name, quantity: request.quantity, modifiers: names,
                                   station: item.station, unitPrice: unit, lineTotal: lineTotal,
                                   prepSeconds: item.prepSeconds(modifiers: modifierIDs)))
            let (sum, totalOverflow) = total.addingReportingOverflow(lineTotal)
            guard !totalOverflow else { throw ServiceError(.invalidQuantity, "items[\(index)]: the order total overflows") }
            total = sum
        }
        return (lines, total)
    }
}
