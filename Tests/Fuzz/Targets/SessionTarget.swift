import EdgeCore
import EdgeServer
import Foundation
import Identity
import Messages
import SQLite

/// The edge's session part, which reads what any HTTP client sends before it has a session:
/// input up to its first NUL is an `Authorization` value, the rest a session route's body (and an
/// `X-Forwarded-For` and `Grip-Sig` value). A bearer never issued is always 401; a body through the route table
/// and the session routes is a session (whose token then authenticates) or a refusal that stored
/// nothing; a client address is at most 64 bytes.
enum SessionTarget {
    static func make() -> FuzzTarget {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-sessions-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let setup: (SessionStore, SessionEndpoints)? = {
            guard let database = try? Database(path: folder.appendingPathComponent("edge.sqlite").path),
                  let store = try? SessionStore(database: database, clock: SystemClock()),
                  let devices = try? DeviceBindings(database: database), let used = try? UsedIDTokens(database: database),
                  let endpoints = try? SessionEndpoints(store: store, configuration: IssuerConfiguration(), clock: SystemClock(), usedTokens: used,
                                                        devices: devices) else { return nil }
            return (store, endpoints)
        }()
        let router = EdgeRouter()
        return FuzzTarget("sessions", "bearer tokens, session bodies and X-Forwarded-For values through the edge's session part: never-issued bearers are 401, a refused body stores nothing",
                          seeds: { seeds }) { input in
            guard let (store, endpoints) = setup else { return "cannot open the session store" }
            let bytes = [UInt8](input)
            let split = bytes.firstIndex(of: 0) ?? bytes.count
            let bearer = String(decoding: bytes[..<split], as: UTF8.self)
            let body = Array(bytes[min(split + 1, bytes.count)...])
            do throws(Problem) {
                _ = try endpoints.authenticate(HTTPHeaders([("Authorization", bearer)]))
                return "a bearer never issued authenticated: \(bearer.prefix(80))"
            } catch {
                if error.status != 401 && error.status != 503 { return "a bearer refused with \(error.status), not 401" }
            }
            // The same bytes as a Grip-Sig: never verified under a key that did not sign them.
            if GripSignature(key: Array("fuzz-key".utf8)).verifies(String(decoding: body, as: UTF8.self), now: Timestamp(milliseconds: 0)) {
                return "a Grip-Sig the fuzz key never signed verified"
            }
            let address = EdgeServer.clientAddress(of: ZhttpRequest(id: [1], method: "GET", uri: "/", headers: HTTPHeaders([("X-Forwarded-For", String(decoding: body, as: UTF8.self))])))
            if address.isEmpty || address.utf8.count > 64 { return "a client address of \(address.utf8.count) bytes" }
            for (path, action) in [("/v1/sessions/guest", Route.SessionAction.guest), ("/v1/sessions", .signIn)] {
                let before = (try? store.list(includeInactive: true, limit: SessionStore.maxListed).count) ?? -1
                let response: EdgeResponse
                do throws(Problem) {
                    let call = try router.resolve(method: "POST", uri: "https://cafe.example\(path)", headers: HTTPHeaders([("Content-Type", "application/json")]),
                                                  body: body, role: nil)
                    response = endpoints.answer(action, body: call.body, session: nil)
                } catch {
                    response = error.response
                }
                let after = (try? store.list(includeInactive: true, limit: SessionStore.maxListed).count) ?? -1
                if response.status == 200 {
                    guard let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], let token = object["token"] as? String,
                          (try? endpoints.authenticate(HTTPHeaders([("Authorization", "Bearer " + token)]))) != nil else {
                        return "\(path) answered 200 without a token that authenticates"
                    }
                    // The store keeps its newest sessions in view: past the list's limit the count stays.
                    if after != before + 1 && before < SessionStore.maxListed { return "\(path) answered 200 and stored \(after - before) sessions" }
                } else if after != before {
                    return "\(path) refused with \(response.status) and still stored a session"
                } else if !(400...503).contains(response.status) {
                    return "\(path) answered \(response.status)"
                }
            }
            return nil
        }
    }

    static var seeds: [Data] {
        ["Bearer cct_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\0{\"deviceId\":\"clip-1\",\"cafeId\":\"caffe-macs\"}",
         "Bearer x\0{\"idToken\":\"a.b.c\",\"nonce\":\"n\",\"deviceId\":\"phone-1\"}",
         "Basic abc\0{\"deviceId\":\"not an id\"}",
         "\u{0}203.0.113.9, 10.0.0.1"].map { Data($0.utf8) }
    }
}
