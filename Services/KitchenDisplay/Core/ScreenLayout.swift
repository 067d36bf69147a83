import Messages

/// What the kitchen screen shows, as text: pure, so a test reads exactly what a chef would.
/// The terminal shell draws these lines; ANSI colours are added only when `colour` is true.
public struct ScreenLayout: Sendable {
    /// One view of the screen: every station's tickets, one station's, or the expediter's orders.
    public enum View: Equatable, Sendable {
        case allStations
        case station(String)
        case expediter

        public var title: String {
            switch self {
            case .allStations: "ALL"
            case .station(let name): name
            case .expediter: "EXPEDITER"
            }
        }
    }

    public var views: [View]
    public var view: View
    public var tickets: [TicketView]
    public var orders: [ExpediterOrder]
    public var counts: [ItemCount]
    /// Nil when the kitchen-display process itself does not answer.
    public var link: KitchenLink?
    /// What the last key did, or why it was refused.
    public var status: String
    public var selected: Int
    public var colour: Bool

    public init(views: [View], view: View, tickets: [TicketView], orders: [ExpediterOrder], counts: [ItemCount], link: KitchenLink?,
                status: String, selected: Int, colour: Bool = true) {
        self.views = views
        self.view = view
        self.tickets = tickets
        self.orders = orders
        self.counts = counts
        self.link = link
        self.status = status
        self.selected = selected
        self.colour = colour
    }

    /// The views for the stations seen: all, each station, the expediter.
    public static func views(stations: [String]) -> [View] {
        [.allStations] + Set(stations).sorted().map(View.station) + [.expediter]
    }

    /// How many rows the current view lists (the selection moves among them).
    public var rowCount: Int { view == .expediter ? orders.count : tickets.count }

    /// The screen as `rows` lines of at most `columns` characters.
    public func lines(columns: Int, rows: Int) -> [String] {
        let width = max(columns, 20)
        var out: [String] = []
        let tabs = views.map { $0 == view ? "[\($0.title)]" : " \($0.title) " }.joined(separator: " ")
        out.append(paint(fit("KITCHEN  " + tabs, width), "1;7"))
        switch link {
        case nil:
            out.append(paint(fit("!! KITCHEN-DISPLAY NOT ANSWERING: this screen is stale", width), "1;41;97"))
        case let link? where !link.message.isEmpty:
            let severe = link.bus == .down || link.orderService == .down
            out.append(paint(fit("!! " + link.message, width), severe ? "1;41;97" : "30;43"))
        default:
            out.append(fit("links: bus up, order-service up", width))
        }
        let body = view == .expediter ? orderRows(width) : ticketRows(width)
        let footer = footerLines(width)
        let room = max(rows - out.count - footer.count, 1)
        if body.isEmpty {
            out.append(fit(link.map { $0.bus == .up && $0.orderService == .up } == true ? "no open tickets" : "no tickets shown: see the link line above", width))
        } else {
            // Keep the selected row in sight.
            let first = max(0, min(selected - room + 1, body.count - room))
            out.append(contentsOf: body[first..<min(body.count, first + room)])
        }
        while out.count < rows - footer.count { out.append("") }
        out.append(contentsOf: footer)
        return Array(out.prefix(max(rows, 1)))
    }

    private func ticketRows(_ width: Int) -> [String] {
        tickets.enumerated().map { index, ticket in
            let marker = index == selected ? ">" : " "
            let items = ticket.lines.map { line in
                "\(line.quantity)x \(line.name)" + (line.modifiers.isEmpty ? "" : " (\(line.modifiers.joined(separator: ", ")))")
            }.joined(separator: ", ")
            let text = "\(marker) \(short(ticket.orderId)) \(pad(ticket.station, 9)) \(pad(Self.label(ticket), 9)) "
                + Self.flags(rush: ticket.rush, overdue: ticket.overdue == true, here: ticket.customerHere, arriving: ticket.arriving == true)
                + "\(Self.clock(ticket.ageSeconds ?? 0))  \(items)"
            return paint(fit(text, width), style(ticket.state, ticket.colour, selected: index == selected))
        }
    }

    private func orderRows(_ width: Int) -> [String] {
        orders.enumerated().map { index, order in
            let marker = index == selected ? ">" : " "
            let stations = order.tickets.map { "\($0.station):\(Self.label($0.state))" }.joined(separator: " ")
            let text = "\(marker) \(short(order.orderId)) \(pad(Self.label(order.state), 9)) "
                + Self.flags(rush: order.rush, overdue: order.overdue == true, here: order.customerHere, arriving: order.arriving == true)
                + "\(Self.clock(order.ageSeconds))  \(stations)"
            return paint(fit(text, width), style(order.state, order.colour, selected: index == selected))
        }
    }

    private func footerLines(_ width: Int) -> [String] {
        let allDay = counts.isEmpty ? "all day: -" : "all day: " + counts.map { "\($0.quantity) \($0.name)" }.joined(separator: ", ")
        return [
            fit(allDay, width),
            fit(status, width),
            paint(fit("keys: ←/→ view  ↑/↓ move  s start  b bump  r recall last bump  ! rush  8 86 item  9 back on  q quit", width), "2"),
        ]
    }

    /// A ticket's state as the screen prints it: a new one held until its fire time counts down
    /// (`HOLD 3:20`), then `FIRE`; otherwise its state.
    public static func label(_ ticket: TicketView) -> String {
        switch ticket.firing {
        case .hold?: "HOLD \(clock(ticket.holdSeconds ?? 0))"
        case .fire?: "FIRE"
        case nil: label(ticket.state)
        }
    }

    /// The marks before the age: rush, overdue, customer here (or on the way).
    static func flags(rush: Bool, overdue: Bool, here: Bool, arriving: Bool) -> String {
        (rush ? "RUSH " : "") + (overdue ? "OVERDUE " : "") + (here ? "HERE " : arriving ? "ARRIVING " : "")
    }

    /// The state as the screen prints it; a cancelled order's mark stands out.
    public static func label(_ state: TicketState) -> String {
        switch state {
        case .new: "NEW"
        case .inProgress: "COOKING"
        case .ready: "BUMPED"
        case .pickedUp: "PICKED UP"
        case .cancelled: "CANCELLED"
        case .noShow: "NO-SHOW"
        }
    }

    /// "m:ss".
    public static func clock(_ seconds: Int) -> String {
        let s = max(seconds, 0)
        let tail = s % 60 < 10 ? "0\(s % 60)" : "\(s % 60)"
        return "\(s / 60):\(tail)"
    }

    private func style(_ state: TicketState, _ age: AgeColour?, selected: Bool) -> String {
        var codes: [String] = []
        if state == .cancelled { codes.append("9;31") }
        else {
            switch age {
            case .red: codes.append("31")
            case .yellow: codes.append("33")
            default: codes.append("32")
            }
        }
        if selected { codes.append("7") }
        return codes.joined(separator: ";")
    }

    /// The end of an id: order ids share their prefix ("ord_"), their last characters tell them apart.
    private func short(_ id: String) -> String { "#" + String(id.suffix(6)) }

    private func pad(_ text: String, _ count: Int) -> String { text.count >= count ? text : text + String(repeating: " ", count: count - text.count) }

    private func fit(_ text: String, _ width: Int) -> String { text.count <= width ? text : String(text.prefix(width - 1)) + "…" }

    private func paint(_ text: String, _ sgr: String) -> String { colour ? "\u{1B}[\(sgr)m\(text)\u{1B}[0m" : text }
}
