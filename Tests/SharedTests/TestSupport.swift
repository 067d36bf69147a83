import Foundation
import Messages
import ServiceRuntime
import Synchronization

/// A value shared between a test and a server thread.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    var value: Value { mutex.withLock { $0 } }
    func update(_ body: (inout Value) -> Void) { mutex.withLock { body(&$0) } }
}

/// A fresh folder under the system temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("cafe-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path inside the folder.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// A unique in-process endpoint, so parallel tests never share one.
func uniqueInproc(_ label: String = #function) -> String {
    let clean = label.filter { $0.isLetter || $0.isNumber }
    return "inproc://\(clean)-\(UUID().uuidString)"
}

/// A logger that writes nowhere (tests assert behaviour, not log lines).
let silentLogger = Logger(service: "test", instance: "test", minimum: .error, sink: { _ in })

/// A logger that keeps its lines for tests that assert what was logged.
final class CapturingSink: Sendable {
    private let storage = Mutex<[String]>([])
    var lines: [String] { storage.withLock { $0 } }
    func logger(minimum: Logger.Level = .debug) -> Logger {
        Logger(service: "test", instance: "test", minimum: minimum, sink: { line in self.storage.withLock { $0.append(line) } })
    }
}

/// The folder of fixture files copied into the test bundle.
func fixtureURL(_ name: String) throws -> URL {
    guard let folder = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
        throw CocoaError(.fileNoSuchFile)
    }
    return folder.appendingPathComponent(name)
}

/// The UTF-8 bytes of `text`, as one wire frame.
func frame(_ text: String) -> Data { Data(text.utf8) }

extension Data {
    var utf8Text: String { String(decoding: self, as: UTF8.self) }
}

/// Parses JSON into a mutable dictionary (for building invalid variants of valid documents).
func jsonObject(_ data: Data) throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
        throw CocoaError(.coderReadCorrupt)
    }
    return object
}

func jsonData(_ object: Any) throws -> Data {
    try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
}

/// `object` with the value at a dotted `path` replaced; numeric parts index arrays
/// ("cafes.0.menu.1.price").
func setting(_ path: String, to value: Any, in object: [String: Any]) -> [String: Any] {
    setting(path.split(separator: ".").map(String.init)[...], to: value, in: object) as! [String: Any]
}

private func setting(_ path: ArraySlice<String>, to value: Any, in node: Any) -> Any {
    guard let head = path.first else { return value }
    let rest = path.dropFirst()
    if var array = node as? [Any], let index = Int(head), array.indices.contains(index) {
        array[index] = setting(rest, to: value, in: array[index])
        return array
    }
    guard var object = node as? [String: Any] else { return node }
    object[head] = rest.isEmpty ? value : setting(rest, to: value, in: object[head] ?? [String: Any]())
    return object
}
