import Foundation
import Testing
import ZeroMQ

@Suite("CURVE")
struct CurveTests {
    static let z85Alphabet = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#")

    @Test("a generated key pair is two distinct 40-character Z85 keys, fresh each time")
    func keyPairGeneration() throws {
        let first = try CurveKeyPair.generate()
        let second = try CurveKeyPair.generate()
        for key in [first.publicKey, first.secretKey, second.publicKey, second.secretKey] {
            #expect(key.count == 40)
            #expect(key.allSatisfy { Self.z85Alphabet.contains($0) }, "\(key) is not Z85")
        }
        #expect(first.publicKey != first.secretKey)
        #expect(first != second)
    }

    @Test("a CURVE client that knows the server key gets an encrypted round trip")
    func encryptedRoundTrip() throws {
        let server = try CurveKeyPair.generate()
        let client = try CurveKeyPair.generate()
        let context = try Context()
        let rep = try Socket(context, .rep)
        defer { rep.close() }
        try rep.setCurveServer(secretKey: server.secretKey)
        try rep.bind("tcp://127.0.0.1:*")
        let req = try Socket(context, .req)
        defer { req.close() }
        try req.setLinger(milliseconds: 0)
        try req.setCurveClient(serverKey: server.publicKey, publicKey: client.publicKey, secretKey: client.secretKey)
        try req.connect(try rep.lastEndpoint)

        try req.send("{\"op\":\"health\",\"id\":\"1\"}")
        #expect(try rep.receiveMultipart(timeoutMilliseconds: 3_000) == [frame("{\"op\":\"health\",\"id\":\"1\"}")])
        try rep.send("{\"ok\":true,\"body\":{}}")
        #expect(try req.receiveMultipart(timeoutMilliseconds: 3_000) == [frame("{\"ok\":true,\"body\":{}}")])
    }

    @Test("a client holding the wrong server key never completes the handshake")
    func wrongServerKey() throws {
        let server = try CurveKeyPair.generate()
        let impostor = try CurveKeyPair.generate()
        let client = try CurveKeyPair.generate()
        let context = try Context()
        let rep = try Socket(context, .rep)
        defer { rep.close() }
        try rep.setCurveServer(secretKey: server.secretKey)
        try rep.bind("tcp://127.0.0.1:*")
        let req = try Socket(context, .req)
        defer { req.close() }
        try req.setLinger(milliseconds: 0)
        try req.setCurveClient(serverKey: impostor.publicKey, publicKey: client.publicKey, secretKey: client.secretKey)
        try req.connect(try rep.lastEndpoint)

        try req.send("secret", dontWait: true)
        #expect(try rep.receiveMultipart(timeoutMilliseconds: 300) == nil)
    }

    @Test("a plain client cannot talk to a CURVE server")
    func plainClientRefused() throws {
        let server = try CurveKeyPair.generate()
        let context = try Context()
        let rep = try Socket(context, .rep)
        defer { rep.close() }
        try rep.setCurveServer(secretKey: server.secretKey)
        try rep.bind("tcp://127.0.0.1:*")
        let req = try Socket(context, .req)
        defer { req.close() }
        try req.setLinger(milliseconds: 0)
        try req.connect(try rep.lastEndpoint)

        try req.send("plain", dontWait: true)
        #expect(try rep.receiveMultipart(timeoutMilliseconds: 300) == nil)
    }

    @Test("a malformed key is refused when set")
    func malformedKey() throws {
        let context = try Context()
        let rep = try Socket(context, .rep)
        defer { rep.close() }
        let error = #expect(throws: ZeroMQError.self) { try rep.setCurveServer(secretKey: "too-short") }
        #expect(error?.errno == EINVAL)
    }
}
