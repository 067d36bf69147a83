import Campus
import Foundation
import Messages
import ServiceRuntime
import Testing

/// The catalog a service runs with, reloaded without a restart: a valid file replaces it whole,
/// an invalid one is refused naming the field and the one in use is kept.
@Suite("Catalog reload")
struct CatalogSourceTests {
    static let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy/campus.json")
    static let logger = Logger(service: "test", instance: "test", minimum: .error)

    @Test("SHA-256 known answers (FIPS 180-4), so the digest is the one sha256sum prints")
    func sha256() {
        #expect(SHA256.hex(Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex(Data(repeating: UInt8(ascii: "a"), count: 1000)) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    @Test("a valid change replaces the catalog and tells the service; the same file again changes nothing; an invalid one is refused and the old kept")
    func reload() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("campus.json")
        let original = try Data(contentsOf: Self.demo)
        try original.write(to: path)
        let source = try CatalogSource(path: path.path, now: Timestamp(milliseconds: 0))
        #expect(source.digest == SHA256.hex(original))
        var seen: [CampusCatalog] = []
        source.onChange { seen.append($0) }

        let same = try source.reload(service: "order-service", now: Timestamp(milliseconds: 1000), logger: Self.logger, reason: "test")
        #expect(!same.changed && seen.isEmpty && same.loadedAt == Timestamp(milliseconds: 0))

        var object = try #require(try JSONSerialization.jsonObject(with: original) as? [String: Any])
        var cafes = try #require(object["cafes"] as? [[String: Any]])
        var menu = try #require(cafes[0]["menu"] as? [[String: Any]])
        menu[0]["price"] = 1295
        menu[0]["prepSeconds"] = 300
        cafes[0]["menu"] = menu
        object["cafes"] = cafes
        let changed = try JSONSerialization.data(withJSONObject: object)
        try changed.write(to: path)
        let reply = try source.reload(service: "order-service", now: Timestamp(milliseconds: 2000), logger: Self.logger, reason: "test")
        #expect(reply.changed && reply.digest == SHA256.hex(changed) && reply.cafes == 6 && reply.loadedAt == Timestamp(milliseconds: 2000))
        #expect(source.catalog.cafes[0].menu[0].price == 1295 && seen.count == 1 && seen.first?.cafes[0].menu[0].prepSeconds == 300)

        menu[0]["prepSeconds"] = 0
        cafes[0]["menu"] = menu
        object["cafes"] = cafes
        try JSONSerialization.data(withJSONObject: object).write(to: path)
        let refusal = #expect(throws: ServiceError.self) {
            try source.reload(service: "order-service", now: Timestamp(milliseconds: 3000), logger: Self.logger, reason: "test")
        }
        #expect(refusal?.code == ErrorCode.catalogInvalid.rawValue)
        #expect(refusal?.message.contains("cafes[0] (caffe-macs).menu[0].prepSeconds") == true, "\(refusal?.message ?? "")")
        #expect(source.catalog.cafes[0].menu[0].price == 1295 && source.digest == SHA256.hex(changed) && seen.count == 1)

        try Data("{ not json".utf8).write(to: path)
        #expect(throws: ServiceError.self) { try source.reload(service: "x", now: Timestamp(milliseconds: 4000), logger: Self.logger, reason: "test") }
        #expect(source.digest == SHA256.hex(changed))
    }
}
