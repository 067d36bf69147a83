import Foundation

/// A local OpenID Connect issuer for the edge's tests, sharing no code with the Identity module:
/// one P-256 key made by the `openssl` command line, its JWKS written with Foundation's base64, and
/// ID tokens signed by `openssl dgst` (DER turned into JOSE's r‖s here). What it writes is what a
/// real provider would; `issuersFile` is the edge's `--issuers` configuration for it.
public final class LocalIssuer: @unchecked Sendable {
    public let issuer: String
    public let audience: String
    public let folder: URL
    public let kid = "local-ec-1"
    private let privatePEM: URL

    /// A fresh key in a temporary folder.
    public init(issuer: String = "https://id.campus.test", audience: String = "cafe.campus.app") throws {
        self.issuer = issuer
        self.audience = audience
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("local-issuer-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        privatePEM = folder.appendingPathComponent("key.pem")
        try Self.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", privatePEM.path])
        let der = folder.appendingPathComponent("pub.der")
        try Self.openssl(["pkey", "-in", privatePEM.path, "-pubout", "-outform", "DER", "-out", der.path])
        // A P-256 SubjectPublicKeyInfo: a fixed 26-byte header, then the point 04‖x‖y.
        let info = try Data(contentsOf: der)
        guard info.count == 91, info[26] == 4 else { throw LocalIssuerError("not a P-256 public key") }
        let jwk = ["kty": "EC", "crv": "P-256", "kid": kid, "use": "sig", "x": Self.base64url(info[27..<59]), "y": Self.base64url(info[59..<91])]
        try JSONSerialization.data(withJSONObject: ["keys": [jwk]], options: [.sortedKeys]).write(to: jwksFile)
        let config: [[String: Any]] = [["issuer": issuer, "audiences": [audience], "jwksFile": jwksFile.path, "userId": "derived"]]
        try JSONSerialization.data(withJSONObject: config, options: [.sortedKeys]).write(to: issuersFile)
    }

    public var jwksFile: URL { folder.appendingPathComponent("jwks.json") }
    /// The edge's `--issuers` file naming this issuer.
    public var issuersFile: URL { folder.appendingPathComponent("issuers.json") }

    /// An ID token for `subject` issued at `now` (seconds since 1970), valid for an hour, with
    /// `nonce`; `extra` claims replace the usual ones (NSNull removes one).
    public func idToken(subject: String, nonce: String?, now: Double, extra: [String: Any] = [:]) throws -> String {
        var claims: [String: Any] = ["iss": issuer, "aud": audience, "sub": subject, "iat": Int(now), "exp": Int(now) + 3600]
        if let nonce { claims["nonce"] = nonce }
        for (name, value) in extra { claims[name] = value is NSNull ? nil : value }
        let header = ["alg": "ES256", "kid": kid, "typ": "JWT"]
        let input = Self.base64url(try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])) + "."
            + Self.base64url(try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
        let name = UUID().uuidString
        let inputFile = folder.appendingPathComponent("\(name).in"), signatureFile = folder.appendingPathComponent("\(name).sig")
        defer {
            try? FileManager.default.removeItem(at: inputFile)
            try? FileManager.default.removeItem(at: signatureFile)
        }
        try Data(input.utf8).write(to: inputFile)
        try Self.openssl(["dgst", "-sha256", "-sign", privatePEM.path, "-out", signatureFile.path, inputFile.path])
        return input + "." + Self.base64url(try Self.rawSignature(fromDER: try Data(contentsOf: signatureFile)))
    }

    /// Removes the folder.
    public func remove() { try? FileManager.default.removeItem(at: folder) }

    static func base64url(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// r‖s (32 bytes each) from DER `SEQUENCE { INTEGER r, INTEGER s }` (short lengths: an
    /// ECDSA P-256 signature is at most 72 bytes), as JOSE wants it from what OpenSSL signs.
    public static func rawSignature(fromDER der: Data) throws -> Data {
        let bytes = Array(der)
        guard bytes.count >= 8, bytes[0] == 0x30, Int(bytes[1]) == bytes.count - 2 else { throw LocalIssuerError("not a DER sequence") }
        var index = 2
        var out = Data()
        for _ in 0..<2 {
            guard bytes[index] == 0x02 else { throw LocalIssuerError("not a DER integer") }
            let length = Int(bytes[index + 1])
            var value = Array(bytes[(index + 2)..<(index + 2 + length)])
            while value.count > 32, value.first == 0 { value.removeFirst() }
            guard value.count <= 32 else { throw LocalIssuerError("an integer over 32 bytes") }
            out.append(Data(repeating: 0, count: 32 - value.count) + value)
            index += 2 + length
        }
        return out
    }

    static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw LocalIssuerError("openssl \(arguments.first ?? "") exited \(process.terminationStatus): \(String(decoding: output, as: UTF8.self))")
        }
    }
}

public struct LocalIssuerError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
