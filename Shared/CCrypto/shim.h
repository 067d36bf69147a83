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
#include <openssl/hmac.h>
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

/// EVP_PKEY_RSA and EVP_PKEY_EC, as EVP_PKEY_get_base_id reports a key's type.
static inline int cafe_EVP_PKEY_RSA(void) { return EVP_PKEY_RSA; }
static inline int cafe_EVP_PKEY_EC(void) { return EVP_PKEY_EC; }

/// Builds a public key of `type` ("RSA", "EC") from parameters. OSSL_PARAM_BLD borrows every
/// pointer it is given (names, numbers, strings) until OSSL_PARAM_BLD_to_param, and the
/// parameters it makes borrow the names after that: C string literals and one scope here keep
/// them alive, which Swift's temporary pointers would not. NULL on failure (the reason is on
/// OpenSSL's error queue).
static inline EVP_PKEY *cafe_key_from_params(const char *type, OSSL_PARAM_BLD *builder) {
    EVP_PKEY *key = NULL;
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(builder);
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
    if (params != NULL && context != NULL && EVP_PKEY_fromdata_init(context) == 1) {
        if (EVP_PKEY_fromdata(context, &key, EVP_PKEY_PUBLIC_KEY, params) != 1) key = NULL;
    }
    EVP_PKEY_CTX_free(context);
    OSSL_PARAM_free(params);
    if (key != NULL) ERR_clear_error();
    return key;
}

/// An RSA public key from its big-endian modulus and exponent (a JWK's n and e); NULL on failure.
static inline EVP_PKEY *cafe_rsa_public_key(const unsigned char *n, int n_length, const unsigned char *e, int e_length) {
    EVP_PKEY *key = NULL;
    BIGNUM *modulus = BN_bin2bn(n, n_length, NULL), *exponent = BN_bin2bn(e, e_length, NULL);
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    if (modulus != NULL && exponent != NULL && builder != NULL
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, modulus) == 1
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, exponent) == 1) {
        key = cafe_key_from_params("RSA", builder);
    }
    OSSL_PARAM_BLD_free(builder);
    BN_free(modulus);
    BN_free(exponent);
    return key;
}

/// A P-256 public key from its SEC 1 uncompressed point (04, x, y: 65 bytes); NULL on failure.
static inline EVP_PKEY *cafe_p256_public_key(const unsigned char *point, size_t length) {
    EVP_PKEY *key = NULL;
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    if (builder != NULL
        && OSSL_PARAM_BLD_push_utf8_string(builder, OSSL_PKEY_PARAM_GROUP_NAME, SN_X9_62_prime256v1, 0) == 1
        && OSSL_PARAM_BLD_push_octet_string(builder, OSSL_PKEY_PARAM_PUB_KEY, point, length) == 1) {
        key = cafe_key_from_params("EC", builder);
    }
    OSSL_PARAM_BLD_free(builder);
    return key;
}

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
    // The decoders tried before the one that read it leave their refusals queued; a key that
    // loaded must not lend them to the next failure's report.
    if (key != NULL) ERR_clear_error();
    return key;
}
#endif
