import Foundation
import Messages
import ServiceRuntime

/// The notification commands, all answered by notification-service: registering a device (each
/// registration is a launch, renewing an App Clip's 8-hour grant), reading its inbox, and the
/// region reminders a user sets ("when I arrive at Caffè Macs, remind me …").
extension ClientCommands {
    static let deliveryChannel = Option("channel", default: "bus", help: "how notifications reach the device (bus, apns)")
    static let apnsToken = Option<String?>("apns-token", help: "channel apns: the device token (64 hex digits)")
    static let apnsEnvironment = Option.choice("apns-environment", default: APNsEnvironment.sandbox, help: "channel apns: sandbox or production")
    static let apnsTopic = Option("apns-topic", default: "edu.campus.cafe", help: "channel apns: the app's or App Clip's bundle id")
    static let language = Option("language", default: "en", help: "the language notifications are written in")
    static let notificationAuthorization = Option.choice("authorization", default: NotificationAuthorization.authorized,
                                                         help: "what the user allowed (App Clip: ephemeral, 8 h from each register)")
    static let since = Option<String?>("since", help: "only notifications after this one")
    static let limit = Option.count("limit", Int.min...Int.max, default: 50, help: "the most notifications listed")
    static let reminderText = Option<String?>("text", help: "the reminder's text")
    static let repeats = Option.flag("repeat", default: false, help: "remind on every arrival, not once")

    static let notifyRegister = [CommandFlag(device), CommandFlag(user), CommandFlag(deliveryChannel), CommandFlag(language), CommandFlag(locale),
                                 CommandFlag(notificationAuthorization), CommandFlag(apnsToken), CommandFlag(apnsEnvironment), CommandFlag(apnsTopic)]
    static let inbox = [CommandFlag(device), CommandFlag(since), integer(limit)]
    static let reminderSet = [CommandFlag(device), CommandFlag(cafe), CommandFlag(reminderText), CommandFlag(repeats)]
    static let reminderList = [CommandFlag(device), CommandFlag(includeDone)]
    static let reminderCancel = [CommandFlag(device)]

    func runNotify(_ args: CommandArguments) throws {
        let words = args.words
        let identity = endpoints.identity
        switch (words[0], words.count > 1 ? words[1] : "") {
        case ("notify", "register"):
            try usage(words, 2, "notify register --device D [--user U] [--language en] [--locale en_US] [--authorization authorized] [--channel apns --apns-token T]")
            let flags = try values(args, Self.notifyRegister)
            // The service checks the token and topic where it decodes them (request.invalidField).
            let apns = flags[Self.apnsToken].map { APNsDestination(token: $0, environment: flags[Self.apnsEnvironment], topic: flags[Self.apnsTopic]) }
            let request = RegisterDevice(deviceId: try identity.device(flags), userId: flags[Self.user], channel: flags[Self.deliveryChannel],
                                         language: flags[Self.language], locale: flags[Self.locale], authorization: flags[Self.notificationAuthorization],
                                         apns: apns)
            _ = try call(Endpoints.notify, Op.deviceRegister, request, as: Registration.self)
        case ("inbox", _):
            try usage(words, 1, "inbox --device D [--since <notification-id>] [--limit 50]")
            let flags = try values(args, Self.inbox)
            let query = InboxQuery(deviceId: try identity.device(flags), sinceId: flags[Self.since], limit: flags[Self.limit])
            _ = try call(Endpoints.notify, Op.inboxList, query, as: InboxReply.self)
        case ("reminder", "set"):
            try usage(words, 2, "reminder set --device D --cafe C --text T [--repeat true]")
            let flags = try values(args, Self.reminderSet)
            let request = SetReminder(deviceId: try identity.device(flags), cafeId: try flags.required(Self.cafe), text: try flags.required(Self.reminderText),
                                      oneShot: !flags[Self.repeats])
            _ = try call(Endpoints.notify, Op.reminderSet, request, as: RegionReminder.self)
        case ("reminder", "list"):
            try usage(words, 2, "reminder list --device D [--all true]")
            let flags = try values(args, Self.reminderList)
            let query = ReminderQuery(deviceId: try identity.device(flags), includeDone: flags[Self.includeDone])
            _ = try call(Endpoints.notify, Op.reminderList, query, as: ReminderList.self)
        case ("reminder", "cancel"):
            try usage(words, 3, "reminder cancel <reminder-id> --device D")
            let request = CancelReminder(deviceId: try identity.device(try values(args, Self.reminderCancel)), reminderId: words[2])
            _ = try call(Endpoints.notify, Op.reminderCancel, request, as: RegionReminder.self)
        default:
            throw UsageError("unknown command \"\(words.joined(separator: " "))\" (see cafectl help)")
        }
    }

    private func usage(_ words: [String], _ count: Int, _ text: String) throws {
        guard words.count == count else { throw UsageError("usage: cafectl \(text)") }
    }
}
