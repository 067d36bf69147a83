import KitchenCore
import Messages
import Policy
import Testing
import TestSupport

/// KitchenScope's rules, table-driven: a kitchen sees and acts on its café's tickets only; the
/// operator sees every café.
struct KitchenScopeTests {
    typealias C = Callers

    static func ticket(cafe: String) -> Ticket {
        Ticket(ticketId: "ord-1:grill", orderId: "ord-1", cafeId: cafe, station: "grill", state: .new, lines: [], pickupStart: t0,
               customerHere: false, createdAt: t0)
    }

    @Test("a view's café: a kitchen's own when left out, its own when named, another refused; the operator's as asked", arguments: [
        ("kitchen, none named", C.macsKitchen, String?.none, "caffe-macs"),
        ("kitchen, its own", C.macsKitchen, "caffe-macs", "caffe-macs"),
        ("kitchen, another café", C.macsKitchen, "parmer-lane-5", "forbidden"),
        ("operator, none named: every café", C.operatorKey, nil, "every"),
        ("operator, one café", C.operatorKey, "parmer-lane-5", "parmer-lane-5"),
        ("developer", Caller.developer, nil, "every"),
        ("a kiosk (the table keeps it out too)", C.macsKiosk, nil, "forbidden"),
    ])
    func viewCafe(_ name: String, caller: Caller, asked: String?, expected: String) {
        let outcome = Result { () throws(ServiceError) in try KitchenScope.viewCafe(asked, caller: caller) }
        switch outcome {
        case .success(let cafe): #expect((cafe ?? "every") == expected, "\(name)")
        case .failure(let error): #expect(error.code == "auth.forbidden" && expected == "forbidden", "\(name): \(error)")
        }
    }

    @Test("acting on a ticket: a kitchen at its café; another café's and an unknown one answer alike", arguments: [
        ("kitchen at its café", C.macsKitchen, [Self.ticket(cafe: "caffe-macs")], true),
        ("kitchen of another café", C.parmerKitchen, [Self.ticket(cafe: "caffe-macs")], false),
        ("kitchen, no such ticket", C.parmerKitchen, [], false),
        ("kiosk", C.macsKiosk, [Self.ticket(cafe: "caffe-macs")], false),
        ("phone", C.annPhone, [Self.ticket(cafe: "caffe-macs")], false),
        ("operator", C.operatorKey, [Self.ticket(cafe: "caffe-macs")], true),
        ("developer, no such ticket: the board says so", Caller.developer, [], true),
    ])
    func reach(_ name: String, caller: Caller, tickets: [Ticket], allowed: Bool) {
        let error = refusal { () throws(ServiceError) in try KitchenScope.requireReach(tickets, caller: caller, to: "bump ticket \"ord-1:grill\"", noun: "ticket") }
        #expect(allowed ? error == nil : error?.code == "auth.forbidden", "\(name): \(String(describing: error))")
    }

    @Test("another café's ticket and a missing one get the same refusal")
    func sameWords() {
        let other = refusal { () throws(ServiceError) in try KitchenScope.requireReach([Self.ticket(cafe: "caffe-macs")], caller: C.parmerKitchen, to: "bump", noun: "ticket") }
        let missing = refusal { () throws(ServiceError) in try KitchenScope.requireReach([], caller: C.parmerKitchen, to: "bump", noun: "ticket") }
        #expect(other != nil && other == missing)
    }
}
