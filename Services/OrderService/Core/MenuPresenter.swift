import Campus
import Messages

/// Turns a café's menu into what a user sees: every price formatted in the café's currency for
/// the user's locale (the currency never follows the locale).
public final class MenuPresenter {
    private let money = MoneyFormatter()

    /// A presenter with its own money formatter.
    public init() {}

    /// An amount of the café's currency as the locale writes it.
    public func price(_ minorUnits: Int64, cafe: Cafe, locale: String) -> PriceView {
        PriceView(minorUnits: minorUnits, currency: cafe.currency, formatted: money.format(minorUnits: minorUnits, currency: cafe.currency, locale: locale))
    }

    /// The café's menu for the locale, naming the rule that chose the café; items in
    /// `unavailable` (86'd) are shown with `available: false`.
    public func menu(_ cafe: Cafe, rule: MenuRule, locale: String, unavailable: Set<String> = []) -> MenuReply {
        MenuReply(
            cafe: CafeSummary(id: cafe.id, name: cafe.name, timeZone: cafe.timeZone, currency: cafe.currency),
            rule: rule,
            items: cafe.menu.map { item in
                MenuItemView(id: item.id, name: item.name, station: item.station, price: price(item.price, cafe: cafe, locale: locale),
                             modifiers: item.modifiers.map { ModifierView(id: $0.id, name: $0.name, price: price($0.price, cafe: cafe, locale: locale)) },
                             available: !unavailable.contains(item.id))
            })
    }
}
