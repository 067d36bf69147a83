import Foundation
import Messages
import ServiceRuntime
import XCTest
import ZeroMQ

/// The kitchen's terminal screen in deployed mode, in a real terminal (tmux, as
/// `KitchenScreenTests`): attached over CURVE as `--screen-as`'s kitchen key, it shows and bumps
/// its café's tickets.
final class KitchenScreenDeployedTests: XCTestCase {
    func testAttachedScreenActsAsItsKitchenKey() throws {
        let tmux = try KitchenScreenTests.Tmux()
        let platform = try DeployedScopeTests.platform()
        defer {
            tmux.kill()
            platform.stop()
        }
        try platform.startAll()
        let context = try Context()
        let kiosk = try platform.client("order-service", as: "kiosk-macs", context: context)
        let kitchen = try platform.client("kitchen-display", as: "kitchen-macs", context: context)
        defer { [kiosk, kitchen].forEach { $0.close() } }
        let orderId = try KitchenDisplayTests.placeTwoStationOrder(kiosk, key: "kds-deployed-screen-1")
        let short = "#" + orderId.suffix(6)

        let keys = try XCTUnwrap(platform.keys).path
        try tmux.start([platform.bin.appendingPathComponent("kitchen-display").path, "--attach", "kitchen-display@" + platform.endpoint("kitchen-display"),
                        "--station", "grill", "--security", "deployed", "--keys", keys, "--screen-as", "kitchen-macs"], columns: 120, rows: 30)
        _ = try tmux.waitFor("the order's grill ticket over CURVE, links up") { $0.contains(short) && $0.contains("links: bus up, order-service up") }
        try tmux.keys("b")
        _ = try tmux.waitFor("the grill bumped by key") { $0.contains("\(orderId):grill → BUMPED") }
        let grill = try kitchen.call(Op.kdsTickets, TicketsQuery(includeDone: true), as: TicketsReply.self).tickets.first { $0.ticketId == "\(orderId):grill" }
        XCTAssertEqual(grill?.state, .ready, "the screen's key bumped through the kitchen's command socket")
        try tmux.keys("q")
    }
}
