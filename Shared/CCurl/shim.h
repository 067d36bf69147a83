#ifndef CAFE_CCURL_SHIM_H
#define CAFE_CCURL_SHIM_H
// libcurl (Debian libcurl4-openssl-dev, built with nghttp2) for notification-service's APNs
// sender: the multi interface multiplexes many HTTP/2 streams over one connection. curl's
// setopt and getinfo calls are variadic, which Swift cannot call: each kind of argument gets a
// typed wrapper here, and the response body is collected by a C write callback.
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

static inline CURLcode cafe_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode cafe_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode cafe_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLMcode cafe_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}
static inline CURLcode cafe_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode cafe_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

/// A response body, kept up to `limit` bytes (the rest is dropped: APNs' bodies are tiny JSON).
typedef struct {
    char *bytes;
    size_t length;
    size_t limit;
} cafe_curl_body;

static size_t cafe_curl_write_body(char *data, size_t size, size_t count, void *context) {
    cafe_curl_body *body = (cafe_curl_body *)context;
    size_t total = size * count;
    size_t room = body->limit > body->length ? body->limit - body->length : 0;
    size_t kept = total < room ? total : room;
    if (kept > 0 && body->bytes != NULL) {
        memcpy(body->bytes + body->length, data, kept);
        body->length += kept;
    }
    return total;
}

/// Collects the transfer's response body into `body` (whose `bytes` holds `limit` bytes).
static inline void cafe_curl_collect_body(CURL *handle, cafe_curl_body *body) {
    curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, cafe_curl_write_body);
    curl_easy_setopt(handle, CURLOPT_WRITEDATA, (void *)body);
}

/// The value of a response header of the transfer's last answer (`Retry-After`), or NULL.
static inline const char *cafe_curl_header_value(CURL *handle, const char *name) {
    struct curl_header *header = NULL;
    if (curl_easy_header(handle, name, 0, CURLH_HEADER, -1, &header) != CURLHE_OK || header == NULL) return NULL;
    return header->value;
}

/// The transfer a done message is about, and its result.
static inline CURL *cafe_curl_msg_handle(CURLMsg *message) { return message->easy_handle; }
static inline CURLcode cafe_curl_msg_result(CURLMsg *message) { return message->data.result; }
static inline int cafe_curl_msg_is_done(CURLMsg *message) { return message->msg == CURLMSG_DONE; }
#endif
