import Messages
import NotifyCore
import Testing

@Suite("Notifications: localized text and delivery policy")
struct NotifyCoreTests {
    /// The order kinds, whose text names the café and the pickup time.
    static let orderKinds: [NotificationKind] = [.orderReady, .orderCancelled, .pickupReminder, .noShow]

    @Test("every catalog language renders every message with its placeholders filled",
          arguments: MessageCatalog.languages, MessageCatalog.Message.allCases)
    func renderEveryMessage(language: String, message: MessageCatalog.Message) throws {
        let values = ["cafe": "Café München", "time": "25.06.2020, 09:41", "reason": "Küche geschlossen", "text": "Bring the mug back"]
        let text = try #require(MessageCatalog.render(message, language: language, values: values))
        #expect(!text.title.isEmpty && !text.body.isEmpty)
        #expect((text.title + text.body).contains("Café München"))
        for placeholder in ["{cafe}", "{time}", "{reason}", "{text}"] {
            #expect(!text.title.contains(placeholder) && !text.body.contains(placeholder), "\(message) in \(language): \(placeholder) left unfilled")
        }
        switch message {
        case .regionReminder: #expect(text.body == "Bring the mug back")
        // "A moment longer" follows a ready the customer already had, with its time: no time again.
        case .orderDelayed: #expect(!text.body.contains("25.06.2020, 09:41"))
        case .orderCancelledWithReason: #expect(text.body.contains("Küche geschlossen") && text.body.contains("25.06.2020, 09:41"))
        default: #expect(text.body.contains("25.06.2020, 09:41"))
        }
    }

    @Test("the catalog covers en, de, fr, es and ja, each in its own words", arguments: MessageCatalog.Message.allCases)
    func distinctLanguages(message: MessageCatalog.Message) throws {
        #expect(Set(MessageCatalog.languages) == ["en", "de", "fr", "es", "ja"])
        let titles = try MessageCatalog.languages.map { try #require(MessageCatalog.render(message, language: $0, values: ["cafe": "X"])).title }
        #expect(Set(titles).count == MessageCatalog.languages.count)
    }

    @Test("the order notifications read differently from each other", arguments: MessageCatalog.languages)
    func kindsDiffer(language: String) {
        let titles = Self.orderKinds.compactMap { MessageCatalog.render($0, language: language, cafe: "X", time: "Y")?.title }
        #expect(Set(titles).count == Self.orderKinds.count)
    }

    @Test("a cancellation gives the reason when there is one", arguments: MessageCatalog.languages)
    func cancelReason(language: String) throws {
        let with = try #require(MessageCatalog.render(.orderCancelled, language: language, cafe: "X", time: "Y", reason: "out of oat milk"))
        let without = try #require(MessageCatalog.render(.orderCancelled, language: language, cafe: "X", time: "Y", reason: nil))
        #expect(with.body.contains("out of oat milk") && with.body.hasPrefix(String(without.body.prefix(4))))
        #expect(MessageCatalog.render(.orderCancelled, language: language, cafe: "X", time: "Y", reason: "") == without)
    }

    @Test("English text as a user sees it")
    func englishText() {
        let text = MessageCatalog.render(.orderReady, language: "en", cafe: "Caffè Macs", time: "Jun 25, 2020 at 9:41\u{202F}AM")
        #expect(text?.title == "Your order is ready")
        #expect(text?.body == "Your order from Caffè Macs is ready for pickup. Pickup window: Jun 25, 2020 at 9:41\u{202F}AM.")
    }

    @Test("language fallback: the base language, else English", arguments: [
        ("de-CH", "de"), ("de_CH", "de"), ("DE", "de"), ("fr-CA", "fr"), ("es_UY", "es"), ("es-419", "es"),
        ("ja-JP", "ja"), ("en-GB", "en"), ("pt", "en"), ("pt-BR", "en"), ("zh-Hans-CN", "en"), ("", "en"),
    ])
    func fallback(tag: String, language: String) {
        #expect(MessageCatalog.language(for: tag) == language)
        #expect((MessageCatalog.catalogLanguage(for: tag) == nil) == (language == "en" && !tag.lowercased().hasPrefix("en")))
    }

    @Test("an unsupported language gets the English text")
    func unsupportedRendersEnglish() {
        #expect(MessageCatalog.render(.orderReady, language: "pt", cafe: "X", time: "Y")
            == MessageCatalog.render(.orderReady, language: "en", cafe: "X", time: "Y"))
        #expect(MessageCatalog.render(.orderReady, language: "de-CH", cafe: "X", time: "Y")
            == MessageCatalog.render(.orderReady, language: "de", cafe: "X", time: "Y"))
    }

    // MARK: Delivery policy

    static func device(_ authorization: NotificationAuthorization, launchedAt: Timestamp = t0) -> DeviceRegistration {
        DeviceRegistration(deviceId: "phone-1", userId: "u1", channel: "bus", language: "en", locale: "en_US",
                           authorization: authorization, launchedAt: launchedAt)
    }

    static let hour = 3600.0

    @Test("whether a notification may be delivered now, and why not", arguments: [
        ("unknown device", nil, 0, "device.unknown"),
        ("denied", device(.denied), 0, "authorization.denied"),
        ("not determined", device(.notDetermined), 0, "authorization.notDetermined"),
        ("authorized", device(.authorized), 0, nil),
        ("authorized, launched long ago", device(.authorized), 1000 * hour, nil),
        ("provisional", device(.provisional), 0, nil),
        ("provisional, launched long ago", device(.provisional), 1000 * hour, nil),
        ("ephemeral at launch", device(.ephemeral), 0, nil),
        ("ephemeral after 7 h 59 min", device(.ephemeral), 8 * hour - 60, nil),
        ("ephemeral 1 ms before 8 h", device(.ephemeral), 8 * hour - 0.001, nil),
        ("ephemeral at 8 h", device(.ephemeral), 8 * hour, "ephemeral.expired"),
        ("ephemeral after 9 h", device(.ephemeral), 9 * hour, "ephemeral.expired"),
        ("ephemeral a week later", device(.ephemeral), 168 * hour, "ephemeral.expired"),
    ] as [(String, DeviceRegistration?, Double, String?)])
    func delivery(label: String, registration: DeviceRegistration?, after seconds: Double, reason: String?) {
        #expect(DeliveryPolicy.refusal(registration, now: .at(seconds)) == reason, "\(label)")
    }

    @Test("a new App Clip launch renews the ephemeral grant for another 8 hours")
    func renewal() {
        var registration = Self.device(.ephemeral, launchedAt: t0)
        #expect(DeliveryPolicy.refusal(registration, now: .at(9 * Self.hour)) == "ephemeral.expired")
        registration.launchedAt = .at(8.5 * Self.hour)
        #expect(registration.grantExpiresAt == .at(16.5 * Self.hour))
        #expect(DeliveryPolicy.refusal(registration, now: .at(9 * Self.hour)) == nil)
        #expect(DeliveryPolicy.refusal(registration, now: .at(16.5 * Self.hour - 0.001)) == nil)
        #expect(DeliveryPolicy.refusal(registration, now: .at(16.5 * Self.hour)) == "ephemeral.expired")
    }

    @Test("only an ephemeral grant expires", arguments: NotificationAuthorization.allCases)
    func grantExpiry(authorization: NotificationAuthorization) {
        let expected: Timestamp? = authorization == .ephemeral ? .at(8 * Self.hour) : nil
        #expect(Self.device(authorization).grantExpiresAt == expected)
    }
}

@Test("placeholders are filled in one pass: a café name containing {time} is kept as written")
func placeholdersFilledOnce() throws {
    let text = try #require(MessageCatalog.render(.orderReady, language: "en", cafe: "Café {time}", time: "9:41"))
    #expect(text.body == "Your order from Café {time} is ready for pickup. Pickup window: 9:41.")
}
