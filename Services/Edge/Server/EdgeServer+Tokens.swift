import Identity
import Messages
import ServiceRuntime

/// The token ops on the edge's request socket (operator only, by the op table): kiosks', kitchen
/// tablets' and the status page's long-lived bearer tokens, issued, listed and revoked by `cafectl tokens`.
/// The token is in `token.issue`'s reply and nowhere else: not in a log line, not in a list.
extension EdgeServer {
    func routeTokenOps() {
        let router = requests.router
        router.on(Op.tokenIssue, TokenIssueRequest.self) { [unowned self] body in try issueToken(body) }
        router.on(Op.tokenList, TokenListRequest.self) { [unowned self] body in try listTokens(body) }
        router.on(Op.tokenRevoke, TokenRevokeRequest.self) { [unowned self] body in try revokeToken(body) }
    }

    func issueToken(_ request: TokenIssueRequest) throws -> TokenIssued {
        guard let kind = SessionKind(rawValue: request.kind), kind.isDeviceToken else {
            throw ServiceError(.invalidField, "kind must be kiosk, kitchen or operator, not \(Quoting.quoted(request.kind))")
        }
        // A kiosk or kitchen serves one café; an operator's status-page token none.
        guard (kind == .operator) == (request.cafeId == nil) else {
            throw ServiceError(.invalidField, kind == .operator ? "an operator token has no cafeId" : "a \(kind.rawValue) token needs cafeId")
        }
        if let days = request.lifetimeDays, !(1...400).contains(days) {
            throw ServiceError(.invalidField, "lifetimeDays must be 1–400")
        }
        do {
            let (session, token) = try store.issue(kind, for: SessionPrincipal(cafeId: request.cafeId), label: request.label,
                                                   lifetime: request.lifetimeDays.map { Double($0) * 86_400 })
            logger.info("device token issued", ["session.id": session.id, "kind": kind.rawValue, "cafe.id": request.cafeId ?? "-"])
            return TokenIssued(token: token.presented, session: Self.tokenSession(session))
        } catch {
            throw Self.serviceError(error)
        }
    }

    func listTokens(_ request: TokenListRequest) throws -> TokenList {
        var kind: SessionKind?
        if let name = request.kind {
            guard let known = SessionKind(rawValue: name) else {
                throw ServiceError(.invalidField, "kind must be user, guest, kiosk, kitchen or operator, not \(Quoting.quoted(name))")
            }
            kind = known
        }
        if let limit = request.limit, !(1...SessionStore.maxListed).contains(limit) {
            throw ServiceError(.invalidField, "limit must be 1–\(SessionStore.maxListed)")
        }
        do {
            let sessions = try store.list(kind: kind, includeInactive: request.includeInactive ?? false, limit: request.limit ?? 100)
            return TokenList(sessions: sessions.map(Self.tokenSession))
        } catch {
            throw Self.serviceError(error)
        }
    }

    func revokeToken(_ request: TokenRevokeRequest) throws -> TokenSession {
        do {
            let session = try store.revoke(id: request.sessionId)
            logger.info("session revoked", ["session.id": session.id, "kind": session.kind.rawValue])
            return Self.tokenSession(session)
        } catch {
            throw Self.serviceError(error)
        }
    }

    static func tokenSession(_ session: Session) -> TokenSession {
        TokenSession(sessionId: session.id, kind: session.kind.rawValue, userId: session.userId, deviceId: session.deviceId, cafeId: session.cafeId,
                     label: session.label, createdAt: session.createdAt, expiresAt: session.expiresAt, revokedAt: session.revokedAt)
    }

    /// An identity refusal as the op's error: the store failing is internal, anything else the request's.
    static func serviceError(_ error: Error) -> ServiceError {
        guard let error = error as? IdentityError else { return ServiceError(.internalError, "\(error)") }
        // No session with the id, or a field the kind does not allow, is the request's fault.
        return error.code == .sessionStorage ? ServiceError(.internalError, error.message) : ServiceError(.invalidField, error.message)
    }
}
