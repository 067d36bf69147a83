import Foundation
import Messages

/// Localized notification text: per message and language a title and a body with `{cafe}`,
/// `{time}`, `{reason}` and `{text}` placeholders.
public enum MessageCatalog {
    /// A notification's title and body.
    public struct Text: Sendable, Equatable {
        public let title: String
        public let body: String
    }

    /// One catalog entry. `orderCancelled` has a second form that gives the reason.
    public enum Message: String, Sendable, CaseIterable {
        case orderReady, orderCancelled, orderCancelledWithReason, pickupReminder, noShow, regionReminder, orderDelayed, orderLate
    }

    /// The languages every message exists in; anything else falls back to English.
    public static let languages = ["en", "de", "fr", "es", "ja"]

    static let table: [Message: [String: Text]] = [
        .orderReady: [
            "en": Text(title: "Your order is ready", body: "Your order from {cafe} is ready for pickup. Pickup window: {time}."),
            "de": Text(title: "Deine Bestellung ist fertig", body: "Deine Bestellung von {cafe} ist abholbereit. Abholzeit: {time}."),
            "fr": Text(title: "Votre commande est prête", body: "Votre commande de {cafe} est prête à être retirée. Créneau de retrait : {time}."),
            "es": Text(title: "Tu pedido está listo", body: "Tu pedido de {cafe} está listo para recoger. Franja de recogida: {time}."),
            "ja": Text(title: "ご注文の準備ができました", body: "{cafe}のご注文の準備ができました。受け取り時間：{time}"),
        ],
        .orderCancelled: [
            "en": Text(title: "Your order was cancelled", body: "Your order from {cafe} for {time} was cancelled."),
            "de": Text(title: "Deine Bestellung wurde storniert", body: "Deine Bestellung von {cafe} für {time} wurde storniert."),
            "fr": Text(title: "Votre commande a été annulée", body: "Votre commande de {cafe} pour {time} a été annulée."),
            "es": Text(title: "Tu pedido se ha cancelado", body: "Tu pedido de {cafe} para {time} se ha cancelado."),
            "ja": Text(title: "ご注文はキャンセルされました", body: "{time}の{cafe}のご注文はキャンセルされました。"),
        ],
        .orderCancelledWithReason: [
            "en": Text(title: "Your order was cancelled", body: "Your order from {cafe} for {time} was cancelled. Reason: {reason}"),
            "de": Text(title: "Deine Bestellung wurde storniert", body: "Deine Bestellung von {cafe} für {time} wurde storniert. Grund: {reason}"),
            "fr": Text(title: "Votre commande a été annulée", body: "Votre commande de {cafe} pour {time} a été annulée. Motif : {reason}"),
            "es": Text(title: "Tu pedido se ha cancelado", body: "Tu pedido de {cafe} para {time} se ha cancelado. Motivo: {reason}"),
            "ja": Text(title: "ご注文はキャンセルされました", body: "{time}の{cafe}のご注文はキャンセルされました。理由：{reason}"),
        ],
        .pickupReminder: [
            "en": Text(title: "Your pickup window is coming up", body: "Your order from {cafe} can be picked up from {time}."),
            "de": Text(title: "Deine Abholzeit rückt näher", body: "Deine Bestellung von {cafe} kann ab {time} abgeholt werden."),
            "fr": Text(title: "Votre créneau de retrait approche", body: "Votre commande de {cafe} pourra être retirée à partir de {time}."),
            "es": Text(title: "Se acerca tu franja de recogida", body: "Podrás recoger tu pedido de {cafe} a partir de {time}."),
            "ja": Text(title: "受け取り時間が近づいています", body: "{cafe}のご注文は{time}から受け取れます。"),
        ],
        .noShow: [
            "en": Text(title: "Your order was not picked up", body: "Your order from {cafe} for {time} was not picked up in its pickup window."),
            "de": Text(title: "Deine Bestellung wurde nicht abgeholt", body: "Deine Bestellung von {cafe} für {time} wurde im Abholzeitraum nicht abgeholt."),
            "fr": Text(title: "Votre commande n'a pas été retirée", body: "Votre commande de {cafe} pour {time} n'a pas été retirée pendant son créneau de retrait."),
            "es": Text(title: "No se recogió tu pedido", body: "Tu pedido de {cafe} para {time} no se recogió en su franja de recogida."),
            "ja": Text(title: "ご注文が受け取られませんでした", body: "{time}の{cafe}のご注文は受け取り時間内に受け取られませんでした。"),
        ],
        .regionReminder: [
            "en": Text(title: "Reminder at {cafe}", body: "{text}"),
            "de": Text(title: "Erinnerung bei {cafe}", body: "{text}"),
            "fr": Text(title: "Rappel à {cafe}", body: "{text}"),
            "es": Text(title: "Recordatorio en {cafe}", body: "{text}"),
            "ja": Text(title: "{cafe}でのリマインダー", body: "{text}"),
        ],
        .orderDelayed: [
            "en": Text(title: "A moment longer", body: "Your order from {cafe} needs a moment longer. We'll tell you as soon as it is ready."),
            "de": Text(title: "Noch einen Moment", body: "Deine Bestellung von {cafe} braucht noch einen Moment. Wir sagen dir Bescheid, sobald sie fertig ist."),
            "fr": Text(title: "Encore un instant", body: "Votre commande de {cafe} a besoin d'un instant de plus. Nous vous préviendrons dès qu'elle sera prête."),
            "es": Text(title: "Un momento más", body: "Tu pedido de {cafe} necesita un momento más. Te avisaremos en cuanto esté listo."),
            "ja": Text(title: "もう少々お待ちください", body: "{cafe}のご注文はもう少し時間がかかります。準備ができ次第お知らせします。"),
        ],
        .orderLate: [
            "en": Text(title: "Your order is running late", body: "Your order from {cafe} for {time} is running late. We'll tell you as soon as it is ready."),
            "de": Text(title: "Deine Bestellung verspätet sich", body: "Deine Bestellung von {cafe} für {time} verspätet sich. Wir sagen dir Bescheid, sobald sie fertig ist."),
            "fr": Text(title: "Votre commande a du retard", body: "Votre commande de {cafe} pour {time} a du retard. Nous vous préviendrons dès qu'elle sera prête."),
            "es": Text(title: "Tu pedido va con retraso", body: "Tu pedido de {cafe} para {time} va con retraso. Te avisaremos en cuanto esté listo."),
            "ja": Text(title: "ご注文が遅れています", body: "{time}の{cafe}のご注文が遅れています。準備ができ次第お知らせします。"),
        ],
    ]

    /// The catalog language of a BCP 47 tag or locale ("de-CH", "de_CH" → "de"); nil when the
    /// catalog does not have it.
    public static func catalogLanguage(for tag: String) -> String? {
        let base = String(tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).first ?? "").lowercased()
        return languages.contains(base) ? base : nil
    }

    /// The language text for `tag` is written in: its base language, else English.
    public static func language(for tag: String) -> String {
        catalogLanguage(for: tag) ?? "en"
    }

    /// The text of `message` in `language` (English when unsupported) with the placeholders filled.
    public static func render(_ message: Message, language: String, values: [String: String]) -> Text? {
        guard let text = table[message]?[self.language(for: language)] else { return nil }
        return Text(title: fill(text.title, values), body: fill(text.body, values))
    }

    /// The text of an order notification `kind`; the cancelled form with the reason when there is one.
    public static func render(_ kind: NotificationKind, language: String, cafe: String, time: String, reason: String? = nil, text: String? = nil) -> Text? {
        let message: Message = switch kind {
        case .orderReady: .orderReady
        case .orderCancelled: (reason?.isEmpty ?? true) ? .orderCancelled : .orderCancelledWithReason
        case .pickupReminder: .pickupReminder
        case .noShow: .noShow
        case .regionReminder: .regionReminder
        case .orderDelayed: .orderDelayed
        case .orderLate: .orderLate
        }
        return render(message, language: language, values: ["cafe": cafe, "time": time, "reason": reason ?? "", "text": text ?? ""])
    }

    /// Fills `{name}` placeholders in one pass over the template: a value that itself contains
    /// "{time}" (a café name, the user's reminder text) is kept as written.
    static func fill(_ template: String, _ values: [String: String]) -> String {
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            let after = rest[rest.index(after: open)...]
            if let close = after.firstIndex(of: "}"), let value = values[String(after[..<close])] {
                out += value
                rest = after[after.index(after: close)...]
            } else {
                out += "{"
                rest = after
            }
        }
        return out + rest
    }
}
