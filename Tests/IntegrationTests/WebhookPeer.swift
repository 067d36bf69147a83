import Foundation
import Testing

/// The strict local webhook receiver (`Tests/Peers/webhook_peer.py`) as a test runs it: HTTPS
/// with a test CA and a server certificate for 127.0.0.1 made with the openssl command line, a
/// Standard Webhooks secret it checks every signature with, a secrets file for
/// notification-service and a copy of the demo catalog whose allow-list names the peer.
final class WebhookPeer {
    static let endpointId = "android-push"
    static let secretName = "android"

    let folder: URL
    let port: Int
    let secret: String
    private let process: Process
    var caFile: String { folder.appendingPathComponent("ca.pem").path }
    var secretsFile: String { folder.appendingPathComponent("secrets.json").path }
    var campusFile: String { folder.appendingPathComponent("campus.json").path }
    var url: String { "https://127.0.0.1:\(port)/hook" }
    private var faultsFile: URL { folder.appendingPathComponent("faults.json") }
    private var recordFile: URL { folder.appendingPathComponent("record.jsonl") }

    /// The notification-service flags that send to this peer.
    var serviceArguments: [String] { ["--webhook-secrets", secretsFile, "--webhook-ca-file", caFile, "--webhook-timeout-seconds", "2", "--campus", campusFile] }

    /// `campus`: the demo catalog the copy starts from.
    init(in folder: URL, campus: String) throws {
        self.folder = folder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = { (name: String) in folder.appendingPathComponent(name).path }
        try PeerCertificates.make(in: folder, caName: "Campus Cafe test webhook CA")
        secret = "whsec_" + Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        try Data("{}".utf8).write(to: folder.appendingPathComponent("faults.json"))
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Peers/webhook_peer.py")
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script.path, "--cert", path("server.pem"), "--key", path("server.key"), "--port-file", path("port"), "--record", path("record.jsonl"),
                             "--faults", path("faults.json"), "--path", "/hook", "--secret", secret]
        let log = folder.appendingPathComponent("peer.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        let portFile = path("port")
        port = try eventually("the webhook peer listening") { (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0) } }
        try writeSecrets([Self.secretName: secret])
        var catalog = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: campus))) as? [String: Any] ?? [:]
        catalog["webhooks"] = [["id": Self.endpointId, "url": url, "secret": Self.secretName]]
        try JSONSerialization.data(withJSONObject: catalog).write(to: URL(fileURLWithPath: campusFile))
    }

    deinit { stop() }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Writes notification-service's secrets file (read at start and on SIGHUP).
    func writeSecrets(_ secrets: [String: String]) throws {
        try JSONSerialization.data(withJSONObject: secrets).write(to: URL(fileURLWithPath: secretsFile), options: .atomic)
    }

    /// Scripts the answers (see the peer's help): each accepted request takes the next.
    func script(_ actions: [String]) throws {
        try JSONSerialization.data(withJSONObject: ["actions": actions]).write(to: faultsFile, options: .atomic)
    }

    /// One request the peer saw.
    struct Seen {
        let status: Int
        let id: String?
        let verified: Bool
        let path: String?
        let time: Double
        let body: [String: Any]?
    }

    /// Everything the peer saw, in order.
    func seen() -> [Seen] {
        guard let text = try? String(contentsOf: recordFile, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return Seen(status: object["status"] as? Int ?? -1, id: object["id"] as? String, verified: object["verified"] as? Bool ?? false,
                        path: object["path"] as? String, time: object["time"] as? Double ?? 0, body: object["body"] as? [String: Any])
        }
    }
}
