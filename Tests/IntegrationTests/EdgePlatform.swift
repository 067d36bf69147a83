import Foundation
import Messages
import ServiceRuntime
import TestSupport
import ZeroMQ

/// The platform behind a real Pushpin: `Platform`'s services, the `edge` executable and Pushpin
/// rendered from deploy/pushpin's templates by deploy/pushpin/render.sh (the same files
/// run-local.sh renders), all on free loopback ports with Pushpin's run folder in the test's temp
/// folder. In deployed mode the edge holds its own key (role `edge`). `stop()` ends everything.
final class EdgePlatform {
    let platform: Platform
    let issuer: LocalIssuer
    /// edge (request socket), zhttp (Pushpin's route endpoint), publish (push_in_spec), http, control.
    let ports: [String: Int]
    /// Flags added after the defaults, for the edge.
    var edgeArguments: [String] = []

    var baseURL: String { "http://127.0.0.1:\(ports["http"]!)" }
    var edgeEndpoint: String { "tcp://127.0.0.1:\(ports["edge"]!)" }

    init(security: SocketSecurity.Mode) throws {
        platform = try Platform(security: security)
        issuer = try LocalIssuer()
        let names = ["edge", "zhttp", "publish", "http", "control"]
        ports = Dictionary(uniqueKeysWithValues: zip(names, try LoopbackPorts.free(names.count)))
        if let keys = platform.keys { _ = try keys.add(name: "edge", role: .edge) }
    }

    /// Pushpin from deploy/pushpin's templates, rendered when the platform starts.
    private(set) var pushpin: PushpinProcess?

    var pushpinFolder: URL { platform.root.appendingPathComponent("pushpin") }

    /// The edge's flags: every service's endpoint, Pushpin's, the issuer file, a short deadline.
    var edgeFlags: [String] {
        var args = ["--listen", edgeEndpoint, "--bus-pub", platform.busPub, "--bus-sub", platform.busSub,
                    "--data-dir", platform.root.appendingPathComponent("data").path, "--zhttp-endpoint", "tcp://127.0.0.1:\(ports["zhttp"]!)",
                    "--ingest-endpoints", platform.endpoint("beacon-ingest"), "--region-endpoints", platform.endpoint("region-monitor"),
                    "--orders-endpoint", platform.endpoint("order-service"), "--kitchen-endpoint", platform.endpoint("kitchen-display"),
                    "--notify-endpoint", platform.endpoint("notification-service"), "--issuers", issuer.issuersFile.path,
                    "--deadline-ms", "1500", "--log-level", "debug", "--grip-key-file", pushpinFolder.appendingPathComponent("sig_key").path]
        if let keys = platform.keys { args += ["--security", "deployed", "--keys", keys.path, "--instance", "edge"] }
        return args + edgeArguments
    }

    /// Starts the bus, `services`, the edge and Pushpin, and waits until the edge answers health
    /// and an HTTP request reaches it through Pushpin.
    func start(services: [String]) throws {
        try platform.start(busAnd: services)
        let pushpin = try PushpinProcess(folder: pushpinFolder, httpPort: ports["http"]!, zhttpPort: ports["zhttp"]!, publishPort: ports["publish"]!,
                                         controlPort: ports["control"]!)
        self.pushpin = pushpin
        try platform.children.start("edge", executable: "edge", arguments: edgeFlags, inRootFolder: false)
        let curve = try platform.keys.map { _ in try platform.security(as: KeyFolder.defaultOperator).clientKeys(server: "edge") } ?? nil
        try platform.children.waitHealthy("edge", endpoint: edgeEndpoint, curve: curve)
        try pushpin.start()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            // 2 s an attempt: a request Pushpin takes while its condure and handler are still
            // connecting can be held until its own timeout (seen once: 20 s, "Host unreachable").
            if let response = try? request("GET", "/v1/openapi.json", maxSeconds: 2), response.status == 200 { return }
            usleep(100_000)
        }
        throw PlatformError("Pushpin did not reach the edge in 20 s: \(pushpin.log.suffix(2000)) \(platform.log("edge").suffix(2000))")
    }

    /// One HTTP request with curl: the status, the header fields (names lowercased) and the body.
    struct Response {
        let status: Int
        let headers: [String: String]
        let body: Data
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        var code: String? { json["code"] as? String }
    }

    func request(_ method: String, _ path: String, token: String? = nil, json: Any? = nil, headers: [String: String] = [:],
                 rawBody: Data? = nil, maxSeconds: Int = 20) throws -> Response {
        let scratch = platform.root.appendingPathComponent("curl-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: scratch) }
        var args = ["-s", "-S", "--max-time", "\(maxSeconds)", "-X", method, "-D", scratch.path + ".headers", "-o", scratch.path + ".body"]
        if let token { args += ["-H", "Authorization: Bearer \(token)"] }
        for (name, value) in headers { args += ["-H", "\(name): \(value)"] }
        if let body = try rawBody ?? json.map({ try JSONSerialization.data(withJSONObject: $0) }) {
            try body.write(to: URL(fileURLWithPath: scratch.path + ".in"))
            args += ["--data-binary", "@" + scratch.path + ".in"]
            if headers["Content-Type"] == nil { args += ["-H", "Content-Type: application/json"] }
        }
        let result = try runCommand(URL(fileURLWithPath: "/usr/bin/curl"), args + [baseURL + path], timeout: 30)
        defer { for suffix in [".headers", ".body", ".in"] { try? FileManager.default.removeItem(atPath: scratch.path + suffix) } }
        guard result.status == 0 else { throw PlatformError("curl \(method) \(path) failed: \(result.err)") }
        let head = (try? String(contentsOfFile: scratch.path + ".headers", encoding: .utf8)) ?? ""
        let lines = head.components(separatedBy: "\r\n")
        let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: status, headers: fields, body: (try? Data(contentsOf: URL(fileURLWithPath: scratch.path + ".body"))) ?? Data())
    }

    /// Signs in through the edge with a fresh ID token for `subject` on `deviceId`: the bearer token and the user id.
    func signIn(_ subject: String, deviceId: String) throws -> (token: String, userId: String) {
        let idToken = try issuer.idToken(subject: subject, nonce: "n-\(subject)", now: Date().timeIntervalSince1970)
        let response = try request("POST", "/v1/sessions", json: ["idToken": idToken, "nonce": "n-\(subject)", "deviceId": deviceId])
        guard response.status == 200, let token = response.json["token"] as? String, let userId = response.json["userId"] as? String else {
            throw PlatformError("sign-in failed: \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
        return (token, userId)
    }

    /// A kiosk's or kitchen's token from the edge's token op, as `cafectl tokens issue` gets it (the operator's key).
    func deviceToken(_ kind: String, cafeId: String) throws -> String {
        let context = try Context()
        let client = try platform.security(as: KeyFolder.defaultOperator).requestClient(context: context, peer: edgeEndpoint, defaultServer: "edge")
        defer { client.close() }
        return try client.call(Op.tokenIssue, TokenIssueRequest(kind: kind, cafeId: cafeId), as: TokenIssued.self).token
    }

    func stop() {
        pushpin?.stop()
        platform.stop()
        issuer.remove()
    }
}
