import CCurl
import Foundation
import ServiceRuntime
import Synchronization

/// One POST for `HTTP2Client`.
struct HTTP2Request: Sendable {
    /// The caller's key for the answer (a notification id).
    var key: String
    var url: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]
}

/// The answer to one `HTTP2Request`: the status and body, or why there was none.
struct HTTP2Response: Sendable {
    var key: String
    /// 0 when the transfer failed (`failure` says how).
    var status: Int
    var body: [UInt8]
    var failure: String?
    /// From handing the request over to the whole answer, seconds.
    var seconds: Double
    /// The answer's `Retry-After` header (at most 64 bytes kept), for a 429.
    var retryAfter: String? = nil
}

/// An HTTP/2 client on its own thread: libcurl's multi interface with multiplexing on, and
/// `CURLOPT_PIPEWAIT` on every transfer, so requests made together wait for the one connection
/// and share it as streams instead of each opening its own (APNs treats many connections as
/// abuse; FoundationNetworking's URLSession does not set PIPEWAIT and opened six). `submit` and
/// `takeResponses` may be called from any thread: the service's reactor hands requests over
/// and collects answers on its own thread; libcurl runs only on this client's.
final class HTTP2Client: @unchecked Sendable {
    private struct Shared {
        var queued: [HTTP2Request] = []
        var answered: [HTTP2Response] = []
        var stopping = false
        var connections = 0
    }
    private let shared = Mutex(Shared())
    private let caFile: String?
    private let timeoutMilliseconds: Int
    private let strict: Bool
    private let multi: UnsafeMutableRawPointer
    private let done = DispatchSemaphore(value: 0)
    /// The most bytes of an answer's body kept (APNs' are a short JSON object).
    static let maxBodyBytes = 4_096

    private final class Transfer {
        let request: HTTP2Request
        let easy: UnsafeMutableRawPointer
        let headers: UnsafeMutablePointer<curl_slist>?
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: HTTP2Client.maxBodyBytes)
        let body = UnsafeMutablePointer<cafe_curl_body>.allocate(capacity: 1)
        let started = Reactor.monotonic()

        init(_ request: HTTP2Request, easy: UnsafeMutableRawPointer, headers: UnsafeMutablePointer<curl_slist>?) {
            self.request = request
            self.easy = easy
            self.headers = headers
            body.initialize(to: cafe_curl_body(bytes: buffer, length: 0, limit: HTTP2Client.maxBodyBytes))
        }

        deinit {
            curl_easy_cleanup(easy)
            curl_slist_free_all(headers)
            buffer.deallocate()
            body.deallocate()
        }
    }

    /// `caFile`: a CA bundle to trust instead of the system's (tests); `timeoutSeconds`: the
    /// longest one request may take, connecting included; `maxConnections`: per host; `strict`:
    /// requests go to the URL given and nowhere else (https only, no redirect followed, no proxy
    /// from the environment), as a webhook allow-list needs.
    /// libcurl's one-time set-up, once per process however many clients are made.
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    init(caFile: String?, timeoutSeconds: Double, maxConnections: Int = 1, strict: Bool = false) {
        _ = Self.initialized
        self.caFile = caFile
        self.strict = strict
        self.timeoutMilliseconds = Int(timeoutSeconds * 1_000)
        multi = curl_multi_init()
        _ = cafe_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        _ = cafe_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, maxConnections)
        let thread = Thread { [self] in run() }
        thread.name = "http2-client"
        thread.start()
    }

    /// Hands requests to the client's thread.
    func submit(_ requests: [HTTP2Request]) {
        guard !requests.isEmpty else { return }
        shared.withLock { $0.queued += requests }
        curl_multi_wakeup(multi)
    }

    /// The answers that came in since the last call.
    func takeResponses() -> [HTTP2Response] {
        shared.withLock { state in
            defer { state.answered.removeAll(keepingCapacity: true) }
            return state.answered
        }
    }

    /// Connections libcurl opened so far (for health: a steady 1 means one multiplexed connection).
    var connectionsOpened: Int { shared.withLock { $0.connections } }

    /// Stops the thread; transfers in flight are dropped (their pushes stay pending in SQLite).
    func stop() {
        let first = shared.withLock { state in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard first else { return }
        curl_multi_wakeup(multi)
        done.wait()
    }

    private func run() {
        var transfers: [UnsafeMutableRawPointer: Transfer] = [:]
        defer {
            for transfer in transfers.values { curl_multi_remove_handle(multi, transfer.easy) }
            transfers.removeAll()
            curl_multi_cleanup(multi)
            done.signal()
        }
        while true {
            let (queued, stopping) = shared.withLock { state in
                defer { state.queued.removeAll(keepingCapacity: true) }
                return (state.queued, state.stopping)
            }
            if stopping { return }
            for request in queued {
                guard let transfer = start(request) else {
                    answer([HTTP2Response(key: request.key, status: 0, body: [], failure: "curl_easy_init failed", seconds: 0)], connections: 0)
                    continue
                }
                transfers[transfer.easy] = transfer
                curl_multi_add_handle(multi, transfer.easy)
            }
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            var finished: [HTTP2Response] = []
            var connections = 0
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard cafe_curl_msg_is_done(message) != 0, let easy = cafe_curl_msg_handle(message),
                      let transfer = transfers.removeValue(forKey: easy) else { continue }
                let result = cafe_curl_msg_result(message)
                var status = 0
                cafe_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
                var connects = 0
                cafe_curl_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects)
                connections += connects
                let body = Array(UnsafeRawBufferPointer(start: transfer.buffer, count: transfer.body.pointee.length))
                let failure = result == CURLE_OK ? nil : String(cString: curl_easy_strerror(result))
                let retryAfter = cafe_curl_header_value(easy, "Retry-After").map { String(String(cString: $0).prefix(64)) }
                finished.append(HTTP2Response(key: transfer.request.key, status: result == CURLE_OK ? status : 0, body: body, failure: failure,
                                              seconds: Reactor.monotonic() - transfer.started, retryAfter: result == CURLE_OK ? retryAfter : nil))
                curl_multi_remove_handle(multi, easy)
            }
            answer(finished, connections: connections)
            curl_multi_poll(multi, nil, 0, 100, nil)
        }
    }

    private func answer(_ responses: [HTTP2Response], connections: Int) {
        guard !responses.isEmpty || connections > 0 else { return }
        shared.withLock {
            $0.answered += responses
            $0.connections += connections
        }
    }

    /// An easy handle for `request`: POST over HTTP/2 (TLS, negotiated by ALPN; no fallback to
    /// HTTP/1.1 is accepted by APNs), waiting to multiplex, bounded in time.
    private func start(_ request: HTTP2Request) -> Transfer? {
        guard let easy = curl_easy_init() else { return nil }
        var list: UnsafeMutablePointer<curl_slist>?
        for header in request.headers { list = curl_slist_append(list, "\(header.name): \(header.value)") }
        // libcurl adds these unless told not to: APNs needs neither.
        list = curl_slist_append(list, "Expect:")
        if !request.headers.contains(where: { $0.name.lowercased() == "content-type" }) { list = curl_slist_append(list, "content-type: application/json") }
        let transfer = Transfer(request, easy: easy, headers: list)
        _ = cafe_curl_easy_setopt_string(easy, CURLOPT_URL, request.url)
        _ = cafe_curl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        _ = cafe_curl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1)
        _ = cafe_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = cafe_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, timeoutMilliseconds)
        _ = cafe_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, timeoutMilliseconds)
        _ = cafe_curl_easy_setopt_long(easy, CURLOPT_POST, 1)
        _ = cafe_curl_easy_setopt_long(easy, CURLOPT_POSTFIELDSIZE, request.body.count)
        request.body.withUnsafeBytes { bytes in
            _ = cafe_curl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!))
        }
        _ = cafe_curl_easy_setopt_pointer(easy, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list))
        if let caFile { _ = cafe_curl_easy_setopt_string(easy, CURLOPT_CAINFO, caFile) }
        if strict {
            // Only the allow-listed URL: a redirect is answered as the receiver's status, never
            // followed; no proxy variable of the environment reroutes it; nothing but https.
            _ = cafe_curl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
            _ = cafe_curl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "https")
            _ = cafe_curl_easy_setopt_string(easy, CURLOPT_PROXY, "")
        }
        cafe_curl_collect_body(easy, transfer.body)
        return transfer
    }
}
