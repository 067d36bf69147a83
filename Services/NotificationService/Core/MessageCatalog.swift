import Foundation
import Messages

/// Localized notification text, per language, with `{cafe}` and `{time}` placeholders.
public enum MessageCatalog {
    public struct Text: Sendable, Equatable {
        public let title: String
        public let body: String
    }

    /// The languages every message exists in; anything else falls back to English.
    public static let languages = ["en", "de", "fr", "es", "ja"]

    static let table: [NotificationKind: [String: Text]] = [
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
    ]

    /// The base language of a BCP 47 tag or locale ("de-CH", "de_CH" → "de"); English when unsupported.
    public static func language(for tag: String) -> String {
        let base = String(tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).first ?? "").lowercased()
        return languages.contains(base) ? base : "en"
    }

    /// The text of `kind` in `language` with the placeholders filled.
    public static func render(_ kind: NotificationKind, language: String, cafe: String, time: String) -> Text? {
        guard let text = table[kind]?[self.language(for: language)] else { return nil }
        // One pass over the template: a café name containing "{time}" stays as it is.
        func fill(_ s: String) -> String {
            s.components(separatedBy: "{time}").map { $0.replacingOccurrences(of: "{cafe}", with: cafe) }.joined(separator: time)
        }
        return Text(title: fill(text.title), body: fill(text.body))
    }
}
