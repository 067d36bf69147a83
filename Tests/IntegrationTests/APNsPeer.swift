import Foundation
import Testing

/// The strict local APNs peer (`Tests/Peers/apns_peer.py`) as a test runs it: a test CA and a
/// server certificate for 127.0.0.1 made with the openssl command line, a team signing key (a
/// `.p8`) whose public half the peer checks signatures with, and what the peer recorded.
/// `stop()` (or deinit) kills the peer.
final class APNsPeer {
    static let keyID = "ABC123DEFG"
    static let teamID = "TEAM123456"
    static let topic = "edu.campus.cafe"

    let folder: URL
    let port: Int
    private let process: Process
    var caFile: String { folder.appendingPathComponent("ca.pem").path }
    var keyFile: String { folder.appendingPathComponent("AuthKey_\(Self.keyID).p8").path }
    var url: String { "https://127.0.0.1:\(port)" }
    private var faultsFile: URL { folder.appendingPathComponent("faults.json") }
    private var recordFile: URL { folder.appendingPathComponent("record.jsonl") }

    /// The notification-service flags that send to this peer.
    var serviceArguments: [String] {
        ["--apns-key-file", keyFile, "--apns-key-id", Self.keyID, "--apns-team-id", Self.teamID, "--apns-sandbox-url", url,
         "--apns-production-url", url, "--apns-ca-file", caFile, "--apns-timeout-seconds", "2"]
    }

    init(in folder: URL) throws {
        self.folder = folder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = { (name: String) in folder.appendingPathComponent(name).path }
        try PeerCertificates.make(in: folder, caName: "Campus Cafe test APNs CA")
        try PeerCertificates.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path("AuthKey_\(Self.keyID).p8")])
        try PeerCertificates.openssl(["pkey", "-in", path("AuthKey_\(Self.keyID).p8"), "-pubout", "-out", path("team.pub")])
        try Data("{}".utf8).write(to: folder.appendingPathComponent("faults.json"))
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Peers/apns_peer.py")
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script.path, "--cert", path("server.pem"), "--key", path("server.key"), "--port-file", path("port"), "--record", path("record.jsonl"),
                             "--faults", path("faults.json"), "--topics", Self.topic, "\(Self.keyID)=\(path("team.pub"))"]
        let log = folder.appendingPathComponent("peer.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        let portFile = path("port")
        port = try eventually("the APNs peer listening") { (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0) } }
    }

    deinit { stop() }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Scripts the faults (see the peer's help): read by the peer at every request.
    func script(tokens: [String: [String]] = [:], goawayAfter: Int? = nil, delayMilliseconds: Int? = nil) throws {
        var plan: [String: Any] = ["tokens": tokens]
        plan["goaway_after"] = goawayAfter
        plan["delay_ms"] = delayMilliseconds
        try JSONSerialization.data(withJSONObject: plan).write(to: faultsFile, options: .atomic)
    }

    /// One request the peer saw.
    struct Seen {
        let status: Int
        let reason: String?
        let connection: Int
        let token: String?
        let headers: [String: String]
        let payload: [String: Any]?
        let kid: String?
        let iat: Int?
        var apnsId: String? { headers["apns-id"] }
    }

    /// Everything the peer saw, in order.
    func seen() -> [Seen] {
        guard let text = try? String(contentsOf: recordFile, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return Seen(status: object["status"] as? Int ?? -1, reason: object["reason"] as? String, connection: object["connection"] as? Int ?? 0,
                        token: object["token"] as? String, headers: object["headers"] as? [String: String] ?? [:], payload: object["payload"] as? [String: Any],
                        kid: object["kid"] as? String, iat: object["iat"] as? Int)
        }
    }

    /// The requests for one device token.
    func seen(token: String) -> [Seen] { seen().filter { $0.token == token } }

    /// A device token made from a short name: 64 hex digits.
    static func token(_ seed: Int) -> String { String(repeating: "0", count: 56) + String(format: "%08x", seed) }
}
