import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// Before the clock starts: every phone reports its status, ordering phones register for
/// notifications, the pickup windows are read, and the bus subscription is live.
extension LoadRunner {
    /// Every phone's status (authorization first, as a phone must), in batches per shard; all must be accepted.
    func sendStatuses(fleet: PhoneFleet, ingest: [PipelinedClient<IngestStep>]) throws {
        var byShard = Array(repeating: [IngestReport](), count: ingest.count)
        for index in fleet.phones.indices {
            byShard[fleet.phones[index].shard].append(IngestReport(deviceId: fleet.phones[index].id, status: fleet.status(of: index)))
        }
        var problems: [String] = []
        for (shard, reports) in byShard.enumerated() {
            for chunk in stride(from: 0, to: reports.count, by: 500).map({ Array(reports[$0..<min($0 + 500, reports.count)]) }) {
                try ingest[shard].send(Wire.encode(Request(op: Op.ingestBatch, body: IngestBatch(reports: chunk))), context: .status(reports: chunk.count), now: 0)
            }
        }
        try awaitReplies(ingest, what: "device status") { step, reply in
            guard case .status(let expected) = step else { return }
            do {
                let result = try Wire.decodeReply(reply, body: IngestBatchResult.self).get()
                if result.accepted != expected {
                    problems.append(result.results.compactMap { $0.error?.description }.first ?? "\(expected - result.accepted) statuses refused")
                }
            } catch {
                problems.append("\(error)")
            }
        }
        if let first = problems.first { throw ServiceError(code: "loadtest.setup", message: "beacon-ingest refused phone status: \(first)") }
    }

    /// Registers the ordering phones with notification-service, so "ready" reaches them; in
    /// deployed mode each phone registers itself, with its own key.
    func register(phones count: Int, fleet: PhoneFleet) throws {
        guard count > 0 else { return }
        let clients: [PipelinedClient<Int>] = try (security.isDeployed ? Array(0..<count) : [0]).map {
            try security.pipelined("notification-service", context: context, peer: settings.notify, defaultServer: "notification-service",
                                   as: security.isDeployed ? OrderClients.phoneKey(runID: runID, phone: $0) : nil)
        }
        defer { clients.forEach { $0.close() } }
        for index in 0..<count {
            let body = RegisterDevice(deviceId: fleet.phones[index].id, userId: OrderDriver.user(runID: runID, phone: index), channel: "bus",
                                      language: "en", locale: "en_US", authorization: .authorized)
            try clients[index % clients.count].send(Wire.encode(Request(op: Op.deviceRegister, body: body)), context: index, now: 0)
        }
        var problems: [String] = []
        try awaitReplies(clients, what: "device registration") { _, reply in
            if case .failure(let error) = Result(catching: { try Wire.decodeReply(reply, body: Registration.self).get() }) { problems.append("\(error)") }
        }
        if let first = problems.first { throw ServiceError(code: "loadtest.setup", message: "notification-service refused a registration: \(first)") }
    }

    /// Deployed mode: waits until every process the minted keys talk to has read them (one
    /// registry change, so one key per process tells).
    func awaitMintedKeys(phones: Int, fleet: PhoneFleet) throws {
        guard security.isDeployed else { return }
        for peer in settings.ingest {
            try security.awaitAccepted(peer: peer, defaultServer: "beacon-ingest", as: gatewayKey, op: Op.ingestBatch, body: IngestBatch(reports: []), context: context)
        }
        guard phones > 0, let cafe = catalog.cafes.first else { return }
        let phone = OrderClients.phoneKey(runID: runID, phone: 0)
        try security.awaitAccepted(peer: settings.orders, defaultServer: "order-service", as: phone, op: Op.preferenceGet,
                                   body: PreferenceRequest(userId: OrderDriver.user(runID: runID, phone: 0)), context: context)
        try security.awaitAccepted(peer: settings.notify, defaultServer: "notification-service", as: phone, op: Op.reminderList,
                                   body: ReminderQuery(deviceId: fleet.phones[0].id, includeDone: false), context: context)
        try security.awaitAccepted(peer: settings.kitchen, defaultServer: "kitchen-display", as: OrderClients.kitchenKey(runID: runID, cafe: 0), op: Op.kdsCounts,
                                   body: CountsQuery(cafeId: cafe.id, station: nil), context: context)
    }

    /// The next pickup windows of every café with places left.
    func pickupWindows() throws -> [String: [OrderDriver.Window]] {
        let client = try security.client(context: context, peer: settings.orders, defaultServer: "order-service", as: nil, timeoutMilliseconds: Int32(settings.timeout * 1000))
        defer { client.close() }
        var windows: [String: [OrderDriver.Window]] = [:]
        for cafe in catalog.cafes {
            guard let reply = try? client.call(Op.windowsList, WindowsRequest(cafeId: cafe.id, locale: "en_US", count: 96), as: WindowsReply.self) else { continue }
            // A window starting within a minute may begin before the order is placed.
            let soon = Timestamp(Date()).adding(seconds: 60)
            let open = reply.windows.filter { $0.remaining > 0 && $0.start > soon }.map { OrderDriver.Window(start: $0.start, remaining: $0.remaining) }
            if !open.isEmpty { windows[cafe.id] = open }
        }
        if windows.isEmpty { throw ServiceError(code: "loadtest.setup", message: "no café has a free pickup window for orders") }
        return windows
    }

    /// Waits until a heartbeat arrives: the subscription has reached the publishers through the bus.
    func awaitSubscription(_ sub: Socket) throws {
        let deadline = Reactor.monotonic() + 5
        while Reactor.monotonic() < deadline {
            if let frames = try sub.receiveMultipart(timeoutMilliseconds: 100), frames.first?.starts(with: Array("heartbeat.".utf8)) == true { return }
        }
        throw ServiceError(code: "loadtest.setup", message: "no heartbeat on \(settings.busSub) within 5 s: is the bus running?")
    }

    /// Polls `clients` until every request has its reply, or throws after the timeout.
    func awaitReplies<C>(_ clients: [PipelinedClient<C>], what: String, _ handle: (C, Data) -> Void) throws {
        var poller = Poller()
        for client in clients { poller.register(client.socket) }
        let deadline = Reactor.monotonic() + max(settings.timeout, 10)
        while clients.contains(where: { $0.pendingCount > 0 }) {
            guard Reactor.monotonic() < deadline else {
                throw ServiceError(code: "loadtest.setup", message: "\(what): no reply from \(clients.map(\.endpoint).joined(separator: ", ")) in time")
            }
            for index in try poller.poll(timeoutMilliseconds: 50) {
                try clients[index].receive(now: 0) { context, reply, _ in handle(context, reply) }
            }
            for client in clients { try client.flushQueue(now: 0) }
        }
    }
}
