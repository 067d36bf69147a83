import Messages
import Policy
import Testing

@Suite("Location authorization policy")
struct AuthorizationPolicyTests {
    /// Every authorization × foreground/background: the refusal a phone gets for a location or
    /// sighting (nil = accepted) and whether every piece of its location state must be dropped.
    static let matrix: [(Authorization, Bool, String?, Bool)] = [
        (.always, true, nil, false),
        (.always, false, nil, false),
        (.whenInUse, true, nil, false),
        (.whenInUse, false, "location.notInForeground", false),
        (.allowOnce, true, nil, false),
        (.allowOnce, false, "location.oneTimeGrantExpired", true),
        (.denied, true, "location.authorizationDenied", true),
        (.denied, false, "location.authorizationDenied", true),
        (.restricted, true, "location.authorizationRestricted", true),
        (.restricted, false, "location.authorizationRestricted", true),
        (.notDetermined, true, "location.authorizationNotDetermined", true),
        (.notDetermined, false, "location.authorizationNotDetermined", true),
    ]

    @Test("the matrix covers every authorization in both app states")
    func matrixIsComplete() {
        for authorization in Authorization.allCases {
            for foreground in [true, false] {
                #expect(Self.matrix.filter { $0.0 == authorization && $0.1 == foreground }.count == 1,
                        "\(authorization) foreground=\(foreground)")
            }
        }
    }

    @Test("refusal code per authorization and app state", arguments: matrix)
    func refusal(authorization: Authorization, foreground: Bool, code: String?, purge: Bool) {
        let refusal = AuthorizationPolicy.refusal(authorization: authorization, foreground: foreground)
        #expect(refusal?.code == code)
        if let refusal { #expect(!refusal.message.isEmpty) }
    }

    @Test("withdrawal drops every piece of location state; whenInUse in the background keeps it", arguments: matrix)
    func requiresPurge(authorization: Authorization, foreground: Bool, code: String?, purge: Bool) {
        #expect(AuthorizationPolicy.requiresPurge(authorization: authorization, foreground: foreground) == purge)
    }

    @Test("a purge always comes with a refusal: state is never dropped while data is still accepted", arguments: matrix)
    func purgeImpliesRefusal(authorization: Authorization, foreground: Bool, code: String?, purge: Bool) {
        if AuthorizationPolicy.requiresPurge(authorization: authorization, foreground: foreground) {
            #expect(AuthorizationPolicy.refusal(authorization: authorization, foreground: foreground) != nil)
        }
    }
}
