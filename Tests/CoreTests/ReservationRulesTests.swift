import Campus
import Messages
import OrderCore
import Testing

@Suite("Reservation rules")
struct ReservationRulesTests {
    @Test("how many windows a list shows", arguments: [(nil as Int?, 8 as Int?), (1, 1), (96, 96), (0, nil), (97, nil), (-1, nil)])
    func windowCount(requested: Int?, count: Int?) {
        #expect((try? ReservationRules.windowCount(requested)) == count)
        if count == nil { #expect(errorCode { () throws(ServiceError) in try ReservationRules.windowCount(requested) } == "request.invalidField") }
    }

    @Test("a start must be to come and a window of the open café; the refusal names the next start")
    func starts() throws {
        let cafe = try #require(try DemoCampus.load().cafe("caffe-macs"))
        let calendar = PickupCalendar(cafe: cafe)
        let next = try #require(calendar.windows(after: t0, count: 2).last)
        let open = errorCode { () throws(ServiceError) in try ReservationRules.checkStart(next, cafe: cafe, now: t0) }
        #expect(open == nil)
        let past = try #require(refusal { () throws(ServiceError) in try ReservationRules.checkStart(t0.adding(seconds: -600), cafe: cafe, now: t0) })
        let first = try #require(calendar.windows(after: t0, count: 1).first)
        #expect(past.code == "order.windowPast" && past.details?["nextStart"] == "\(first)")
        let startingNow = errorCode { () throws(ServiceError) in try ReservationRules.checkStart(t0, cafe: cafe, now: t0) }
        #expect(startingNow == "order.windowPast", "a window starting now has started")
        let offGrid = try #require(refusal { () throws(ServiceError) in try ReservationRules.checkStart(next.adding(seconds: 90), cafe: cafe, now: t0) })
        #expect(offGrid.code == "order.windowClosed" && offGrid.message.contains("has no pickup window starting then"))
    }

    @Test("a full window offers the first later one with room")
    func full() throws {
        let cafe = try #require(try DemoCampus.load().cafe("macs-coffee"))
        let capacity = cafe.pickup.capacity
        #expect(ReservationRules.hasRoom(taken: capacity - 1, cafe: cafe) && !ReservationRules.hasRoom(taken: capacity, cafe: cafe))
        let later = ReservationRules.laterWindows(after: t0, cafe: cafe)
        #expect(later.count == ReservationRules.nextFreeSearch && later.allSatisfy { $0 > t0 })
        let refusal = ReservationRules.full(t0, cafe: cafe, later: [(later[0], capacity), (later[1], capacity - 1), (later[2], 0)], locale: "en_US",
                                            times: PickupTimeFormatter())
        #expect(refusal.code == "order.windowFull" && refusal.details?["nextFreeStart"] == "\(later[1])")
        let none = ReservationRules.full(t0, cafe: cafe, later: [(later[0], capacity)], locale: "en_US", times: PickupTimeFormatter())
        #expect(none.details == nil && !none.message.contains("next free"))
    }

    @Test("a new place is held for its user until the hold ends")
    func hold() throws {
        let cafe = try #require(try DemoCampus.load().cafe("caffe-macs"))
        let held = ReservationRules.hold(id: "res-7", cafe: cafe, start: .at(600), userId: "ann", now: t0, holdSeconds: 120)
        #expect(held == ReservationRecord(reservationId: "res-7", cafeId: "caffe-macs", windowStart: .at(600), userId: "ann", status: .held, expiresAt: .at(120)))
    }
}
