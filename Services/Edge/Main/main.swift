import EdgeServer
import ServiceRuntime

// edge: the HTTP edge behind Pushpin. Takes each HTTP request from Pushpin's zhttpreq route,
// authenticates its bearer session, and answers it itself (sessions, the OpenAPI document) or
// forwards its op to the service on behalf of the session's principal. An issuers file or a
// Grip-Sig key file that cannot be read is a start error (exit 1).
//
// The SSE routes are the streams part's: built here on the same host with `edge.ask`, started,
// and handed the two routes through `edge.openStream`; the screens' snapshots and the status
// page's stream go to `ScreenServer` the same way.

ServiceLaunch(EdgeSettings.common, summary: EdgeSettings.summary, specs: EdgeSettings.specs, settings: EdgeSettings.init).run { host, settings in
    let issuers = settings.issuers.isEmpty ? IssuerConfiguration() : try IssuerConfiguration(file: settings.issuers)
    let edge = try EdgeServer(host: host, settings: settings, issuers: issuers)
    let streams = EdgeStreams(host: host, settings: settings.streams, ask: edge.ask)
    try streams.start()
    let screens = try ScreenServer(edge: edge, streams: streams, host: host, settings: settings.streams)
    edge.openStream = { call, headers, principal, done in
        if screens.answers(call.action) { return screens.answer(call, headers: headers, principal: principal, done: done) }
        streams.open(action: call.action, pathParameters: call.pathParameters, body: call.body, headers: headers, principal: principal, done: done)
    }
    edge.start()
    screens.start()
    try edge.startMetrics(host: host, settings: settings.metrics)
    return edge
}
