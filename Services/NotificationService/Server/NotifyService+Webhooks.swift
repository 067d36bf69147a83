import Foundation
import ServiceRuntime

/// The webhook channel's sender on the service's reactor: a tick records receivers' answers and
/// sends what is due; SIGHUP re-reads the secrets file; health counts deliveries and each
/// receiver's breaker, and says `degraded` (`webhook.<id>.secret`) for a receiver the catalog
/// allows that has no usable secret.
extension NotifyService {
    func startWebhooks() {
        let sender = WebhookDispatcher(store: store, events: events, logger: logger, clock: clock, settings: webhooks) { [unowned self] in catalog }
        webhookSender = sender
        reactor.every(PushDispatcher.tickSeconds, name: "webhook.dispatch") { try sender.tick() }
        HangupSignal.shared.start()
        var hangups = HangupSignal.shared.count
        reactor.every(0.5, name: "webhook.secrets") {
            let count = HangupSignal.shared.count
            guard count != hangups else { return }
            hangups = count
            try sender.reloadSecrets()
        }
        requests.addHealthDetails { sender.healthDetails() }
        requests.addDegradedReasons { sender.degradedReasons() }
    }
}
