import Foundation
import Messages
import Policy
import SQLite
import ServiceRuntime
import Testing

@Suite("Request router")
struct RequestRouterTests {
    struct Greeting: Codable, Sendable, Equatable {
        var name: String
        var count: Int
    }

    struct Greeted: Codable, Sendable, Equatable {
        var text: String
    }

    struct Unexpected: Error {}

    func router(maxRequestBytes: Int = 1_024, logger: Logger = silentLogger) -> RequestRouter {
        let router = RequestRouter(logger: logger, maxRequestBytes: maxRequestBytes)
        router.on("greet", Greeting.self) { body in Greeted(text: String(repeating: "hello \(body.name) ", count: body.count)) }
        router.on("reserve", Greeting.self) { _ -> Greeted in throw ServiceError(.windowFull, "the 9:40 window is full; next free 9:50") }
        router.on("crash", Greeting.self) { _ -> Greeted in throw Unexpected() }
        router.on("sql", Greeting.self) { _ -> Greeted in throw SQLiteError(code: 19, message: "secret schema detail", context: "INSERT …") }
        router.on(Op.health, Empty.self) { _ in Greeted(text: "ok") }
        return router
    }

    func errorOf(_ reply: Data) throws -> ServiceError {
        let decoded = try Wire.decodeReply(reply, body: Empty.self)
        #expect(decoded.ok == false)
        #expect(decoded.body == nil)
        return try #require(decoded.error)
    }

    @Test("a valid request gets a typed success reply")
    func success() throws {
        let reply = router().handle(Wire.encode(Request(op: "greet", id: "r1", body: Greeting(name: "Ada", count: 2))))
        let decoded = try Wire.decodeReply(reply, body: Greeted.self)
        #expect(decoded.ok)
        #expect(try decoded.get() == Greeted(text: "hello Ada hello Ada "))
    }

    @Test("an op without parameters may leave the body and id out")
    func emptyBody() throws {
        let reply = router().handle(frame("{\"op\":\"health\"}"))
        #expect(try Wire.decodeReply(reply, body: Greeted.self).get() == Greeted(text: "ok"))
    }

    @Test("a null body is read as absent: an op without parameters answers it; an op with parameters names the field")
    func nullBody() throws {
        let reply = router().handle(frame("{\"op\":\"health\",\"body\":null}"))
        #expect(try Wire.decodeReply(reply, body: Greeted.self).get() == Greeted(text: "ok"))
        let refused = try Wire.decodeReply(router().handle(frame("{\"op\":\"greet\",\"body\":null}")), body: Greeted.self).error
        #expect(refused?.code == "request.invalidField", "\(String(describing: refused))")
        // Only null stands for absent: a string body is still no object.
        let string = try Wire.decodeReply(router().handle(frame("{\"op\":\"health\",\"body\":\"x\"}")), body: Greeted.self).error
        #expect(string?.code == "request.invalidField", "\(String(describing: string))")
    }

    @Test("every refusal is an error reply with a stable code", arguments: [
        ("{\"op\":\"teleport\",\"id\":\"1\",\"body\":{}}", "request.unknownOp", "unknown op \"teleport\"; this service answers: crash, greet, health, reserve, sql"),
        ("{nope", "request.malformed", nil),
        ("", "request.malformed", nil),
        ("[1,2]", "request.malformed", nil),
        ("{\"id\":\"1\",\"body\":{}}", "request.malformed", "missing field op"),
        ("{\"op\":7}", "request.malformed", "field op must be a string"),
        ("{\"op\":\"greet\",\"id\":\"1\"}", "request.invalidField", "missing field body"),
        ("{\"op\":\"greet\",\"id\":\"1\",\"body\":{\"count\":1}}", "request.invalidField", "missing field body.name"),
        ("{\"op\":\"greet\",\"id\":\"1\",\"body\":{\"name\":\"Ada\",\"count\":\"two\"}}", "request.invalidField", "field body.count must be an integer"),
        ("{\"op\":\"greet\",\"id\":\"1\",\"body\":{\"name\":null,\"count\":1}}", "request.invalidField", "field body.name must be a string, not null"),
        ("{\"op\":\"greet\",\"id\":\"1\",\"body\":{\"name\":\"Ada\",\"name\":\"Bob\",\"count\":1}}", "request.malformed", "field body.name is given more than once"),
        ("{\"op\":\"greet\",\"id\":\"1\",\"body\":{\"name\":\"Ada\",\"count\":1.5}}", "request.invalidField",
         "field body.count must be a number of its type (a whole number for an integer, not negative for an unsigned one, in range)"),
        ("{\"op\":\"reserve\",\"id\":\"1\",\"body\":{\"name\":\"Ada\",\"count\":1}}", "order.windowFull", "the 9:40 window is full; next free 9:50"),
        ("{\"op\":\"crash\",\"id\":\"1\",\"body\":{\"name\":\"Ada\",\"count\":1}}", "internal.error", "the service could not complete crash; nothing was changed"),
        ("{\"op\":\"sql\",\"id\":\"1\",\"body\":{\"name\":\"Ada\",\"count\":1}}", "internal.error", "the service could not complete sql; nothing was changed"),
    ] as [(String, String, String?)])
    func refusals(request: String, code: String, message: String?) throws {
        let error = try errorOf(router().handle(frame(request)))
        #expect(error.code == code)
        if let message { #expect(error.message == message) } else { #expect(!error.message.isEmpty) }
    }

    @Test("a request over the size limit is refused unread, whatever it holds")
    func oversize() throws {
        let router = router(maxRequestBytes: 64)
        let padding = String(repeating: "x", count: 100)
        let error = try errorOf(router.handle(frame("{\"op\":\"greet\",\"id\":\"1\",\"body\":{\"name\":\"\(padding)\",\"count\":1}}")))
        #expect(error.code == "request.tooLarge")
        #expect(error.message.contains("exceeds the limit of 64"))
        #expect(try errorOf(router.handle(Data(repeating: 0xFF, count: 65))).code == "request.tooLarge")
        router.maxRequestBytes = 4_096
        #expect(try Wire.decodeReply(router.handle(frame("{\"op\":\"greet\",\"id\":\"1\",\"body\":{\"name\":\"\(padding)\",\"count\":1}}")), body: Greeted.self).ok)
    }

    @Test("an unexpected error is logged with its detail but the reply does not leak it")
    func internalErrorLogged() throws {
        let sink = CapturingSink()
        let router = router(logger: sink.logger())
        let reply = router.handle(frame("{\"op\":\"sql\",\"id\":\"1\",\"body\":{\"name\":\"Ada\",\"count\":1}}"))
        #expect(!reply.utf8Text.contains("secret schema detail"))
        #expect(sink.lines.contains { $0.contains("secret schema detail") && $0.contains("\"level\":\"error\"") })
    }

    @Test("refused requests are logged once per op and role, then summarized every 10 s: a phone calling replay in a loop writes one line, not one per call")
    func refusalsSummarized() throws {
        let sink = CapturingSink()
        let router = router(logger: sink.logger())
        let phones = (0..<3).map { Caller(principal: Principal(name: "phone-\($0)", role: .phone, publicKey: "", deviceId: "D\($0)", userId: "U\($0)")) }
        for i in 0..<60 {
            let reply = router.handle(frame(#"{"op":"greet","id":"1","body":{"name":"Ada","count":1}}"#), caller: phones[i % 3])
            #expect(try errorOf(reply).code == "auth.forbidden")
        }
        #expect(router.refusals == 60)
        let refused = sink.lines.filter { $0.contains("request refused") || $0.contains("requests refused") }
        #expect(refused.count == 1 && refused[0].contains("phone-0") && refused[0].contains("\"level\":\"warning\""), "\(refused)")
    }

    @Test("raw handlers build their own reply bytes")
    func rawHandler() throws {
        let router = RequestRouter(logger: silentLogger)
        router.onRaw(Op.replay) { _ in frame("{\"ok\":true,\"body\":{\"stream\":\"order\",\"lastSeq\":0,\"events\":[]}}") }
        let reply = try Wire.decodeReply(router.handle(frame("{\"op\":\"replay\",\"id\":\"1\",\"body\":{\"stream\":\"order\",\"fromSeq\":1}}")), body: ReplayReply.self)
        #expect(try reply.get() == ReplayReply(stream: "order", lastSeq: 0, events: []))
        #expect(router.ops == ["replay"])
    }

    @Test("a failure reply turns into the ServiceError it carries")
    func replyGet() throws {
        let failure = Reply<Greeted>.failure(ServiceError(.unknownOrder, "no order ord-1"))
        let decoded = try Wire.decodeReply(Wire.encode(failure), body: Greeted.self)
        #expect(throws: ServiceError(code: "order.unknown", message: "no order ord-1")) { try decoded.get() }
        let empty = try Wire.decodeReply(frame("{\"ok\":true}"), body: Greeted.self)
        #expect(throws: ServiceError.self) { try empty.get() }
    }

    // MARK: One pass for a request whose op comes last

    @Test("the op a frame names first or last (as sorted keys write it) is read from its head or tail; anything else is no hint", arguments: [
        ("{\"body\":{\"reports\":[]},\"id\":\"r1\",\"op\":\"ingest.batch\"}", "ingest.batch"),
        ("{\"op\":\"health\"}", "health"),
        ("{\"body\":{},\"op\":\"" + String(repeating: "o", count: 64) + "\"}", String(repeating: "o", count: 64)),
        ("{\"body\":{},\"op\":\"" + String(repeating: "o", count: 65) + "\"}", nil),
        ("{\"op\":\"ingest.batch\",\"body\":{}}", "ingest.batch"),
        ("{\"op\":\"" + String(repeating: "o", count: 64) + "\",\"body\":{}}", String(repeating: "o", count: 64)),
        ("{\"op\":\"" + String(repeating: "o", count: 65) + "\",\"body\":{}}", nil),
        ("{\"op\":\"ingest.batch\" ,\"body\":{}}", nil),
        ("{ \"op\":\"ingest.batch\",\"body\":{}}", nil),
        ("{\"op\":\"a\\\"b\",\"body\":{}}", nil),
        ("{\"op\":\"ingest.batch\"", nil),
        ("{\"id\":\"1\",\"op\":\"ingest.batch\",\"body\":{}}", nil),
        ("{\"body\":{},\"op\":\"ingest.batch\" }", nil),
        ("{\"body\":{},\"op\":\"\"}", nil),
        ("{\"body\":{},\"op\":\"a\\\"b\"}", nil),
        ("{\"body\":{},\"op\":\"caf\u{e9}\"}", nil),
        ("{\"body\":{\"op\":\"ingest.batch\"}}", nil),
        ("{\"body\":{},\"x\":\"\\\"op\\\":\\\"ingest.batch\"}", nil),
        ("{\"body\":{},\"hop\":\"ingest.batch\"}", nil),
        ("\"op\":\"ingest.batch\"}", nil),
        ("", nil),
    ] as [(String, String?)])
    func namedOp(text: String, op: String?) {
        #expect(Wire.namedOp(frame(text)) == op, "\(text)")
    }

    static func batchRequest(_ devices: [String]) -> Request<IngestBatch> {
        let at = Timestamp(milliseconds: 1_790_000_000_000)
        return Request(op: Op.ingestBatch, id: "gw-1", body: IngestBatch(reports: devices.map {
            IngestReport(deviceId: $0, sightings: [RangingReport(uuid: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", major: 1, minor: 2, rssi: -60, measuredPower: -59,
                                                                 timestamp: at, proximity: .near, accuracy: 1.5)])
        }))
    }

    /// A router answering `ingest.batch` (a body with a hand-written reader) with what it was given.
    func batchRouter() -> (RequestRouter, () -> [IngestBatch]) {
        let router = RequestRouter(logger: silentLogger, maxRequestBytes: 4_096)
        nonisolated(unsafe) var seen: [IngestBatch] = []
        router.on(Op.ingestBatch, IngestBatch.self) { batch in
            seen.append(batch)
            return Greeted(text: batch.reports.compactMap(\.deviceId).joined(separator: ","))
        }
        router.on("greet", Greeting.self) { body in Greeted(text: body.name) }
        return (router, { seen })
    }

    @Test("a request written with sorted keys is read in one pass, and answered as the two passes answer it")
    func onePassAgrees() throws {
        let (router, seen) = batchRouter()
        let request = Self.batchRequest(["phone-1", "phone-2"])
        let sorted = Wire.encode(request)
        #expect(Wire.namedOp(sorted) == Op.ingestBatch)
        let body = String(decoding: Wire.encode(request.body), as: UTF8.self)
        // `op` first, as a hand-written client puts it: one pass too.
        let opFirst = frame("{\"op\":\"ingest.batch\",\"id\":\"gw-1\",\"body\":" + body + "}")
        // `op` in the middle: no hint, so the head is read apart from the body.
        let opBetween = frame("{\"id\":\"gw-1\",\"op\":\"ingest.batch\",\"body\":" + body + "}")
        let one = router.handle(sorted)
        #expect(router.onePassReads == 1)
        #expect(router.handle(opFirst) == one)
        #expect(router.onePassReads == 2)
        #expect(router.handle(opBetween) == one)
        #expect(router.onePassReads == 2)
        #expect(try Wire.decodeReply(one, body: Greeted.self).get() == Greeted(text: "phone-1,phone-2"))
        #expect(seen() == [request.body, request.body, request.body])
        // A body without a hand-written reader is read in two passes, whatever its keys' order.
        _ = router.handle(Wire.encode(Request(op: "greet", id: "g", body: Greeting(name: "Ada", count: 1))))
        #expect(router.onePassReads == 2)
    }

    @Test("a frame the one pass does not take is answered by the two passes, which word its refusal", arguments: [
        // A mistyped field, a repeated name, an unknown member of the body: the reader gives up.
        ("{\"body\":{\"reports\":7},\"id\":\"1\",\"op\":\"ingest.batch\"}", "request.invalidField", "body.reports"),
        ("{\"body\":{\"reports\":[]},\"id\":\"1\",\"id\":\"2\",\"op\":\"ingest.batch\"}", "request.malformed", "field id is given more than once"),
        ("{\"body\":{\"reports\":[]},\"id\":\"1\",\"op\":\"greet\",\"op\":\"ingest.batch\"}", "request.malformed", "field op is given more than once"),
        ("{\"body\":{\"reports\":[]},\"id\":7,\"op\":\"ingest.batch\"}", "request.malformed", "field id must be a string"),
        ("{\"op\":\"ingest.batch\",\"body\":{\"reports\":[]},\"op\":\"greet\"}", "request.malformed", "field op is given more than once"),
        ("{\"op\":\"ingest.batch\",\"body\":{\"reports\":[{\"deviceId\":\"d\",\"deviceId\":\"e\"}]}}", "request.malformed", "field body.reports[0].deviceId is given more than once"),
        // Over the limit: refused unread, as before.
        ("{\"body\":{\"reports\":[],\"pad\":\"" + String(repeating: "x", count: 5_000) + "\"},\"id\":\"1\",\"op\":\"ingest.batch\"}", "request.tooLarge", "exceeds the limit of 4096"),
    ] as [(String, String, String)])
    func onePassFallsBack(text: String, code: String, message: String) throws {
        let (router, seen) = batchRouter()
        let error = try errorOf(router.handle(frame(text)))
        #expect(error.code == code && error.message.contains(message), "\(error)")
        #expect(router.onePassReads == 0)
        #expect(seen().isEmpty)
    }

    @Test("a caller the op is not open to is refused after one pass as after two, and its batch is not taken")
    func onePassRefusesTheCaller() throws {
        let (router, seen) = batchRouter()
        let phone = Caller(principal: Principal(name: "phone-bob", role: .phone, publicKey: String(repeating: "e", count: 40), deviceId: "phone-2", userId: "bob"))
        let refusal = try errorOf(router.handle(Wire.encode(Self.batchRequest(["phone-2"])), caller: phone))
        #expect(refusal.code == "auth.forbidden", "\(refusal)")
        #expect(router.onePassReads == 1)
        let gateway = Caller(principal: Principal(name: "gateway-hall", role: .gateway, publicKey: String(repeating: "f", count: 40)))
        #expect(try Wire.decodeReply(router.handle(Wire.encode(Self.batchRequest(["phone-2"])), caller: gateway), body: Greeted.self).get() == Greeted(text: "phone-2"))
        // On behalf of a principal from a key that is not the edge's: refused before the op.
        var named = Self.batchRequest(["phone-3"])
        named.onBehalfOf = .phone("session-alice", userId: "alice", deviceId: "phone-1")
        #expect(try errorOf(router.handle(Wire.encode(named), caller: gateway)).code == "auth.forbidden")
        #expect(router.onePassReads == 3)
        #expect(seen().map { $0.reports.compactMap(\.deviceId) } == [["phone-2"]])
    }
}
