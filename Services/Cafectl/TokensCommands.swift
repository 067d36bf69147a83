import Foundation
import Messages
import ServiceRuntime

/// `cafectl tokens`: the HTTP edge's long-lived bearer tokens for kiosks and kitchen tablets, and
/// revoking any session, on the edge's request socket (operator only). The token is printed once,
/// by `issue`; `list` shows sessions by their public ids.
extension ClientCommands {
    static let tokenKind = Option<String?>("kind", help: "kiosk, kitchen or operator (list: also user or guest)")
    static let label = Option<String?>("label", help: "the operator's name for the device, e.g. counter-left")
    static let days = Option.count("days", Int.min...Int.max, default: 365, help: "how many days the token lasts (1–400; an operator's 1–90, 30 unless given)")
    static let allSessions = Option.flag("all", default: false, help: "also revoked and expired sessions")
    static let listLimit = Option.count("limit", Int.min...Int.max, default: 100, help: "the most sessions listed (1–1000)")

    static let tokensIssue = [CommandFlag(tokenKind), CommandFlag(cafe), CommandFlag(label), integer(days)]
    static let tokensList = [CommandFlag(tokenKind), CommandFlag(allSessions), integer(listLimit)]

    func runTokens(_ args: CommandArguments) throws {
        let words = args.words
        switch words.count > 1 ? words[1] : "" {
        case "issue":
            guard words.count == 2 else { throw UsageError("usage: cafectl tokens issue --kind kiosk|kitchen --cafe C | --kind operator [--label L] [--days 365]") }
            let flags = try values(args, Self.tokensIssue)
            let request = TokenIssueRequest(kind: try flags.required(Self.tokenKind), cafeId: flags[Self.cafe], label: flags[Self.label],
                                            // An operator's status token lasts 30 days unless --days says otherwise.
                                            lifetimeDays: flags[Self.tokenKind] == "operator" && !flags.isGiven(Self.days) ? nil : flags[Self.days])
            _ = try call(Endpoints.edge, Op.tokenIssue, request, as: TokenIssued.self)
        case "list":
            guard words.count == 2 else { throw UsageError("usage: cafectl tokens list [--kind K] [--all true] [--limit 100]") }
            let flags = try values(args, Self.tokensList)
            let request = TokenListRequest(kind: flags[Self.tokenKind], includeInactive: flags[Self.allSessions], limit: flags[Self.listLimit])
            _ = try call(Endpoints.edge, Op.tokenList, request, as: TokenList.self)
        case "revoke":
            guard words.count == 3 else { throw UsageError("usage: cafectl tokens revoke <session-id>") }
            _ = try call(Endpoints.edge, Op.tokenRevoke, TokenRevokeRequest(sessionId: words[2]), as: TokenSession.self)
        default:
            throw UsageError("unknown command \"\(words.joined(separator: " "))\" (see cafectl help)")
        }
    }
}
