import Campus
import Messages

/// The App Clip rules, in APActivationPayload's terms: the URL must be a code the catalog issued
/// for this café (`doesNotMatch`), the clip must come from a physical code and location must be
/// allowed (`disallowed`), and region-monitor must place the phone inside the café's region when
/// the code was scanned (`notInRegion` otherwise).
public enum AppClipRules {
    /// How far ahead of the service's clock a phone's scan time may be (clocks differ a little).
    public static let clockSkewSeconds = 60.0

    /// What is checked before region-monitor is asked: the code, how the clip was opened, the scan time.
    public static func check(_ clip: ClipLaunch, cafe: Cafe, catalog: CampusCatalog, now: Timestamp) throws(ServiceError) {
        let url = String(clip.url.prefix(200))
        guard let issuer = catalog.cafe(clipCode: clip.url) else {
            throw ServiceError(.clipDoesNotMatch, "\(url) is not an App Clip code this campus issued")
        }
        guard issuer.id == cafe.id else {
            throw ServiceError(.clipDoesNotMatch, "the code \(url) belongs to \(issuer.name), not \(cafe.name)")
        }
        guard clip.invocation.isPhysicalCode else {
            throw ServiceError(.clipDisallowed, "the clip was opened from \(clip.invocation.rawValue), not from a code at the café, so its location cannot be confirmed",
                               details: ["reason": "notPhysicalCode"])
        }
        guard clip.acquiredAt <= now.adding(seconds: clockSkewSeconds) else {
            throw ServiceError(.invalidField, "clip.acquiredAt \(clip.acquiredAt) is in the future")
        }
    }

    /// What region-monitor's answer means for the order: `yes` lets it through, anything else
    /// refuses it before the payment is taken.
    public static func verdict(_ answer: LocationConfirmation, cafe: Cafe) throws(ServiceError) {
        switch answer.result {
        case .yes:
            return
        case .no:
            throw ServiceError(.clipNotInRegion, "the phone was not at \(cafe.name) when the code was scanned; no payment token was recorded")
        case .disallowed:
            let reason = answer.reason?.rawValue ?? "unknown"
            throw ServiceError(.clipDisallowed, "location could not be confirmed (\(reason)); no payment token was recorded", details: ["reason": reason])
        }
    }

    /// The refusal when region-monitor could not be asked: the order may simply be tried again.
    public static func unavailable(_ error: any Error) -> ServiceError {
        ServiceError(.confirmationUnavailable, "region-monitor could not confirm the location (\(error)); no payment token was recorded, try again")
    }
}
