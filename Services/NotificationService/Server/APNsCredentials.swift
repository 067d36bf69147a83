import Foundation
import Identity
import Messages

/// The team's APNs signing key and the provider token made with it. The token is reused for
/// `reuseSeconds` (APNs refuses one renewed more often than every 20 minutes and one older than
/// an hour). A key that cannot be read, or that APNs refused (403), is broken: no push is sent
/// until `reload()` (SIGHUP) reads a key file again. Used on the service's reactor thread only.
final class APNsCredentials {
    /// A token is renewed after 50 minutes: inside APNs' 20–60 minute window, with room for clock skew.
    static let reuseSeconds = 50.0 * 60

    private let settings: APNsSettings
    private var signer: ES256Signer?
    private var token: (bearer: String, issuedAt: Timestamp)?
    /// Why nothing can be sent; nil when the key is usable.
    private(set) var problem: String?

    init(settings: APNsSettings) {
        self.settings = settings
        reload()
    }

    /// Reads the key file again; a key that loads clears a refusal.
    @discardableResult
    func reload() -> Bool {
        token = nil
        guard let file = settings.keyFile else {
            signer = nil
            problem = "no --apns-key-file"
            return false
        }
        guard settings.keyID.count == 10, settings.teamID.count == 10 else {
            signer = nil
            problem = "--apns-key-id and --apns-team-id must be Apple's 10-character ids"
            return false
        }
        do {
            signer = try ES256Signer(file: file, keyID: settings.keyID)
            problem = nil
            return true
        } catch {
            signer = nil
            problem = "\(error)"
            return false
        }
    }

    /// The provider token to send with at `now`; nil while the key is broken.
    func bearer(now: Timestamp) -> String? {
        guard problem == nil, let signer else { return nil }
        if let token, now.seconds(since: token.issuedAt) < Self.reuseSeconds, now >= token.issuedAt { return token.bearer }
        do {
            let bearer = try signer.providerToken(teamID: settings.teamID, issuedAt: now)
            token = (bearer, now)
            return bearer
        } catch {
            problem = "\(error)"
            return nil
        }
    }

    /// APNs refused the key (403): hold every push until the key file is read again.
    func refused(_ reason: String) {
        problem = "APNs refused the key: \(reason)"
        token = nil
    }

    /// APNs found the token too old (clock skew): the next push gets a new one.
    func renew() { token = nil }
}
