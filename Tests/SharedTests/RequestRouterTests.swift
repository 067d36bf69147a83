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
}
