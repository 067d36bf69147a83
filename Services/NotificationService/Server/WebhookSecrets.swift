import Foundation

/// The receivers' signing secrets, read from the file `--webhook-secrets` names: a JSON object
/// of secret names (what the catalog's `webhooks[].secret` says) to `whsec_` secrets. Never in the
/// catalog, never logged: a problem names the secret, not its value. Read at start and on SIGHUP;
/// a receiver that refused our signature (401, 403) is held until the next read. Used on the
/// service's reactor thread only.
final class WebhookSecrets {
    /// The largest file read, and the most secrets in it.
    static let maxFileBytes = 65_536
    static let maxSecrets = 64

    private let file: String?
    private var signers: [String: WebhookSignature] = [:]
    /// Why the file gave nothing; nil when it was read.
    private(set) var fileProblem: String?
    /// Secrets a receiver refused since the last read, and how.
    private var refusals: [String: String] = [:]

    init(file: String?) {
        self.file = file
        reload()
    }

    /// Reads the file again; clears every refusal. Returns how many secrets loaded.
    @discardableResult
    func reload() -> Int {
        refusals = [:]
        guard let file else {
            signers = [:]
            fileProblem = "no --webhook-secrets"
            return 0
        }
        do {
            guard let data = FileManager.default.contents(atPath: file) else { throw SecretsError("cannot read \(file)") }
            signers = try Self.parse(data)
            fileProblem = nil
        } catch {
            signers = [:]
            fileProblem = "\(error)"
        }
        return signers.count
    }

    /// The signer for the secret `name`; nil while it is missing or refused.
    func signer(named name: String) -> WebhookSignature? {
        refusals[name] == nil ? signers[name] : nil
    }

    /// Why the secret `name` cannot sign; nil when it can.
    func problem(named name: String) -> String? {
        if let refusal = refusals[name] { return refusal }
        if signers[name] != nil { return nil }
        return fileProblem ?? "no secret \(name) in the secrets file"
    }

    /// A receiver refused what this secret signed: hold its deliveries until the file is read again.
    func refused(named name: String, _ why: String) { refusals[name] = why }

    /// The file's secrets: a JSON object of at most `maxSecrets` names (1–40 of a-z, 0-9 and -)
    /// to `whsec_` and base64. The error names what is wrong, never a secret's value.
    static func parse(_ data: Data) throws -> [String: WebhookSignature] {
        guard data.count <= maxFileBytes else { throw SecretsError("the secrets file is over \(maxFileBytes) bytes") }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw SecretsError("the secrets file is not a JSON object of names to whsec_ secrets")
        }
        guard object.count <= maxSecrets else { throw SecretsError("the secrets file has \(object.count) secrets; at most \(maxSecrets)") }
        var signers: [String: WebhookSignature] = [:]
        for (name, value) in object {
            guard !name.isEmpty, name.utf8.count <= 40, name.utf8.allSatisfy({ ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 }) else {
                throw SecretsError("secret name \"\(name.prefix(40))\" is not 1–40 of a-z, 0-9 and -")
            }
            guard let text = value as? String, let signer = WebhookSignature(encoded: text) else {
                throw SecretsError("secret \(name) is not whsec_ and base64 of 1–\(WebhookSignature.maxSecretBytes) bytes")
            }
            signers[name] = signer
        }
        return signers
    }
}

/// Why the secrets file was not used (its text never includes a secret).
struct SecretsError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
