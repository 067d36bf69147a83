import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// What the backup drills drive: orders placed one after another from a thread of their own
/// (each reserve + place, so the copy is taken while order-service writes), and a probe that
/// asks a service for health in a loop and keeps its slowest answer.
enum BackupLoad {
    /// Reserves a window at Macs Coffee and places one latte; returns the order id.
    static func placeOrder(_ orders: RequestClient, key: String, device: String) throws -> String {
        let windows = try orders.call(Op.windowsList, WindowsRequest(cafeId: "macs-coffee", locale: "en_US"), as: WindowsReply.self)
        guard let window = windows.windows.first(where: { $0.remaining > 0 }) else { throw PlatformError("no pickup window left at macs-coffee") }
        let reservation = try orders.call(Op.windowReserve, ReserveRequest(cafeId: "macs-coffee", start: window.start, userId: "bob", locale: "en_US"),
                                          as: ReservationView.self)
        let request = PlaceOrderRequest(
            idempotencyKey: key, channel: .app, userId: "bob", deviceId: device, cafeId: "macs-coffee", reservationId: reservation.reservationId,
            items: [OrderItemRequest(itemId: "latte", quantity: 1, modifiers: [])], paymentToken: "tok_abcdefabcdefabcdef", locale: "en_US")
        return try orders.call(Op.orderPlace, request, as: OrderView.self).order.orderId
    }

    /// Orders placed in sequence until stopped (or `limit`), in the order their replies came.
    final class Orders: @unchecked Sendable {
        private let lock = NSLock()
        private var ids: [String] = []
        private var stopping = false
        private let done = DispatchSemaphore(value: 0)

        init(endpoint: String, device: String, prefix: String, limit: Int) {
            let thread = Thread { [self] in
                defer { done.signal() }
                guard let context = try? Context() else { return }
                let client = RequestClient(context: context, endpoint: endpoint, timeoutMilliseconds: 5_000)
                defer { client.close() }
                for index in 0..<limit {
                    if lock.withLock({ stopping }) { return }
                    guard let id = try? BackupLoad.placeOrder(client, key: "\(prefix)-\(index)", device: device) else { continue }
                    lock.withLock { ids.append(id) }
                }
            }
            thread.start()
        }

        var count: Int { lock.withLock { ids.count } }

        /// Stops placing and returns every order placed.
        func finish() -> [String] {
            lock.withLock { stopping = true }
            done.wait()
            return lock.withLock { ids }
        }
    }

    /// Asks `endpoint` for health until stopped; the slowest answer and how many it got.
    final class HealthProbe: @unchecked Sendable {
        private let lock = NSLock()
        private var worst = 0.0
        private var answers = 0
        private var stopping = false
        private let done = DispatchSemaphore(value: 0)

        init(endpoint: String) {
            let thread = Thread { [self] in
                defer { done.signal() }
                guard let context = try? Context() else { return }
                let client = RequestClient(context: context, endpoint: endpoint, timeoutMilliseconds: 5_000)
                defer { client.close() }
                while !lock.withLock({ stopping }) {
                    let start = Reactor.monotonic()
                    guard (try? client.call(Op.health, Empty(), as: HealthStatus.self)) != nil else { continue }
                    let seconds = Reactor.monotonic() - start
                    lock.withLock {
                        worst = max(worst, seconds)
                        answers += 1
                    }
                    usleep(2_000)
                }
            }
            thread.start()
        }

        /// Stops asking: the slowest answer in milliseconds, and the number of answers.
        func finish() -> (worstMilliseconds: Double, answers: Int) {
            lock.withLock { stopping = true }
            done.wait()
            return lock.withLock { (worst * 1000, answers) }
        }
    }
}
