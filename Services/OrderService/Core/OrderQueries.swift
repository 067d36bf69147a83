import Messages

/// The reads of one order (`order.get`, `order.pickup`, `order.history`): the refusal when it
/// does not exist, and the locale its view is written in.
public enum OrderQueries {
    /// The refusal for an order id that names no order.
    public static func unknown(_ orderId: String) -> ServiceError {
        ServiceError(.unknownOrder, "no order \(orderId.prefix(60))")
    }

    /// `order` when it exists, else the refusal.
    public static func require(_ order: OrderSnapshot?, id: String) throws(ServiceError) -> OrderSnapshot {
        guard let order else { throw unknown(id) }
        return order
    }

    /// The locale an order's view is written in: the request's, else its café's, else en_US.
    public static func locale(requested: String?, cafeLocale: String?) -> String {
        requested ?? cafeLocale ?? "en_US"
    }
}
