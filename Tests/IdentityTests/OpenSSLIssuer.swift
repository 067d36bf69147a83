import Foundation
import TestSupport

/// A strict local OpenID Connect issuer that shares no code with the module under test: its keys
/// are made, and its tokens signed, by the `openssl` command line; base64url is Foundation's
/// base64 with the alphabet swapped; its ES256 signatures are converted from OpenSSL's DER to
/// JOSE's r‖s by the little DER reader below. What it writes is what a real provider would.
final class OpenSSLIssuer: @unchecked Sendable {
    /// A signing key the issuer holds: its PEM file, its kid, its JWK (public parameters).
    struct Key {
        let kid: String
        let algorithm: String
        let privatePEM: URL
        let publicPEM: URL
        let jwk: [String: String]
    }

    let folder: URL
    let issuer: String
    let rsa: Key
    let ec: Key
    /// Keys of nobody the platform trusts, with the same kids: a forger's.
    let forgedRSA: Key
    let forgedEC: Key

    /// The one issuer every test shares: key generation is the slow part.
    static let shared: OpenSSLIssuer = {
        do { return try OpenSSLIssuer(issuer: "https://id.campus.test") } catch { fatalError("cannot make the test issuer: \(error)") }
    }()

    init(issuer: String) throws {
        self.issuer = issuer
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("identity-issuer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        rsa = try Self.makeRSA(in: folder, name: "rsa", kid: "rsa-2026")
        ec = try Self.makeEC(in: folder, name: "ec", kid: "ec-2026")
        forgedRSA = try Self.makeRSA(in: folder, name: "forged-rsa", kid: "rsa-2026")
        forgedEC = try Self.makeEC(in: folder, name: "forged-ec", kid: "ec-2026")
    }

    /// The JWKS document of the issuer's two real keys.
    var jwks: Data {
        let keys = [rsa.jwk, ec.jwk]
        return try! JSONSerialization.data(withJSONObject: ["keys": keys], options: [.sortedKeys])
    }

    /// The JWKS written to a file of its own.
    func writeJWKS(_ data: Data? = nil) throws -> String {
        let url = folder.appendingPathComponent("jwks-\(UUID().uuidString).json")
        try (data ?? jwks).write(to: url)
        return url.path
    }

    // MARK: Tokens

    /// A compact JWS of `claims` under `header`, signed with `key` (its algorithm; `sign` false
    /// leaves the signature empty).
    func token(header: [String: Any], claims: [String: Any], key: Key) throws -> String {
        let input = Self.base64url(try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]))
            + "." + Self.base64url(try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
        let signature = try sign(Data(input.utf8), with: key)
        return input + "." + Self.base64url(signature)
    }

    /// `token` with the usual header for `key` (alg and kid).
    func token(_ claims: [String: Any], key: Key) throws -> String {
        try token(header: ["alg": key.algorithm, "kid": key.kid, "typ": "JWT"], claims: claims, key: key)
    }

    /// JOSE's signature of `input` with `key`: RSA PKCS #1 v1.5 as openssl writes it, ECDSA as r‖s.
    func sign(_ input: Data, with key: Key) throws -> Data {
        let der = try derSignature(input, with: key)
        return key.algorithm == "ES256" ? try Self.rawSignature(fromDER: der) : der
    }

    /// What `openssl dgst -sha256 -sign` writes for `input` (DER for ECDSA).
    func derSignature(_ input: Data, with key: Key) throws -> Data {
        let name = UUID().uuidString
        let inputFile = folder.appendingPathComponent("\(name).in"), signatureFile = folder.appendingPathComponent("\(name).sig")
        defer {
            try? FileManager.default.removeItem(at: inputFile)
            try? FileManager.default.removeItem(at: signatureFile)
        }
        try input.write(to: inputFile)
        try Self.openssl(["dgst", "-sha256", "-sign", key.privatePEM.path, "-out", signatureFile.path, inputFile.path])
        return try Data(contentsOf: signatureFile)
    }

    /// Whether `openssl dgst -verify` accepts `der` as `key`'s signature of `input`.
    func opensslVerifies(_ input: Data, derSignature der: Data, key: Key) throws -> Bool {
        let name = UUID().uuidString
        let inputFile = folder.appendingPathComponent("\(name).in"), signatureFile = folder.appendingPathComponent("\(name).sig")
        defer {
            try? FileManager.default.removeItem(at: inputFile)
            try? FileManager.default.removeItem(at: signatureFile)
        }
        try input.write(to: inputFile)
        try der.write(to: signatureFile)
        let (status, output) = try Self.run(["dgst", "-sha256", "-verify", key.publicPEM.path, "-signature", signatureFile.path, inputFile.path])
        return status == 0 && output.contains("Verified OK")
    }

    // MARK: Keys

    static func makeRSA(in folder: URL, name: String, kid: String, bits: Int = 2048) throws -> Key {
        let pem = folder.appendingPathComponent("\(name).pem"), pub = folder.appendingPathComponent("\(name).pub.pem")
        try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:\(bits)", "-out", pem.path])
        try openssl(["pkey", "-in", pem.path, "-pubout", "-out", pub.path])
        let modulusLine = try run(["rsa", "-in", pem.path, "-noout", "-modulus"]).output
        let hex = modulusLine.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "Modulus=", with: "")
        let text = try run(["rsa", "-in", pem.path, "-noout", "-text"]).output
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("publicExponent:") }),
              let exponent = UInt64(line.split(separator: " ")[1]) else { throw IssuerError("no publicExponent in openssl's text") }
        var e = withUnsafeBytes(of: exponent.bigEndian) { Data($0) }
        while e.first == 0 { e.removeFirst() }
        return Key(kid: kid, algorithm: "RS256", privatePEM: pem, publicPEM: pub,
                   jwk: ["kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256", "n": base64url(try bytes(hex: hex)), "e": base64url(e)])
    }

    static func makeEC(in folder: URL, name: String, kid: String) throws -> Key {
        let pem = folder.appendingPathComponent("\(name).pem"), pub = folder.appendingPathComponent("\(name).pub.pem")
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", pem.path])
        try openssl(["pkey", "-in", pem.path, "-pubout", "-out", pub.path])
        let der = folder.appendingPathComponent("\(name).pub.der")
        try openssl(["pkey", "-in", pem.path, "-pubout", "-outform", "DER", "-out", der.path])
        // A P-256 SubjectPublicKeyInfo is this fixed 26-byte header and the 65-byte point 04‖x‖y.
        let info = try Data(contentsOf: der)
        let header = try bytes(hex: "3059301306072a8648ce3d020106082a8648ce3d030107034200")
        guard info.count == 91, info.prefix(26) == header, info[26] == 4 else { throw IssuerError("not a P-256 public key: \(info.count) bytes") }
        return Key(kid: kid, algorithm: "ES256", privatePEM: pem, publicPEM: pub,
                   jwk: ["kty": "EC", "crv": "P-256", "kid": kid, "use": "sig", "x": base64url(info[27..<59]), "y": base64url(info[59..<91])])
    }

    // MARK: Encodings, written apart from the code under test

    static func base64url(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func bytes(hex: String) throws -> Data {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { throw IssuerError("odd hex") }
        return Data(try stride(from: 0, to: digits.count, by: 2).map { index -> UInt8 in
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { throw IssuerError("not hex") }
            return byte
        })
    }

    /// r‖s from OpenSSL's DER signature: TestSupport's reader, which the edge's issuer uses too.
    static func rawSignature(fromDER der: Data) throws -> Data {
        try LocalIssuer.rawSignature(fromDER: der)
    }

    /// DER `SEQUENCE { INTEGER r, INTEGER s }` from r‖s, for `openssl dgst -verify`.
    static func derSignature(fromRaw raw: Data) -> Data {
        func integer(_ bytes: Data) -> [UInt8] {
            var value = Array(bytes)
            while value.count > 1, value[0] == 0 { value.removeFirst() }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(raw.prefix(32)) + integer(raw.suffix(32))
        return Data([0x30, UInt8(body.count)] + body)
    }

    // MARK: The command line

    @discardableResult
    static func openssl(_ arguments: [String]) throws -> String {
        let (status, output) = try run(arguments)
        guard status == 0 else { throw IssuerError("openssl \(arguments.joined(separator: " ")) exited \(status): \(output)") }
        return output
    }

    /// Runs `openssl` with `arguments`; its status and its stdout and stderr together.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        // Drained while it runs, so a chatty child never blocks on a full pipe.
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}

struct IssuerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
