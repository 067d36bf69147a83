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

/// EVP_PKEY_PUBLIC_KEY (a selection of bits): what EVP_PKEY_fromdata builds from a JWK's parameters.
static inline int cafe_EVP_PKEY_PUBLIC_KEY(void) { return EVP_PKEY_PUBLIC_KEY; }
/// EVP_PKEY_RSA and EVP_PKEY_EC, as EVP_PKEY_get_base_id reports a key's type.
static inline int cafe_EVP_PKEY_RSA(void) { return EVP_PKEY_RSA; }
static inline int cafe_EVP_PKEY_EC(void) { return EVP_PKEY_EC; }

/// A passphrase callback that gives none: an encrypted PEM fails to load instead of OpenSSL's
/// default callback prompting on the terminal of a service.
static inline int cafe_no_passphrase(char *buffer, int size, int rwflag, void *user) {
    (void)buffer; (void)size; (void)rwflag; (void)user;
    return 0;
}

/// A private key from PEM text in memory (PKCS#8 "PRIVATE KEY", as Apple's .p8 files, or
/// "EC PRIVATE KEY"); NULL when it does not read. Never prompts for a passphrase.
static inline EVP_PKEY *cafe_read_private_key(const void *pem, int length) {
    BIO *bio = BIO_new_mem_buf(pem, length);
    if (bio == NULL) return NULL;
    EVP_PKEY *key = PEM_read_bio_PrivateKey(bio, NULL, cafe_no_passphrase, NULL);
    BIO_free(bio);
    return key;
}
#endif
