import Campus
import Foundation
import Messages
@testable import OrderServer
import Testing
import TestSupport

/// `window.reserve` without `start`: the next window with room, counted and held in one
/// transaction, so a client never has to list, pick and race for it.
@Suite(.serialized)
struct OrderServerReserveTests {
    @Test("without start, places fill the next window until it is full, then the one after")
    func nextWithRoom() throws {
        let h = try OrderHarness()
        let cafe = try requireValue(h.catalog.cafe("caffe-macs"))
        let windows = try h.service.windows(WindowsRequest(cafeId: cafe.id, locale: "en_US", count: 2)).windows
        for taken in 1...cafe.pickup.capacity {
            let held = try h.service.reserve(ReserveRequest(cafeId: cafe.id, start: nil, userId: nil, locale: "en_US"))
            #expect(held.window.start == windows[0].start)
            #expect(held.window.remaining == cafe.pickup.capacity - taken)
        }
        let overflow = try h.service.reserve(ReserveRequest(cafeId: cafe.id, start: nil, userId: "alice", locale: "en_US"))
        #expect(overflow.window.start == windows[1].start)
        #expect(try h.count("SELECT COUNT(*) AS n FROM reservations") == cafe.pickup.capacity + 1)
    }

    @Test("a start that is given is still checked: a past window is refused and nothing is held")
    func givenStartIsChecked() throws {
        let h = try OrderHarness()
        let refused = #expect(throws: ServiceError.self) {
            try h.service.reserve(ReserveRequest(cafeId: "caffe-macs", start: OrderHarness.monday.adding(seconds: -600), userId: nil, locale: "en_US"))
        }
        #expect(refused?.code == ErrorCode.windowPast.rawValue)
        #expect(try h.count("SELECT COUNT(*) AS n FROM reservations") == 0)
    }
}
