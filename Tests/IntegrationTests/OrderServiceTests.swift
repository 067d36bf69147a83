import Foundation
import Messages
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// order-service through its socket, with the real bus, region-monitor, beacon-ingest and
/// kitchen-display: the race for the last place, idempotency, every bad request refused with
/// nothing changed, the lifecycle with its audit rows and events, App Clip orders confirmed by
/// region-monitor from real fixes, the guest's sign-in, and the customer's arrival.
@Suite(.serialized)
struct OrderServiceTests {
    static let uuid = "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30"
    static let macsCode = "https://clip.campus.example/caffe-macs/counter"
    static let token = "tok_4242424242424242"

    func reserve(_ orders: RequestClient, cafe: String = "caffe-macs", user: String? = nil) throws -> ReservationView {
        let windows = try orders.call(Op.windowsList, WindowsRequest(cafeId: cafe, locale: "en_US", count: 96), as: WindowsReply.self)
        let free = try #require(windows.windows.first { $0.remaining > 0 })
        return try orders.call(Op.windowReserve, ReserveRequest(cafeId: cafe, start: free.start, userId: user, locale: "en_US"), as: ReservationView.self)
    }

    func appOrder(_ reservation: ReservationView, user: String = "alice", device: String? = nil, key: String = "app-\(UUID().uuidString.prefix(12))",
                  items: [OrderItemRequest] = [OrderItemRequest(itemId: "burger", quantity: 1, modifiers: ["cheese"])]) -> PlaceOrderRequest {
        PlaceOrderRequest(idempotencyKey: key, channel: .app, userId: user, deviceId: device, cafeId: reservation.cafeId, reservationId: reservation.reservationId,
                          items: items, paymentToken: Self.token, locale: "en_US")
    }

    @Test("a bad catalog stops order-service and region-monitor at start, naming the café and the field", arguments: ["order-service", "region-monitor"])
    func badCatalogRefused(service: String) throws {
        let platform = try Platform()
        defer { platform.stop() }
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("SharedTests/Fixtures")
        // A radius over Apple's 500 m limit, and an App Clip code that is not an https URL.
        let source = try String(contentsOf: fixtures.appendingPathComponent("campus.json"), encoding: .utf8)
        let badCode = platform.root.appendingPathComponent("bad-clip.json")
        try source.replacingOccurrences(of: "https://clip.campus.example/macs/counter", with: "http://clip.campus.example/macs/counter")
            .write(to: badCode, atomically: true, encoding: .utf8)
        for (file, expected) in [(fixtures.appendingPathComponent("campus-radius-800.json").path, "confirmationRadius: 800.0 m for café"),
                                 (badCode.path, "cafes[0] (macs).clipCodes[0]")] {
            platform.extraArguments[service] = ["--campus", file]
            try platform.start(service)
            let process = try #require(platform.process(service))
            process.waitUntilExit()
            #expect(process.terminationStatus != 0)
            #expect(platform.log(service).contains(expected), "\(platform.log(service).suffix(400))")
        }
    }

    @Test("two clients racing for the last place in a window: exactly one wins, the other is told the next free window")
    func raceForTheLastPlace() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.start(busAnd: ["order-service"])
        let context = try Context()
        let orders = RequestClient(context: context, endpoint: platform.endpoint("order-service"))
        defer { orders.close() }
        let windows = try orders.call(Op.windowsList, WindowsRequest(cafeId: "macs-coffee", locale: "en_US", count: 6), as: WindowsReply.self).windows
        // Five rounds, each on its own window filled to one place short.
        for round in 0..<5 {
            let window = windows[round]
            for _ in 0..<(window.capacity - 1) {
                _ = try orders.call(Op.windowReserve, ReserveRequest(cafeId: "macs-coffee", start: window.start, userId: nil, locale: "en_US"), as: ReservationView.self)
            }
            let results = Locked<[Result<String, ServiceError>]>([])
            let ready = DispatchGroup(), go = DispatchSemaphore(value: 0), done = DispatchGroup()
            let endpoint = platform.endpoint("order-service")
            let start = window.start
            for client in 0..<2 {
                ready.enter()
                done.enter()
                Thread {
                    defer { done.leave() }
                    guard let ctx = try? Context() else { ready.leave(); return }
                    let racer = RequestClient(context: ctx, endpoint: endpoint)
                    defer { racer.close() }
                    // Connect before the start line, so both requests leave together.
                    _ = try? racer.call(Op.health, Empty(), as: HealthStatus.self)
                    ready.leave()
                    go.wait()
                    do {
                        let held = try racer.call(Op.windowReserve, ReserveRequest(cafeId: "macs-coffee", start: start, userId: "racer-\(client)", locale: "en_US"),
                                                  as: ReservationView.self)
                        results.update { $0.append(.success(held.reservationId)) }
                    } catch let error as ServiceError {
                        results.update { $0.append(.failure(error)) }
                    } catch {
                        results.update { $0.append(.failure(ServiceError(.internalError, "\(error)"))) }
                    }
                }.start()
            }
            ready.wait()
            go.signal()
            go.signal()
            done.wait()
            let outcome = results.value
            let wins = outcome.filter { if case .success = $0 { true } else { false } }
            let losses = outcome.compactMap { if case .failure(let e) = $0 { e } else { nil } }
            #expect(wins.count == 1 && losses.count == 1, "round \(round): \(outcome)")
            #expect(losses.first?.code == "order.windowFull")
            #expect(losses.first?.details?["nextFreeStart"] == "\(windows[round + 1].start)")
            let after = try orders.call(Op.windowsList, WindowsRequest(cafeId: "macs-coffee", locale: "en_US", count: 6), as: WindowsReply.self).windows
            #expect(after[round].remaining == 0)
        }
    }

    @Test("idempotency keys, and every bad request refused with a typed code and nothing changed")
    func idempotencyAndBadRequests() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.start(busAnd: ["order-service"])
        let context = try Context()
        let watcher = try BusWatcher(context: context, endpoint: platform.busSub, prefixes: ["order."], probe: platform.busPub)
        let orders = RequestClient(context: context, endpoint: platform.endpoint("order-service"))
        defer { orders.close(); watcher.close() }

        let reservation = try reserve(orders, user: "alice")
        let request = appOrder(reservation, key: "lunch-0001")
        let first = try orders.call(Op.orderPlace, request, as: OrderView.self)
        #expect(first.order.state == .accepted && first.total.formatted == "$11.95")
        // A retry (the phone lost the reply): the same answer, no second order.
        #expect(try orders.call(Op.orderPlace, request, as: OrderView.self) == first)
        var other = request
        other.items = [OrderItemRequest(itemId: "fries", quantity: 1)]
        #expect(errorCode { _ = try orders.call(Op.orderPlace, other, as: OrderView.self) } == "order.idempotencyConflict")
        _ = try watcher.waitFor("order.accepted.")

        // Everything below is refused; count what exists first.
        let spare = try reserve(orders, user: "alice")
        try watcher.pump(milliseconds: 300)
        let eventsBefore = watcher.messages.count
        let remainingBefore = try orders.call(Op.windowsList, WindowsRequest(cafeId: "caffe-macs", locale: "en_US", count: 96), as: WindowsReply.self)
        func variant(_ change: (inout PlaceOrderRequest) -> Void) -> PlaceOrderRequest {
            var r = appOrder(spare, key: "bad-\(UUID().uuidString.prefix(8))")
            change(&r)
            return r
        }
        let cases: [(String, PlaceOrderRequest, String)] = [
            ("unknown café", variant { $0.cafeId = "mars-base" }, "order.unknownCafe"),
            ("item from another café's menu", variant { $0.items = [OrderItemRequest(itemId: "brezn", quantity: 1)] }, "order.unknownItem"),
            ("unknown modifier", variant { $0.items = [OrderItemRequest(itemId: "burger", quantity: 1, modifiers: ["oat-milk"])] }, "order.unknownItem"),
            ("negative quantity", variant { $0.items = [OrderItemRequest(itemId: "burger", quantity: -1)] }, "order.invalidQuantity"),
            ("zero quantity", variant { $0.items = [OrderItemRequest(itemId: "burger", quantity: 0)] }, "order.invalidQuantity"),
            ("no items", variant { $0.items = [] }, "request.invalidField"),
            ("malformed key", variant { $0.idempotencyKey = "bad key!" }, "order.invalidIdempotencyKey"),
            ("short key", variant { $0.idempotencyKey = "abc" }, "order.invalidIdempotencyKey"),
            ("no payment token", variant { $0.paymentToken = nil }, "order.paymentRequired"),
            ("malformed payment token", variant { $0.paymentToken = "4242-4242" }, "order.invalidPaymentToken"),
            ("unknown reservation", variant { $0.reservationId = "res_nope" }, "order.unknownReservation"),
            ("bad locale", variant { $0.locale = "en US" }, "request.invalidField"),
            ("app order without a user", variant { $0.userId = nil }, "request.invalidField"),
        ]
        for (name, bad, expected) in cases {
            #expect(errorCode { _ = try orders.call(Op.orderPlace, bad, as: OrderView.self) } == expected, "\(name)")
        }
        // Frames that are not an order at all.
        let oversize = Data("{\"op\":\"order.place\",\"id\":\"x\",\"body\":{\"idempotencyKey\":\"\(String(repeating: "k", count: Wire.defaultMaxFrameBytes))\"}}".utf8)
        for (name, frame, expected) in [("oversize body", oversize, "request.tooLarge"),
                                        ("not JSON", Data("{\"op\":\"order.place\",".utf8), "request.malformed"),
                                        ("missing fields", Data("{\"op\":\"order.place\",\"id\":\"1\",\"body\":{\"cafeId\":\"caffe-macs\"}}".utf8), "request.invalidField"),
                                        ("wrong type", Data("{\"op\":\"order.place\",\"id\":\"1\",\"body\":{\"idempotencyKey\":7}}".utf8), "request.invalidField")] {
            let reply = try orders.send(raw: frame)
            let decoded = try Wire.decodeReply(reply, body: OrderView.self)
            #expect(decoded.ok == false && decoded.error?.code == expected, "\(name): \(String(decoding: reply.prefix(200), as: UTF8.self))")
        }
        // Nothing changed: the same remaining places, the held place still usable, no order event.
        let remainingAfter = try orders.call(Op.windowsList, WindowsRequest(cafeId: "caffe-macs", locale: "en_US", count: 96), as: WindowsReply.self)
        #expect(remainingAfter.windows.map(\.remaining) == remainingBefore.windows.map(\.remaining))
        let health = try orders.call(Op.health, Empty(), as: HealthStatus.self)
        #expect(health.details["orders.open"] == "1")
        try watcher.pump(milliseconds: 300)
        #expect(watcher.messages.count == eventsBefore)
        #expect(try orders.call(Op.orderPlace, appOrder(spare), as: OrderView.self).order.state == .accepted)
    }

    @Test("the lifecycle through the kitchen: who may cancel when, pickup, no illegal step, an audit row and an event for each")
    func lifecycle() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.start(busAnd: ["order-service", "kitchen-display"])
        let context = try Context()
        let watcher = try BusWatcher(context: context, endpoint: platform.busSub, prefixes: ["order."], probe: platform.busPub)
        let orders = RequestClient(context: context, endpoint: platform.endpoint("order-service"))
        let kitchen = RequestClient(context: context, endpoint: platform.endpoint("kitchen-display"))
        defer { orders.close(); kitchen.close(); watcher.close() }

        let placed = try orders.call(Op.orderPlace, appOrder(try reserve(orders, user: "alice"), device: "alice-phone"), as: OrderView.self).order
        let id = placed.orderId
        #expect(errorCode { _ = try orders.call(Op.orderCancel, CancelOrderRequest(orderId: id, by: .customer, userId: "mallory"), as: OrderView.self) } == "order.notOwner")
        #expect(errorCode { _ = try orders.call(Op.orderCancel, CancelOrderRequest(orderId: id, by: .customer), as: OrderView.self) } == "request.invalidField")
        #expect(errorCode { _ = try orders.call(Op.orderCancel, CancelOrderRequest(orderId: id, by: .kitchen), as: OrderView.self) } == "request.invalidField")
        #expect(errorCode { _ = try orders.call(Op.orderCancel, CancelOrderRequest(orderId: id, by: .kitchen, reason: "bad\u{7}bell"), as: OrderView.self) } == "request.invalidField")
        #expect(errorCode { _ = try orders.call(Op.orderCancel, CancelOrderRequest(orderId: "ord_nope", by: .kitchen, reason: "x"), as: OrderView.self) } == "order.unknown")
        #expect(errorCode { _ = try orders.call(Op.orderPickup, OrderQuery(orderId: id), as: OrderView.self) } == "order.illegalTransition")

        // The grill starts and bumps it: preparing, then ready (the only station of a burger).
        let ticket = try eventually("the grill's ticket") {
            try kitchen.call(Op.kdsTickets, TicketsQuery(cafeId: "caffe-macs"), as: TicketsReply.self).tickets.first { $0.orderId == id }
        }
        _ = try kitchen.call(Op.kdsStart, TicketCommand(ticketId: ticket.ticketId), as: TicketView.self)
        _ = try eventually("preparing") { try orders.call(Op.orderGet, OrderQuery(orderId: id), as: OrderView.self).order.state == .preparing ? true : nil }
        // Once preparing, the customer may no longer cancel.
        #expect(errorCode { _ = try orders.call(Op.orderCancel, CancelOrderRequest(orderId: id, by: .customer, userId: "alice"), as: OrderView.self) } == "order.illegalTransition")
        _ = try kitchen.call(Op.kdsBump, TicketCommand(ticketId: ticket.ticketId), as: TicketView.self)
        _ = try eventually("ready") { try orders.call(Op.orderGet, OrderQuery(orderId: id), as: OrderView.self).order.state == .ready ? true : nil }
        let handed = try orders.call(Op.orderPickup, OrderQuery(orderId: id, locale: "de_DE"), as: OrderView.self)
        #expect(handed.order.state == .pickedUp && handed.total.formatted == "11,95\u{A0}$")
        #expect(errorCode { _ = try orders.call(Op.orderPickup, OrderQuery(orderId: id), as: OrderView.self) } == "order.illegalTransition")
        #expect(errorCode { _ = try orders.call(Op.orderCancel, CancelOrderRequest(orderId: id, by: .kitchen, reason: "too late"), as: OrderView.self) } == "order.illegalTransition")

        let history = try orders.call(Op.orderHistory, OrderQuery(orderId: id), as: OrderHistory.self)
        #expect(history.entries.map(\.to) == [.placed, .accepted, .preparing, .ready, .pickedUp])
        #expect(history.entries.map(\.actor) == ["customer", "system", "kitchen", "kitchen", "kitchen"])
        _ = try watcher.waitFor("order.pickedUp.")
        let events = watcher.messages.compactMap { m -> EventType? in
            if case .order(let e) = m.envelope.body, e.order.orderId == id { return m.envelope.type }
            return nil
        }
        #expect(events == [.orderPlaced, .orderAccepted, .orderPreparing, .orderReady, .orderPickedUp])

        // Cancellations: the customer before preparing; the kitchen later, with its reason.
        let mine = try orders.call(Op.orderPlace, appOrder(try reserve(orders, user: "alice"), device: "alice-phone"), as: OrderView.self).order
        let cancelled = try orders.call(Op.orderCancel, CancelOrderRequest(orderId: mine.orderId, by: .customer, deviceId: "alice-phone"), as: OrderView.self)
        #expect(cancelled.order.state == .cancelled)
        let other = try orders.call(Op.orderPlace, appOrder(try reserve(orders, user: "bob"), user: "bob"), as: OrderView.self).order
        _ = try orders.call(Op.orderCancel, CancelOrderRequest(orderId: other.orderId, by: .kitchen, reason: "out of buns"), as: OrderView.self)
        let reasons = try orders.call(Op.orderHistory, OrderQuery(orderId: other.orderId), as: OrderHistory.self).entries
        #expect(reasons.last?.to == .cancelled && reasons.last?.actor == "kitchen" && reasons.last?.reason == "out of buns")
        let cancelEvent = try watcher.waitFor("order.cancelled.") { m in
            if case .order(let e) = m.envelope.body { return e.order.orderId == other.orderId } else { return false }
        }
        if case .order(let e) = cancelEvent.envelope.body { #expect(e.reason == "out of buns" && e.previous == .accepted) }
        // Nothing is left open.
        #expect(try orders.call(Op.health, Empty(), as: HealthStatus.self).details["orders.open"] == "0")
    }

    @Test("App Clip orders: region-monitor confirms the code was scanned at the café from real fixes; the guest signs in and keeps the order")
    func appClipOrders() throws {
        let platform = try Platform()
        defer { platform.stop() }
        platform.extraArguments["order-service"] = ["--region-retry-seconds", "1"]
        try platform.start(busAnd: ["beacon-ingest", "region-monitor", "order-service"])
        let context = try Context()
        let watcher = try BusWatcher(context: context, endpoint: platform.busSub, prefixes: ["order."], probe: platform.busPub)
        let ingest = RequestClient(context: context, endpoint: platform.endpoint("beacon-ingest"))
        let orders = RequestClient(context: context, endpoint: platform.endpoint("order-service"))
        defer { [ingest, orders].forEach { $0.close() }; watcher.close() }

        // Three phones: at the Caffè Macs counter, in Austin, and one that denied location.
        let macs = (latitude: 37.3349, longitude: -122.009), austin = (latitude: 30.4015, longitude: -97.7255)
        for (device, place, authorization) in [("clip-here", macs, Authorization.whenInUse), ("clip-away", austin, .whenInUse), ("clip-denied", macs, .denied)] {
            _ = try ingest.call(Op.ingestReport, IngestReport(deviceId: device, status: DeviceStatusReport(authorization: authorization, foreground: true)), as: IngestResult.self)
            if authorization != .denied {
                let fix = FixReport(latitude: place.latitude, longitude: place.longitude, horizontalAccuracy: 8, precise: true, timestamp: Timestamp(Date()))
                _ = try ingest.call(Op.ingestReport, IngestReport(deviceId: device, fixes: [fix]), as: IngestResult.self)
            }
        }
        func clipOrder(_ device: String, url: String = Self.macsCode, invocation: ClipInvocation = .appClipCode, key: String) throws -> PlaceOrderRequest {
            let reservation = try reserve(orders)
            return PlaceOrderRequest(idempotencyKey: key, channel: .appClip, userId: nil, deviceId: device, cafeId: "caffe-macs",
                                     reservationId: reservation.reservationId, items: [OrderItemRequest(itemId: "margherita", quantity: 1)],
                                     paymentToken: Self.token, locale: "en_US", clip: ClipLaunch(url: url, invocation: invocation, acquiredAt: Timestamp(Date())))
        }
        // The fix travels beacon-ingest → region-monitor on its own channel: until it lands the
        // answer is "no fresh fix", and a refused order changes nothing, so the clip retries.
        let here = try clipOrder("clip-here", key: "clip-here-0001")
        let accepted = try eventually("a confirmed clip order") { () -> OrderView? in
            do {
                return try orders.call(Op.orderPlace, here, as: OrderView.self)
            } catch let error as ServiceError {
                guard error.code == "appClip.disallowed" else { throw error }
                usleep(100_000)
                return nil
            }
        }
        #expect(accepted.order.state == .accepted && accepted.order.clipCode == Self.macsCode && accepted.order.userId == nil)

        let away = try clipOrder("clip-away", key: "clip-away-0001")
        let refusal = try eventually("region-monitor's no for the phone in Austin") { () -> String? in
            let c = errorCode { _ = try orders.call(Op.orderPlace, away, as: OrderView.self) }
            return c == "appClip.disallowed" ? nil : c
        }
        #expect(refusal == "appClip.notInRegion")
        #expect(errorCode { _ = try orders.call(Op.orderPlace, try clipOrder("clip-denied", key: "clip-deny-0001"), as: OrderView.self) } == "appClip.disallowed")
        #expect(errorCode { _ = try orders.call(Op.orderPlace, try clipOrder("clip-here", invocation: .safari, key: "clip-safari-01"), as: OrderView.self) } == "appClip.disallowed")
        #expect(errorCode { _ = try orders.call(Op.orderPlace, try clipOrder("clip-here", url: "https://clip.campus.example/tokyo-cafe/counter", key: "clip-tokyo-001"), as: OrderView.self) } == "appClip.doesNotMatch")
        #expect(errorCode { _ = try orders.call(Op.orderPlace, try clipOrder("clip-here", url: "https://evil.example/caffe-macs", key: "clip-evil-0001"), as: OrderView.self) } == "appClip.doesNotMatch")
        #expect(try orders.call(Op.health, Empty(), as: HealthStatus.self).details["orders.open"] == "1")

        // The guest signs in: the order moves to the account, announced on the bus.
        let claimed = try orders.call(Op.orderClaim, ClaimOrdersRequest(deviceId: "clip-here", userId: "dana"), as: ClaimOrdersReply.self)
        #expect(claimed.orderIds == [accepted.order.orderId])
        #expect(try orders.call(Op.orderGet, OrderQuery(orderId: accepted.order.orderId), as: OrderView.self).order.userId == "dana")
        let event = try watcher.waitFor("order.claimed.caffe-macs.")
        if case .order(let e) = event.envelope.body { #expect(e.order.userId == "dana" && e.order.state == .accepted) }

        // region-monitor dies at lunch: a clip order is refused as unavailable, charging nothing;
        // the next is refused at once without asking (the breaker), and order-service keeps
        // serving. Once region-monitor is back and the retry period passed, the same key succeeds.
        platform.kill9("region-monitor")
        let retry = try clipOrder("clip-here", key: "clip-here-0002")
        let down = try #require(serviceError { try orders.call(Op.orderPlace, retry, as: OrderView.self) })
        #expect(down.code == "order.confirmationUnavailable" && down.message.contains("no payment token was recorded"), "\(down)")
        let skipped = try #require(serviceError { try orders.call(Op.orderPlace, retry, as: OrderView.self) })
        #expect(skipped.code == "order.confirmationUnavailable" && skipped.message.contains("not asked again before"), "\(skipped)")
        #expect(try orders.call(Op.health, Empty(), as: HealthStatus.self).details["orders.open"] == "1", "nothing was written")
        try platform.start("region-monitor")
        try platform.waitHealthy("region-monitor")
        let back = try eventually("the clip order once region-monitor is back") { () -> OrderView? in
            do {
                return try orders.call(Op.orderPlace, retry, as: OrderView.self)
            } catch let error as ServiceError {
                guard error.code == "order.confirmationUnavailable" else { throw error }
                usleep(200_000)
                return nil
            }
        }
        #expect(back.order.state == .accepted && back.order.deviceId == "clip-here")
    }

    @Test("a customer walking into the café of their open order is recorded on it, and the kitchen sees \"customer here\"")
    func arrival() throws {
        let platform = try Platform()
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        let watcher = try BusWatcher(context: context, endpoint: platform.busSub, prefixes: ["order.arrived."], probe: platform.busPub)
        let ingest = RequestClient(context: context, endpoint: platform.endpoint("beacon-ingest"))
        let orders = RequestClient(context: context, endpoint: platform.endpoint("order-service"))
        let kitchen = RequestClient(context: context, endpoint: platform.endpoint("kitchen-display"))
        defer { [ingest, orders, kitchen].forEach { $0.close() }; watcher.close() }

        let device = "walker-\(UUID().uuidString.prefix(6))"
        let order = try orders.call(Op.orderPlace, appOrder(try reserve(orders, user: "erin"), user: "erin", device: device), as: OrderView.self).order
        #expect(!order.customerHere)
        _ = try ingest.call(Op.ingestReport, IngestReport(deviceId: device, status: DeviceStatusReport(authorization: .whenInUse, foreground: true)), as: IngestResult.self)
        let arrived = try eventually("order.arrived") { () -> BusWatcher.Message? in
            let now = Timestamp(Date())
            let sightings = (0..<3).map { RangingReport(uuid: Self.uuid, major: 1, minor: 2, rssi: -60, measuredPower: -59, timestamp: now.adding(seconds: Double($0) * 0.2 - 0.6)) }
            _ = try ingest.call(Op.ingestReport, IngestReport(deviceId: device, sightings: sightings), as: IngestResult.self)
            return try? watcher.waitFor("order.arrived.caffe-macs.", timeout: 0.5)
        }
        if case .order(let e) = arrived.envelope.body { #expect(e.order.orderId == order.orderId && e.order.customerHere) }
        #expect(try orders.call(Op.orderGet, OrderQuery(orderId: order.orderId), as: OrderView.self).order.customerHere)
        _ = try eventually("customer here on the ticket") {
            try kitchen.call(Op.kdsTickets, TicketsQuery(cafeId: "caffe-macs"), as: TicketsReply.self).tickets.first { $0.orderId == order.orderId && $0.customerHere }
        }
        // Arriving again announces nothing new.
        try watcher.pump(milliseconds: 500)
        #expect(watcher.all("order.arrived.").count == 1)
    }
}

/// A value shared between a test and the threads it starts.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Value
    init(_ value: Value) { current = value }
    var value: Value { lock.withLock { current } }
    func update(_ body: (inout Value) -> Void) { lock.withLock { body(&current) } }
}
