/* ECDSA, EdDSA and key agreement (ECDH, X25519/X448, FFDH) through EVP_PKEY,
 * as openssl speed times them; each timed result checked independently. */
#ifndef EVP_PKEY_H
#define EVP_PKEY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "algos.h"
#include "backend.h"

/* One worker's key, contexts and last output. */
struct evp_pkey {
	const struct algo *a;
	OSSL_LIB_CTX *lib;              /* the timed key's and contexts' own */
	OSSL_PROVIDER *prov[BE_MAX_PROVIDERS]; /* loaded in LIB */
	unsigned nprov;
	const char *propq;
	enum algo_mode mode;
	EVP_PKEY *pkey, *peer, *wrong;  /* own key; derive: the peer's, a stranger's */
	EVP_PKEY *pub;                  /* the checker's: the public half, rebuilt */
	EVP_PKEY_CTX *ctx;              /* the timed one: ECDSA or derive */
	EVP_MD_CTX *mctx;               /* the timed one: EdDSA */
	EVP_PKEY_CTX *ref_ctx, *wrong_ctx; /* the checker's */
	EVP_MD_CTX *ref_mctx;
	unsigned char msg[64];          /* what is signed: a digest or a message */
	size_t msglen;
	unsigned char out[1024], ref[1024]; /* signature or secret (FFDH 8192: 1024 bytes); the checker's */
	size_t outlen;
	bool fault;                     /* test-only: outputs corrupted, bad signatures accepted */
};

/* A fresh key for A (its curve or group), or NULL with the error in ERR. */
EVP_PKEY *evp_pkey_keygen(const struct algo *a, char *err, size_t errlen);

/* The worker's timed key (a copy of SHARED) and contexts live in a library
 * context of its own, with PROVIDERS loaded and PROPQ the default query. */
int evp_pkey_worker_init(struct evp_pkey *p, const struct algo *a, enum algo_mode mode,
			 EVP_PKEY *shared, const char *const *providers, unsigned nprov,
			 const char *propq, char *err, size_t errlen);
void evp_pkey_worker_fini(struct evp_pkey *p);

/* The timed loop: up to MAX signatures, verifications or derivations. */
int evp_pkey_run(struct evp_pkey *p, uint64_t max, const atomic_int *stop, uint64_t *done,
		 char *err, size_t errlen);

/* The published known answer through the timed code (RFC 8032, RFC 7748,
 * CAVP SigVer), or a self-consistency check where none is carried. */
int evp_pkey_kat(struct evp_pkey *p, char *err, size_t errlen);

/* One timed operation, checked with contexts of the checker's own: the
 * signature verifies and a corrupted one is refused; both sides' secrets
 * are equal and a stranger's differs. */
int evp_pkey_check(struct evp_pkey *p, uint64_t *done, char *err, size_t errlen);

#endif
