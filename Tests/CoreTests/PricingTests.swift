import Campus
import Messages
import OrderCore
import Testing

@Suite("Order pricing")
struct PricingTests {
    static func cafe(_ id: String) throws -> Cafe { try #require(try DemoCampus.load().cafe(id)) }

    @Test("totals in minor units, modifiers included, times the quantity")
    func totals() throws {
        let macs = try Self.cafe("caffe-macs")
        let (lines, total) = try Pricing.price([
            OrderItemRequest(itemId: "burger", quantity: 2, modifiers: ["cheese", "no-bun"]),
            OrderItemRequest(itemId: "fries", quantity: 3),
            OrderItemRequest(itemId: "caesar", quantity: 1, modifiers: []),
        ], at: macs)
        #expect(lines == [
            OrderLine(itemId: "burger", name: "Grass-fed burger", quantity: 2, modifiers: ["Add cheese", "No bun"], station: "grill", unitPrice: 1195, lineTotal: 2390,
                      prepSeconds: 240),
            OrderLine(itemId: "fries", name: "Fries", quantity: 3, modifiers: [], station: "grill", unitPrice: 395, lineTotal: 1185, prepSeconds: 180),
            OrderLine(itemId: "caesar", name: "Caesar salad", quantity: 1, modifiers: [], station: "salad", unitPrice: 895, lineTotal: 895, prepSeconds: 150),
        ])
        #expect(total == 4470)
    }

    @Test("a line's prep time is one unit's, with what its modifiers add, from the catalog")
    func prepTimes() throws {
        let macs = try Self.cafe("caffe-macs")
        let (lines, _) = try Pricing.price([
            OrderItemRequest(itemId: "caesar", quantity: 4, modifiers: ["chicken"]),
            OrderItemRequest(itemId: "caesar", quantity: 1),
        ], at: macs)
        #expect(lines.map(\.prepSeconds) == [150 + 60, 150])
        let coffee = try Self.cafe("macs-coffee")
        let (latte, _) = try Pricing.price([OrderItemRequest(itemId: "latte", quantity: 1, modifiers: ["oat-milk", "extra-shot"])], at: coffee)
        #expect(latte.map(\.prepSeconds) == [90 + 30])
    }

    @Test("prices come from the café's own menu", arguments: [
        ("macs-coffee", "latte", ["oat-milk", "extra-shot"], 2, Int64(1250)),
        ("parmer-lane-5", "latte", ["oat-milk"], 1, 500),
        ("tokyo-cafe", "matcha-latte", ["oat-milk"], 3, 1800),
        ("munich-cafe", "cappuccino", [], 50, 17_000),
    ] as [(String, String, [String], Int, Int64)])
    func perCafe(cafe: String, item: String, modifiers: [String], quantity: Int, total: Int64) throws {
        let priced = try Pricing.price([OrderItemRequest(itemId: item, quantity: quantity, modifiers: modifiers)], at: try Self.cafe(cafe))
        #expect(priced.total == total)
    }

    @Test("bad lines are refused with a stable code", arguments: [
        ("unknown item", [OrderItemRequest(itemId: "latte", quantity: 1)], "order.unknownItem"),
        ("unknown modifier", [OrderItemRequest(itemId: "burger", quantity: 1, modifiers: ["oat-milk"])], "order.unknownItem"),
        ("duplicate modifier", [OrderItemRequest(itemId: "burger", quantity: 1, modifiers: ["cheese", "cheese"])], "request.invalidField"),
        ("quantity 0", [OrderItemRequest(itemId: "burger", quantity: 0)], "order.invalidQuantity"),
        ("quantity -1", [OrderItemRequest(itemId: "burger", quantity: -1)], "order.invalidQuantity"),
        ("quantity 51", [OrderItemRequest(itemId: "burger", quantity: 51)], "order.invalidQuantity"),
        ("quantity 1", [OrderItemRequest(itemId: "burger", quantity: 1)], nil),
        ("quantity 50", [OrderItemRequest(itemId: "burger", quantity: 50)], nil),
        ("bad line after a good one", [OrderItemRequest(itemId: "fries", quantity: 1), OrderItemRequest(itemId: "fries", quantity: 0)], "order.invalidQuantity"),
        ("no items", [], "request.invalidField"),
        ("50 lines", Array(repeating: OrderItemRequest(itemId: "fries", quantity: 1), count: 50), nil),
        ("51 lines", Array(repeating: OrderItemRequest(itemId: "fries", quantity: 1), count: 51), "request.tooLarge"),
    ] as [(String, [OrderItemRequest], String?)])
    func refusals(label: String, items: [OrderItemRequest], code: String?) throws {
        let macs = try Self.cafe("caffe-macs")
        #expect(errorCode { () throws(ServiceError) in try Pricing.price(items, at: macs) } == code, "\(label)")
    }

    @Test("the refusal names the line")
    func refusalNamesLine() throws {
        let macs = try Self.cafe("caffe-macs")
        do {
            _ = try Pricing.price([OrderItemRequest(itemId: "fries", quantity: 1), OrderItemRequest(itemId: "latte", quantity: 1)], at: macs)
            Issue.record("an unknown item was priced")
        } catch {
            #expect(error.message.contains("items[1]"))
            #expect(error.message.contains("latte"))
        }
    }

    /// A café whose menu holds amounts near the limit of Int64 (no real catalog does; the
    /// arithmetic must still refuse rather than trap or wrap).
    static func hugeCafe() throws -> Cafe {
        var cafe = try Self.cafe("caffe-macs")
        var item = try #require(cafe.item("burger"))
        item.id = "gold"
        item.price = Int64.max / 2 + 1
        var modifier = try #require(item.modifiers.first)
        modifier.id = "diamond"
        modifier.price = Int64.max / 2 + 1
        item.modifiers = [modifier]
        cafe.menu.append(item)
        return cafe
    }

    @Test("amounts that overflow are refused, never trapped or wrapped", arguments: [
        ("quantity × price", [OrderItemRequest(itemId: "gold", quantity: 2)]),
        ("price + modifier", [OrderItemRequest(itemId: "gold", quantity: 1, modifiers: ["diamond"])]),
        ("sum of lines", [OrderItemRequest(itemId: "gold", quantity: 1), OrderItemRequest(itemId: "gold", quantity: 1)]),
        ("sum with an ordinary line", [OrderItemRequest(itemId: "gold", quantity: 1), OrderItemRequest(itemId: "fries", quantity: 1),
                                       OrderItemRequest(itemId: "gold", quantity: 1)]),
    ] as [(String, [OrderItemRequest])])
    func overflow(label: String, items: [OrderItemRequest]) throws {
        let cafe = try Self.hugeCafe()
        #expect(errorCode { () throws(ServiceError) in try Pricing.price(items, at: cafe) } == "order.invalidQuantity", "\(label)")
    }

    @Test("the largest amount that fits is priced exactly")
    func largestFits() throws {
        let priced = try Pricing.price([OrderItemRequest(itemId: "gold", quantity: 1)], at: try Self.hugeCafe())
        #expect(priced.total == Int64.max / 2 + 1)
    }
}
