#ifndef CAFE_CCRYPTO_SHIM_H
#define CAFE_CCRYPTO_SHIM_H
// OpenSSL's libcrypto (Debian libssl-dev, OpenSSL 3): digests, signature verification and
// signing through EVP, keys built from JWK parameters, the OS-seeded CSPRNG. Only libcrypto is
// linked; TLS (libssl) is Pushpin's job, not ours.
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

/// OPENSSL_free is a macro (it passes __FILE__ and __LINE__ to CRYPTO_free): Swift cannot call it.
static inline void cafe_openssl_free(void *pointer) { OPENSSL_free(pointer); }

/// The oldest error on this thread's OpenSSL error queue as text, and the queue cleared, so one
/// failure's reason never leaks into the next call's report. Writes at most `length` bytes.
static inline void cafe_openssl_last_error(char *buffer, size_t length) {
    unsigned long code = ERR_get_error();
    if (code == 0) {
        if (length > 0) buffer[0] = 0;
    } else {
        ERR_error_string_n(code, buffer, length);
    }
    ERR_clear_error();
}
#endif
