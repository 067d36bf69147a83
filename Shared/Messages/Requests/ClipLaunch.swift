/// How an App Clip was invoked (APActivationPayload). Only a physical code at the café can have
/// its location confirmed; a clip opened from Safari, Messages, Maps or Spotlight cannot.
public enum ClipInvocation: String, Codable, Sendable, CaseIterable {
    case appClipCode, nfc, qrCode, safari, messages, maps, spotlight

    public var isPhysicalCode: Bool { self == .appClipCode || self == .nfc || self == .qrCode }
}

/// The launch an App Clip order comes from: the code's URL, how it was scanned, and when.
public struct ClipLaunch: Codable, Sendable, Equatable {
    /// The invocation URL, one the catalog issued for a café (`Cafe.clipCodes`).
    public var url: String
    public var invocation: ClipInvocation
    /// When the code was scanned: region-monitor confirms where the phone was then.
    public var acquiredAt: Timestamp
    public init(url: String, invocation: ClipInvocation, acquiredAt: Timestamp) {
        self.url = url
        self.invocation = invocation
        self.acquiredAt = acquiredAt
    }
}
