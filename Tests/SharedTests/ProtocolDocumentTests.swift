import Foundation
import Messages
import Policy
import Testing

/// Keeps `Shared/Messages/PROTOCOL.md` honest: every example decodes with the real types, and every
/// event type, op and error code the code defines is documented.
@Suite("Protocol document")
struct ProtocolDocumentTests {
    /// One fenced ```json block: its info string words after "json", its text, and what precedes it.
    struct Example: CustomStringConvertible {
        let kind: String
        let name: String?
        let json: Data
        let line: Int
        /// The nearest heading above the block and the prose between it (or the previous block) and the block.
        let context: String

        var description: String { "line \(line): json \(kind) \(name ?? "")" }
    }

    /// How one op's request and reply decode.
    struct Contract: Sendable {
        let decodeRequest: @Sendable (Data) throws -> String
        /// Whether the reply is a success, and its error when it is not.
        let decodeReply: @Sendable (Data) throws -> (ok: Bool, error: ServiceError?)
    }

    static func contract<Body: Codable & Sendable, Result: Codable & Sendable>(_ body: Body.Type, _ result: Result.Type) -> Contract {
        Contract(
            decodeRequest: { try Wire.decodeRequest($0, body: Body.self).op },
            decodeReply: { frame in
                let reply = try Wire.decodeReply(frame, body: Result.self)
                if reply.ok { _ = try reply.get() }
                return (reply.ok, reply.error)
            })
    }

    /// The request and reply body type of every op (the table in PROTOCOL.md section 5).
    static let contracts: [String: Contract] = [
        Op.health: contract(Empty.self, HealthStatus.self),
        Op.replay: contract(ReplayRequest.self, ReplayReply.self),
        Op.ingestReport: contract(IngestReport.self, IngestResult.self),
        Op.ingestBatch: contract(IngestBatch.self, IngestBatchResult.self),
        Op.monitorList: contract(Empty.self, MonitorList.self),
        Op.monitorOpen: contract(MonitorOwnership.self, MonitorInfo.self),
        Op.monitorClose: contract(MonitorOwnership.self, MonitorInfo.self),
        Op.monitorAdd: contract(AddCondition.self, MonitorRecord.self),
        Op.monitorRemove: contract(RemoveCondition.self, RemovedCondition.self),
        Op.monitorIdentifiers: contract(MonitorQuery.self, MonitorIdentifiers.self),
        Op.monitorRecord: contract(RecordQuery.self, MonitorRecord.self),
        Op.nearestGet: contract(DeviceQuery.self, NearestAnswer.self),
        Op.locationConfirm: contract(ConfirmLocation.self, LocationConfirmation.self),
        Op.menuGet: contract(MenuRequest.self, MenuReply.self),
        Op.preferenceSet: contract(PreferenceRequest.self, PreferenceView.self),
        Op.preferenceGet: contract(PreferenceRequest.self, PreferenceView.self),
        Op.windowsList: contract(WindowsRequest.self, WindowsReply.self),
        Op.windowReserve: contract(ReserveRequest.self, ReservationView.self),
        Op.orderPlace: contract(PlaceOrderRequest.self, OrderView.self),
        Op.orderGet: contract(OrderQuery.self, OrderView.self),
        Op.orderCancel: contract(CancelOrderRequest.self, OrderView.self),
        Op.orderPickup: contract(OrderQuery.self, OrderView.self),
        Op.orderHistory: contract(OrderQuery.self, OrderHistory.self),
        Op.orderClaim: contract(ClaimOrdersRequest.self, ClaimOrdersReply.self),
        Op.kdsTickets: contract(TicketsQuery.self, TicketsReply.self),
        Op.kdsStart: contract(TicketCommand.self, TicketView.self),
        Op.kdsBump: contract(TicketCommand.self, TicketView.self),
        Op.kdsRecall: contract(TicketCommand.self, TicketView.self),
        Op.kdsRush: contract(RushCommand.self, ExpediterOrder.self),
        Op.kdsOrders: contract(OrdersQuery.self, OrdersReply.self),
        Op.kdsCounts: contract(CountsQuery.self, CountsReply.self),
        Op.deviceRegister: contract(RegisterDevice.self, Registration.self),
        Op.inboxList: contract(InboxQuery.self, InboxReply.self),
        Op.reminderSet: contract(SetReminder.self, RegionReminder.self),
        Op.reminderList: contract(ReminderQuery.self, ReminderList.self),
        Op.reminderCancel: contract(CancelReminder.self, RegionReminder.self),
        Op.menuAvailabilitySet: contract(MenuAvailabilityRequest.self, MenuAvailability.self),
        Op.catalogReload: contract(CatalogReloadRequest.self, CatalogReloadReply.self),
        Op.tokenIssue: contract(TokenIssueRequest.self, TokenIssued.self),
        Op.tokenList: contract(TokenListRequest.self, TokenList.self),
        Op.tokenRevoke: contract(TokenRevokeRequest.self, TokenSession.self),
        Op.backupStart: contract(BackupStartRequest.self, BackupStatus.self),
        Op.backupRead: contract(BackupReadRequest.self, BackupChunk.self),
    ]

    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()   // SharedTests
        .deletingLastPathComponent()   // Tests
        .deletingLastPathComponent()

    static func source(_ path: String) throws -> String {
        try String(contentsOf: repositoryRoot.appendingPathComponent(path), encoding: .utf8)
    }

    static func document() throws -> String { try source("Shared/Messages/PROTOCOL.md") }

    /// Every ```json block of the document, in order.
    static func examples() throws -> [Example] {
        var examples: [Example] = []
        var heading = ""
        var prose: [String] = []
        var open: (kind: String, name: String?, line: Int, context: String)?
        var body: [String] = []
        for (index, line) in try document().components(separatedBy: "\n").enumerated() {
            if let block = open {
                if line == "```" {
                    examples.append(Example(kind: block.kind, name: block.name, json: Data(body.joined(separator: "\n").utf8), line: block.line, context: block.context))
                    open = nil
                    body = []
                    prose = []
                } else {
                    body.append(line)
                }
                continue
            }
            if line.hasPrefix("```json") {
                let words = line.dropFirst(3).split(separator: " ").map(String.init)
                open = (words.count > 1 ? words[1] : "", words.count > 2 ? words[2] : nil, index + 1, ([heading] + prose).joined(separator: "\n"))
            } else if line.hasPrefix("#") {
                heading = line
                prose = []
            } else {
                prose.append(line)
            }
        }
        #expect(open == nil, "an unterminated ```json block")
        return examples
    }

    /// Names declared as `static let x = "name"` or `static let x: ErrorCode = "name"` in a source file.
    static func declaredStrings(in path: String, type: String = "") throws -> [String] {
        let pattern = try NSRegularExpression(pattern: "static let \\w+\(type.isEmpty ? "" : ": " + type) = \"([^\"]+)\"")
        let text = try source(path)
        return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    @Test("the document has marked examples, and only the three known kinds")
    func blocksAreMarked() throws {
        let examples = try Self.examples()
        #expect(examples.count >= EventType.allCases.count + 2 * Self.contracts.count)
        for example in examples {
            #expect(["envelope", "request", "reply"].contains(example.kind), "\(example): unknown block kind")
            #expect((example.kind == "envelope") == (example.name == nil), "\(example): envelope blocks carry no name, request/reply blocks an op")
        }
    }

    @Test("every envelope example decodes strictly, names its type above it and sits on a matching topic")
    func envelopes() throws {
        for example in try Self.examples() where example.kind == "envelope" {
            let envelope: Envelope
            do {
                envelope = try Wire.decodeEnvelope(example.json)
            } catch {
                Issue.record("\(example): \(error)")
                continue
            }
            #expect(try Wire.decodeEnvelope(Wire.encode(envelope)) == envelope, "\(example)")
            let type = envelope.type.rawValue
            let named = example.context.contains(type)
            #expect(named, "\(example): the heading or text above must name \(type)")
            let topicLine = example.context.components(separatedBy: "\n").last { $0.hasPrefix("Topic: `") }
            guard let topicLine, let topic = topicLine.split(separator: "`").dropFirst().first.map(String.init) else {
                Issue.record("\(example): no \"Topic: `…`\" line above the block")
                continue
            }
            #expect(topic.hasSuffix(".") && !topic.contains(".."), "\(example): topic \(topic)")
            #expect(topic.split(separator: ".").first == type.split(separator: ".").first, "\(example): \(type) does not travel on \(topic)")
            if ["order", "kitchen", "notify", "region"].contains(type.split(separator: ".").first.map(String.init) ?? "") {
                #expect(topic.hasPrefix(type + "."), "\(example): \(type) travels on \(type).…, not \(topic)")
            }
        }
    }

    @Test("every request example decodes with its op's body type")
    func requests() throws {
        for example in try Self.examples() where example.kind == "request" {
            let op = try #require(example.name)
            guard let contract = Self.contracts[op] else {
                Issue.record("\(example): no such op \(op)")
                continue
            }
            do {
                #expect(try contract.decodeRequest(example.json) == op, "\(example): the op field differs from the info string")
            } catch {
                Issue.record("\(example): \(error)")
            }
            let named = example.context.contains(op)
            #expect(named, "\(example): the heading or text above must name \(op)")
        }
    }

    @Test("every reply example decodes with its op's result type; error codes are real")
    func replies() throws {
        let codes = Set(try Self.declaredStrings(in: "Shared/Messages/ServiceError.swift", type: "ErrorCode"))
        for example in try Self.examples() where example.kind == "reply" {
            let op = try #require(example.name)
            guard let contract = Self.contracts[op] else {
                Issue.record("\(example): no such op \(op)")
                continue
            }
            do {
                let reply = try contract.decodeReply(example.json)
                if let error = reply.error {
                    #expect(!reply.ok, "\(example)")
                    #expect(codes.contains(error.code), "\(example): \(error.code) is not an ErrorCode")
                }
            } catch {
                Issue.record("\(example): \(error)")
            }
            let named = example.context.contains(op)
            #expect(named, "\(example): the heading or text above must name \(op)")
        }
    }

    @Test("every event type has an envelope example")
    func everyEventType() throws {
        let documented = Set(try Self.examples().filter { $0.kind == "envelope" }.compactMap { try? Wire.decodeEnvelope($0.json).type })
        let missing = EventType.allCases.filter { !documented.contains($0) }.map(\.rawValue)
        #expect(missing == [], "PROTOCOL.md has no envelope example of these event types")
    }

    @Test("every op has a request and a success reply example, and a body-type contract here")
    func everyOp() throws {
        let ops = try Self.declaredStrings(in: "Shared/Messages/Requests/CommonOps.swift")
        #expect(ops.count >= 18)
        let examples = try Self.examples()
        for op in ops {
            guard let contract = Self.contracts[op] else {
                Issue.record("no request/reply types for op \(op) in ProtocolDocumentTests.contracts")
                continue
            }
            let hasRequest = examples.contains { $0.kind == "request" && $0.name == op }
            #expect(hasRequest, "PROTOCOL.md has no request example of \(op)")
            let hasSuccess = examples.contains { $0.kind == "reply" && $0.name == op && (try? contract.decodeReply($0.json).ok) == true }
            #expect(hasSuccess, "PROTOCOL.md has no success reply example of \(op)")
            let inTable = try Self.document().contains("| `\(op)` |")
            #expect(inTable, "the op table lacks \(op)")
        }
        #expect(Set(Self.contracts.keys) == Set(ops), "contracts for ops that do not exist")
    }

    @Test("the op roles table is OpAccess.rules, every op is in it, and no op is open to no role")
    func opRolesTable() throws {
        let document = try Self.document()
        let start = try #require(document.range(of: "### Who may call each op"))
        var documented: [String: (roles: Set<String>, viaEdge: [String], scope: String)] = [:]
        let section = document[start.upperBound...].components(separatedBy: "\n").prefix { !$0.hasPrefix("#") }
        func names(_ cell: String) -> [String] {
            cell == "—" ? [] : cell.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        for line in section where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 4 else { Issue.record("row \(line) has \(cells.count) cells"); continue }
            documented[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = (Set(names(cells[1])), names(cells[2]), cells[3])
        }
        let ops = try Self.declaredStrings(in: "Shared/Messages/Requests/CommonOps.swift")
        #expect(Set(documented.keys) == Set(ops), "the roles table and the ops differ")
        #expect(Set(OpAccess.rules.keys) == Set(ops), "OpAccess.rules and the ops differ")
        for (op, rule) in OpAccess.rules {
            #expect(!rule.roles.isEmpty, "\(op) is open to no role")
            #expect(documented[op]?.roles == Set(rule.roles.map(\.rawValue)), "\(op): the document says \(documented[op]?.roles ?? []), the code \(rule.roles)")
            #expect(documented[op]?.scope == rule.scope, "\(op): scope text differs")
            #expect(documented[op]?.viaEdge == OpAccess.viaEdge(op).map(\.rawValue), "\(op): whom the edge may act for differs")
        }
    }

    @Test("every error code is listed, and every topic builder appears in the topic table")
    func errorCodesAndTopics() throws {
        let document = try Self.document()
        let codes = try Self.declaredStrings(in: "Shared/Messages/ServiceError.swift", type: "ErrorCode")
        #expect(codes.count >= 30)
        let unlisted = codes.filter { !document.contains("| `\($0)` |") }
        #expect(unlisted == [], "the error table lacks these codes")
        let topicSource = try Self.source("Shared/Messages/Topic.swift")
        let builders = try NSRegularExpression(pattern: "public static (?:func|let) (\\w+)")
            .matches(in: topicSource, range: NSRange(topicSource.startIndex..., in: topicSource))
            .compactMap { Range($0.range(at: 1), in: topicSource).map { String(topicSource[$0]) } }
            .filter { $0 != "make" && $0 != "shard" }
        #expect(builders.count >= 12)
        let absent = builders.filter { !document.contains("`\($0)") }
        #expect(absent == [], "the topic table lacks these Topic builders")
    }
}
