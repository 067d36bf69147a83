import Dispatch
import Foundation
import KitchenCore
import Messages
import Synchronization

/// The interactive full-screen kitchen display on a terminal: raw ANSI on the alternate screen,
/// keys to move, start, bump, recall and rush, a clean redraw when the terminal is resized.
///
/// It acts only through requests (`kds.*`) sent over `transport`: in `--screen` mode that is the
/// service's own router, in `--attach` mode a request socket to a running kitchen-display, so a
/// key press does exactly what `cafectl kds ...` does.
public final class TerminalScreen {
    /// Sends one request frame and returns the reply frame.
    public typealias Transport = (Data) throws -> Data

    private let transport: Transport
    /// order-service, for the 86 keys; nil: the keys say the menu cannot be changed from here.
    private let menu: Transport?
    private let cafe: String?
    private var layout: ScreenLayout
    private var saved = termios()
    private var rawMode = false
    private var pending: [UInt8] = []
    private let resized = ResizeFlag()
    private var resizeSource: DispatchSourceSignal?
    private var lastRefresh = 0.0
    /// The chef pressed q.
    public private(set) var quitRequested = false

    /// A screen acting through `transport`, opening on `station` (or "expediter"; nil: every
    /// station) and showing only `cafe`'s tickets (nil: every café).
    public init(transport: @escaping Transport, menu: Transport? = nil, station: String?, cafe: String?) {
        self.transport = transport
        self.menu = menu
        self.cafe = cafe
        let view: ScreenLayout.View = station.map { $0 == "expediter" ? .expediter : .station($0) } ?? .allStations
        layout = ScreenLayout(views: ScreenLayout.views(stations: station.flatMap { $0 == "expediter" ? nil : $0 }.map { [$0] } ?? []),
                              view: view, tickets: [], orders: [], counts: [], link: nil, status: "", selected: 0)
    }

    /// Raw keys, alternate screen, hidden cursor, and a SIGWINCH source for redraws.
    public func open() {
        if tcgetattr(STDIN_FILENO, &saved) == 0 {
            var raw = saved
            raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
            raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
            withUnsafeMutableBytes(of: &raw.c_cc) { cc in
                cc[Int(VMIN)] = 0
                cc[Int(VTIME)] = 0
            }
            rawMode = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0
        }
        let flags = fcntl(STDIN_FILENO, F_GETFL)
        _ = fcntl(STDIN_FILENO, F_SETFL, flags | O_NONBLOCK)
        write("\u{1B}[?1049h\u{1B}[?25l")
        signal(SIGWINCH, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        source.setEventHandler { [resized] in resized.flag.store(true, ordering: .releasing) }
        source.resume()
        resizeSource = source
    }

    /// Gives the terminal back as it was.
    public func close() {
        resizeSource?.cancel()
        write("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        if rawMode { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
        let flags = fcntl(STDIN_FILENO, F_GETFL)
        _ = fcntl(STDIN_FILENO, F_SETFL, flags & ~O_NONBLOCK)
    }

    /// Reads what keys are waiting, acts on them, and redraws when something changed, the
    /// terminal was resized, or `refreshSeconds` passed (ages tick, links change).
    public func tick(now monotonic: Double, refreshSeconds: Double = 0.5) {
        var buffer = [UInt8](repeating: 0, count: 64)
        var acted = false
        while true {
            let n = read(STDIN_FILENO, &buffer, buffer.count)
            guard n > 0 else { break }
            pending.append(contentsOf: buffer[0..<n])
        }
        while let key = nextKey() {
            handle(key)
            acted = true
        }
        let wasResized = resized.flag.exchange(false, ordering: .acquiringAndReleasing)
        if acted || wasResized || monotonic - lastRefresh >= refreshSeconds {
            refresh()
            lastRefresh = monotonic
            draw(clear: wasResized)
        }
    }

    enum Key: Equatable { case up, down, left, right, char(Character) }

    private func nextKey() -> Key? {
        guard let first = pending.first else { return nil }
        if first == 0x1B {
            // An escape sequence: ESC [ A..D. A lone ESC waits for the next byte, and is dropped
            // when that byte does not continue a sequence.
            if pending.count >= 2 && pending[1] != UInt8(ascii: "[") {
                pending.removeFirst()
                return nextKey()
            }
            guard pending.count >= 3 else { return nil }
            let code = pending[2]
            pending.removeFirst(3)
            switch code {
            case UInt8(ascii: "A"): return .up
            case UInt8(ascii: "B"): return .down
            case UInt8(ascii: "C"): return .right
            case UInt8(ascii: "D"): return .left
            default: return nextKey()
            }
        }
        pending.removeFirst()
        return .char(Character(Unicode.Scalar(first)))
    }

    private func handle(_ key: Key) {
        switch key {
        case .up, .char("k"): layout.selected = max(0, layout.selected - 1)
        case .down, .char("j"): layout.selected = min(max(layout.rowCount - 1, 0), layout.selected + 1)
        case .left, .char("h"): switchView(by: -1)
        case .right, .char("l"), .char("\t"): switchView(by: 1)
        case .char("s"): act("start") { try self.onSelectedTickets(Op.kdsStart, open: [.new]) }
        case .char("b"), .char(" "), .char("\r"), .char("\n"): act("bump") { try self.onSelectedTickets(Op.kdsBump, open: [.new, .inProgress]) }
        case .char("r"): act("recall") { try self.recallLast() }
        case .char("!"): act("rush") { try self.toggleRush() }
        case .char("8"): act("86") { try self.setAvailability(false) }
        case .char("9"): act("restore") { try self.setAvailability(true) }
        case .char("q"): quitRequested = true
        default: break
        }
    }

    private func switchView(by step: Int) {
        guard let index = layout.views.firstIndex(of: layout.view) else { layout.view = .allStations; return }
        layout.view = layout.views[(index + step + layout.views.count) % layout.views.count]
        layout.selected = 0
    }

    /// Runs one command and puts what it did (or the refusal's code and message) on the status line.
    private func act(_ name: String, _ body: () throws -> String) {
        do {
            layout.status = try body()
        } catch let error as ServiceError {
            layout.status = "\(name) refused: \(error.code): \(error.message)"
        } catch {
            layout.status = "\(name) failed: \(error)"
        }
    }

    /// The selected station ticket, or in the expediter view every ticket of the selected order.
    private func onSelectedTickets(_ op: String, open: Set<TicketState>) throws -> String {
        let targets: [TicketView]
        if layout.view == .expediter {
            guard layout.orders.indices.contains(layout.selected) else { return "no order selected" }
            targets = layout.orders[layout.selected].tickets.filter { open.contains($0.state) }
        } else {
            guard layout.tickets.indices.contains(layout.selected) else { return "no ticket selected" }
            targets = [layout.tickets[layout.selected]]
        }
        guard !targets.isEmpty else { return "nothing to \(op.dropFirst(4)) in that order" }
        var done: [String] = []
        for ticket in targets {
            let result = try call(op, TicketCommand(ticketId: ticket.ticketId), as: TicketView.self)
            done.append("\(result.ticketId) → \(ScreenLayout.label(result.state))")
        }
        return done.joined(separator: ", ")
    }

    /// Recalls the most recently bumped ticket of this view.
    private func recallLast() throws -> String {
        let station: String? = if case .station(let name) = layout.view { name } else { nil }
        let done = try call(Op.kdsTickets, TicketsQuery(cafeId: cafe, station: station, includeDone: true), as: TicketsReply.self).tickets
        guard let last = done.filter({ $0.state == .ready && $0.bumpedAt != nil }).max(by: { $0.bumpedAt! < $1.bumpedAt! }) else {
            return "nothing bumped to recall"
        }
        let result = try call(Op.kdsRecall, TicketCommand(ticketId: last.ticketId), as: TicketView.self)
        return "recalled \(result.ticketId) → \(ScreenLayout.label(result.state))"
    }

    private func toggleRush() throws -> String {
        let order: (id: String, rush: Bool)? = layout.view == .expediter
            ? layout.orders.indices.contains(layout.selected) ? (layout.orders[layout.selected].orderId, layout.orders[layout.selected].rush) : nil
            : layout.tickets.indices.contains(layout.selected) ? (layout.tickets[layout.selected].orderId, layout.tickets[layout.selected].rush) : nil
        guard let order else { return "nothing selected" }
        let result = try call(Op.kdsRush, RushCommand(orderId: order.id, rush: !order.rush), as: ExpediterOrder.self)
        return "order \(result.orderId) \(result.rush ? "rushed" : "back in line")"
    }

    /// 86es (sold out) the first item of the selected ticket at its café, or puts it back, at
    /// order-service as this screen's kitchen.
    private func setAvailability(_ available: Bool) throws -> String {
        guard let menu else { return "no order-service to change the menu at" }
        let ticket: TicketView? = layout.view == .expediter
            ? layout.orders.indices.contains(layout.selected) ? layout.orders[layout.selected].tickets.first : nil
            : layout.tickets.indices.contains(layout.selected) ? layout.tickets[layout.selected] : nil
        guard let ticket, let line = ticket.lines.first, let itemId = line.itemId else { return "no item selected" }
        let request = MenuAvailabilityRequest(cafeId: ticket.cafeId, itemId: itemId, available: available, reason: available ? nil : "86'd on the kitchen screen")
        let reply = try menu(Wire.encode(Request(op: Op.menuAvailabilitySet, body: request)))
        let result = try Wire.decodeReply(reply, body: MenuAvailability.self).get()
        return "\(line.name) \(result.available ? "back on the menu" : "86'd: sold out") at \(result.cafeId)"
    }

    /// Fetches what the current view shows. A kitchen-display that does not answer leaves the
    /// last rows in place under a banner saying so, never an empty screen that looks quiet.
    private func refresh() {
        do {
            let station: String? = if case .station(let name) = layout.view { name } else { nil }
            let all = try call(Op.kdsTickets, TicketsQuery(cafeId: cafe), as: TicketsReply.self)
            layout.views = ScreenLayout.views(stations: all.tickets.map(\.station) + layout.views.compactMap {
                if case .station(let name) = $0 { name } else { nil }
            })
            layout.tickets = station.map { name in all.tickets.filter { $0.station == name } } ?? all.tickets
            layout.link = all.link
            if layout.view == .expediter {
                layout.orders = try call(Op.kdsOrders, OrdersQuery(cafeId: cafe), as: OrdersReply.self).orders
            }
            layout.counts = try call(Op.kdsCounts, CountsQuery(cafeId: cafe, station: station), as: CountsReply.self).counts
            layout.selected = min(layout.selected, max(layout.rowCount - 1, 0))
        } catch {
            layout.link = nil
        }
    }

    private func call<Body: Codable & Sendable, Result: Codable & Sendable>(_ op: String, _ body: Body, as: Result.Type) throws -> Result {
        let reply = try transport(Wire.encode(Request(op: op, body: body)))
        return try Wire.decodeReply(reply, body: Result.self).get()
    }

    private func draw(clear: Bool) {
        var size = winsize()
        let ok = ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 && size.ws_row > 0
        let columns = ok ? Int(size.ws_col) : 100, rows = ok ? Int(size.ws_row) : 30
        // Each line is cleared to its end, so a shorter line never leaves the old one's tail.
        var frame = clear ? "\u{1B}[2J" : ""
        for (index, line) in layout.lines(columns: columns, rows: rows).enumerated() {
            frame += "\u{1B}[\(index + 1);1H\(line)\u{1B}[0m\u{1B}[K"
        }
        write(frame)
    }

    private func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            if n <= 0 { if errno == EAGAIN || errno == EINTR { continue } else { return } }
            offset += n
        }
    }
}

/// Set by SIGWINCH (on a dispatch thread), taken by the screen's tick.
final class ResizeFlag: Sendable {
    let flag = Atomic<Bool>(true)
}
