import EdgeCore
import Foundation
import Identity
import Messages
import Policy

/// The session routes and the bearer check every other route starts with: sign in with an OpenID
/// Connect ID token, an App Clip's guest session, the current session, sign out. Tokens appear only
/// in the reply that issues them; nothing here logs. On the edge's reactor thread (the store's).
public final class SessionEndpoints {
    let store: SessionStore
    private(set) var validator: IDTokenValidator?
    private(set) var configuration: IssuerConfiguration
    /// ID tokens that signed in already (nil: not remembered, in tests of the rest).
    let usedTokens: UsedIDTokens?
    /// Which account each device belongs to (nil: not checked, in tests of the rest).
    let devices: DeviceBindings?
    let clock: any WallClock

    /// Sessions in `store`; sign-in checks tokens of `configuration`'s issuers on `clock` (none:
    /// 503), each signing in once when `usedTokens` remembers them, and a device serves one
    /// account when `devices` binds them.
    public init(store: SessionStore, configuration: IssuerConfiguration, clock: any WallClock, usedTokens: UsedIDTokens? = nil,
                devices: DeviceBindings? = nil) throws(IdentityError) {
        self.store = store
        self.configuration = configuration
        self.usedTokens = usedTokens
        self.devices = devices
        self.clock = clock
        validator = configuration.issuers.isEmpty ? nil : try IDTokenValidator(issuers: configuration.issuers, clock: clock)
    }

    /// Uses `configuration`'s issuers from now on (SIGHUP re-reads the issuers file and the JWKS
    /// files it names): a key an issuer rotated in signs in at once, one it dropped no longer does;
    /// sessions already issued stay. Throws, changing nothing, when the configuration cannot be used.
    public func use(_ configuration: IssuerConfiguration) throws(IdentityError) {
        let fresh = configuration.issuers.isEmpty ? nil : try IDTokenValidator(issuers: configuration.issuers, clock: clock)
        self.configuration = configuration
        validator = fresh
    }

    /// The longest nonce read (an app's is a base64 or hex digest, 43–64 characters).
    public static let maxNonceBytes = 256

    /// `POST /v1/sessions`'s body: the ID token, the nonce the app put in its authentication
    /// request (the token must carry it), and the device the session is bound to.
    struct SignIn: Decodable {
        let idToken: String
        let nonce: String
        let deviceId: String
    }

    /// `POST /v1/sessions/guest`'s body: the App Clip's device, and the café of the code it was launched from.
    struct Guest: Decodable {
        let deviceId: String
        let cafeId: String?
    }

    // MARK: Bearer

    /// The session an `Authorization: Bearer` field names; nil without the field; a 401 problem
    /// for a token of any wrong shape, unknown, revoked or expired; 503 when the store fails.
    public func authenticate(_ headers: HTTPHeaders) throws(Problem) -> Session? {
        let fields = headers.values("Authorization")
        guard !fields.isEmpty else { return nil }
        guard fields.count == 1, let field = fields.first, field.count > 7, field.prefix(7).lowercased() == "bearer " else {
            throw Self.unauthenticated("send one Authorization: Bearer <token> field", reason: "session.malformed")
        }
        do {
            return try store.authenticate(String(field.dropFirst(7)).trimmingCharacters(in: .whitespaces))
        } catch {
            throw Self.problem(error)
        }
    }

    /// The role a session acts in at the services: a user or guest is a phone.
    public static func role(of session: Session) -> Role {
        switch session.kind {
        case .user, .guest: .phone
        case .kiosk: .kiosk
        case .kitchen: .kitchen
        case .operator: .operator
        }
    }

    /// The principal the edge names in `onBehalfOf` for `session`: its public id as the name.
    public static func principal(of session: Session) -> OnBehalfOf {
        switch session.kind {
        case .user, .guest: .phone(session.id, userId: session.userId, deviceId: session.deviceId ?? "")
        case .kiosk, .kitchen: .counter(role(of: session).rawValue, session.id, cafeId: session.cafeId ?? "")
        // Named for logs only: no route that forwards an op is open to an operator's session.
        case .operator: OnBehalfOf(role: Role.operator.rawValue, name: session.id)
        }
    }

    // MARK: Routes

    /// The answer to one session route; `session` is the bearer's (the router required one where the route does).
    public func answer(_ action: Route.SessionAction, body: [UInt8], session: Session?) -> EdgeResponse {
        do throws(Problem) {
            switch action {
            case .signIn: return try signIn(body)
            case .guest: return try guest(body)
            case .current:
                guard let session else { throw Self.unauthenticated("a session is needed", reason: "session.unknown") }
                return Self.reply(session, token: nil)
            case .signOut:
                guard let session else { throw Self.unauthenticated("a session is needed", reason: "session.unknown") }
                do { return Self.reply(try store.revoke(id: session.id), token: nil) } catch { throw Self.problem(error) }
            }
        } catch {
            return error.response
        }
    }

    func signIn(_ body: [UInt8]) throws(Problem) -> EdgeResponse {
        let request: SignIn = try Self.decode(body, "idToken, nonce and deviceId")
        guard (1...Self.maxNonceBytes).contains(request.nonce.utf8.count) else {
            throw Problem(.invalidField, "nonce must be 1–\(Self.maxNonceBytes) bytes")
        }
        guard let validator else {
            throw Problem(.httpServiceUnavailable, "sign-in is not configured on this edge (no --issuers)")
        }
        let user: SignedInUser
        do { user = try validator.validate(request.idToken, expectedNonce: request.nonce) } catch { throw Self.problem(error) }
        guard let userId = configuration.userId(of: user) else {
            throw Self.unauthenticated("the issuer's subject is not a platform user id", reason: "idToken.subject")
        }
        try requireDevice(request.deviceId, for: userId)
        // Last, so a token refused for another reason is not used up.
        if let usedTokens {
            let first: Bool
            do { first = try usedTokens.claim(request.idToken, expiresAt: user.expiresAt) } catch { throw Self.problem(error) }
            guard first else {
                throw Self.unauthenticated("this ID token has signed in already; get a new one from the identity provider", reason: "idToken.replayed")
            }
        }
        return try issue(.user, SessionPrincipal(userId: userId, deviceId: request.deviceId))
    }

    /// Refuses (403) a device bound to another user, or for a guest (`userId` nil) to any user.
    func requireDevice(_ deviceId: String, for userId: String?) throws(Problem) {
        guard let devices else { return }
        let owner: String??
        do { owner = try devices.owner(of: deviceId) } catch { throw Self.problem(error) }
        guard case .some(.some(let user)) = owner, user != userId else { return }
        throw Problem(.forbidden, userId == nil ? "device \(Quoting.quoted(deviceId)) belongs to a signed-in account; sign in instead"
                                                : "device \(Quoting.quoted(deviceId)) belongs to another account")
    }

    func guest(_ body: [UInt8]) throws(Problem) -> EdgeResponse {
        let request: Guest = try Self.decode(body, "deviceId (and cafeId)")
        try requireDevice(request.deviceId, for: nil)
        return try issue(.guest, SessionPrincipal(deviceId: request.deviceId, cafeId: request.cafeId))
    }

    func issue(_ kind: SessionKind, _ principal: SessionPrincipal) throws(Problem) -> EdgeResponse {
        do {
            let (session, token) = try store.issue(kind, for: principal)
            if let devices, let deviceId = principal.deviceId { try devices.bind(deviceId, to: principal.userId, at: clock.now()) }
            return Self.reply(session, token: token)
        } catch {
            throw Self.problem(error)
        }
    }

    // MARK: Bodies and refusals

    /// The session as clients see it (`Session` in the OpenAPI document), with the token once.
    public static func view(_ session: Session, token: SessionToken?) -> EdgeCore.JSONValue {
        var members: [(String, EdgeCore.JSONValue)] = []
        if let token { members.append(("token", .string(token.presented))) }
        members.append(("sessionId", .string(session.id)))
        members.append(("kind", .string(session.kind.rawValue)))
        members.append(("role", .string(role(of: session).rawValue)))
        for (name, value) in [("userId", session.userId), ("deviceId", session.deviceId), ("cafeId", session.cafeId), ("label", session.label)] {
            if let value { members.append((name, .string(value))) }
        }
        members.append(("createdAt", .string(session.createdAt.rfc3339)))
        members.append(("expiresAt", .string(session.expiresAt.rfc3339)))
        if let revoked = session.revokedAt { members.append(("revokedAt", .string(revoked.rfc3339))) }
        return .object(members)
    }

    static func reply(_ session: Session, token: SessionToken?) -> EdgeResponse {
        var response = EdgeResponse.json(view(session, token: token).encoded())
        // A response carrying a token is never stored by a cache on the way.
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }

    /// The body as `T` (the router checked it is one bounded JSON object); 422 when a member is missing or of the wrong type.
    static func decode<T: Decodable>(_ body: [UInt8], _ members: String) throws(Problem) -> T {
        do { return try JSONDecoder().decode(T.self, from: Data(body)) } catch {
            throw Problem(.invalidField, "the body is a JSON object with \(members), each a string")
        }
    }

    static func unauthenticated(_ detail: String, reason: String) -> Problem {
        Problem(.httpUnauthenticated, detail, details: ["reason": reason], headers: [("WWW-Authenticate", "Bearer")])
    }

    /// An identity refusal as a problem: a bad token or session 401 (its code in `details.reason`),
    /// a principal the kind does not allow 422, the store failing 503.
    static func problem(_ error: IdentityError) -> Problem {
        switch error.code {
        case .sessionInvalid: Problem(.invalidField, error.message)
        case .sessionNotFound: Problem(.httpNotFound, error.message)
        case .sessionStorage, .crypto: Problem(.httpServiceUnavailable, "the session store failed: \(error.message)")
        default: unauthenticated(error.message, reason: error.code.rawValue)
        }
    }
}
