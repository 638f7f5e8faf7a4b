/* RSA through EVP: key generation, a worker's keys and contexts, the timed
 * sign/verify loop, and the checks (PKCS#1 v1.5 over a SHA-256 digest). */
#ifndef EVP_RSA_H
#define EVP_RSA_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/bn.h>
#include <openssl/evp.h>

/* One worker's RSA state. */
struct evp_rsa {
	EVP_PKEY *pkey;                 /* its own copy of the job's key */
	EVP_PKEY_CTX *sctx, *vctx;      /* the timed contexts */
	EVP_PKEY *ref_pub;              /* the checker's: the public half, rebuilt */
	EVP_PKEY_CTX *ref_vctx;
	unsigned char hash[32];         /* the digest the timed loop signs or verifies */
	unsigned char sig[1024];
	size_t siglen;
	bool fault;                     /* test-only: outputs corrupted, bad signatures accepted */
};

/* A fresh key of BITS bits, or NULL with the error in ERR. */
EVP_PKEY *evp_rsa_keygen(unsigned bits, char *err, size_t errlen);

/* A sign (or verify) context for PKCS#1 v1.5 with SHA-256 on PKEY. */
EVP_PKEY_CTX *evp_rsa_ctx(EVP_PKEY *pkey, bool sign);

/* A public key object of its own from N and E (or from PKEY's). */
EVP_PKEY *evp_rsa_from_ne(const BIGNUM *n, const BIGNUM *e);
EVP_PKEY *evp_rsa_public(EVP_PKEY *pkey);

/* A worker's key, contexts, a random digest and a first signature of it. */
int evp_rsa_worker_init(struct evp_rsa *r, EVP_PKEY *shared, char *err, size_t errlen);
void evp_rsa_worker_fini(struct evp_rsa *r);

/* The timed loop: up to MAX signatures of (or verifications against) HASH. */
int evp_rsa_run(struct evp_rsa *r, bool sign, uint64_t max, const atomic_int *stop,
		uint64_t *done, char *err, size_t errlen);

/* SIG must be, under PUB's public operation, the RFC 8017 EMSA-PKCS1-v1_5
 * encoding of the SHA-256 DIGEST, byte for byte. */
int evp_rsa_check_encoding(EVP_PKEY *pub, const unsigned char *sig, size_t siglen,
			   const unsigned char digest[32], char *err, size_t errlen);

/* The known-answer test through the timed path: sign SHA-256("abc") with
 * evp_rsa_run and check the encoding; in verify mode the timed verify must
 * accept that signature and reject it with one bit flipped. */
int evp_rsa_kat(struct evp_rsa *r, bool sign, char *err, size_t errlen);

/* One timed operation (counted in DONE), checked with the checker's own
 * context: a signature made in the loop must verify; the loop's verify must
 * accept a good signature and reject a corrupted one. */
int evp_rsa_check(struct evp_rsa *r, bool sign, uint64_t *done, char *err, size_t errlen);

#endif
