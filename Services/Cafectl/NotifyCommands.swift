import Foundation
import Messages

/// The notification commands, all answered by notification-service: registering a device (each
/// registration is a launch, renewing an App Clip's 8-hour grant), reading its inbox, and the
/// region reminders a user sets ("when I arrive at Caffè Macs, remind me …").
extension ClientCommands {
    func runNotify(_ args: inout Arguments) throws {
        let words = args.words
        switch (words[0], words.count > 1 ? words[1] : "") {
        case ("notify", "register"):
            try usage(words, 2, "notify register --device D [--user U] [--language en] [--locale en_US] [--authorization authorized]")
            let request = RegisterDevice(deviceId: try endpoints.identity.required("device", &args), userId: args.string("user"), channel: args.string("channel") ?? "bus",
                                         language: args.string("language") ?? "en", locale: args.string("locale") ?? "en_US",
                                         authorization: try enumValue(NotificationAuthorization.self, args.string("authorization") ?? "authorized", "authorization"))
            try args.checkAllUsed()
            _ = try call("notify", Op.deviceRegister, request, as: Registration.self)
        case ("inbox", _):
            try usage(words, 1, "inbox --device D [--since <notification-id>] [--limit 50]")
            let query = InboxQuery(deviceId: try endpoints.identity.required("device", &args), sinceId: args.string("since"), limit: try args.int("limit", default: 50))
            try args.checkAllUsed()
            _ = try call("notify", Op.inboxList, query, as: InboxReply.self)
        case ("reminder", "set"):
            try usage(words, 2, "reminder set --device D --cafe C --text T [--repeat true]")
            let request = SetReminder(deviceId: try endpoints.identity.required("device", &args), cafeId: try args.required("cafe"), text: try args.required("text"),
                                      oneShot: !(try args.bool("repeat", default: false)))
            try args.checkAllUsed()
            _ = try call("notify", Op.reminderSet, request, as: RegionReminder.self)
        case ("reminder", "list"):
            try usage(words, 2, "reminder list --device D [--all true]")
            let query = ReminderQuery(deviceId: try endpoints.identity.required("device", &args), includeDone: try args.bool("all", default: false))
            try args.checkAllUsed()
            _ = try call("notify", Op.reminderList, query, as: ReminderList.self)
        case ("reminder", "cancel"):
            try usage(words, 3, "reminder cancel <reminder-id> --device D")
            let request = CancelReminder(deviceId: try endpoints.identity.required("device", &args), reminderId: words[2])
            try args.checkAllUsed()
            _ = try call("notify", Op.reminderCancel, request, as: RegionReminder.self)
        default:
            throw UsageError("unknown command \"\(words.joined(separator: " "))\" (see cafectl help)")
        }
    }

    private func usage(_ words: [String], _ count: Int, _ text: String) throws {
        guard words.count == count else { throw UsageError("usage: cafectl \(text)") }
    }
}
