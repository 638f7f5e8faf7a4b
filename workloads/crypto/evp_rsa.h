/* RSA through EVP: key generation, per-worker contexts, sign/verify loops
 * and the checks (PKCS#1 v1.5 over a SHA-256 digest). */
#ifndef EVP_RSA_H
#define EVP_RSA_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

/* A fresh key of BITS bits, or NULL with the error in ERR. */
EVP_PKEY *evp_rsa_keygen(unsigned bits, char *err, size_t errlen);

/* A sign (or verify) context for PKCS#1 v1.5 with SHA-256 on PKEY. */
EVP_PKEY_CTX *evp_rsa_ctx(EVP_PKEY *pkey, bool sign);

/* A worker's own copy of the key, its sign and verify contexts, a random
 * digest to sign and a first signature of it. */
int evp_rsa_worker_init(EVP_PKEY *shared, EVP_PKEY **pkey, EVP_PKEY_CTX **sctx,
			EVP_PKEY_CTX **vctx, unsigned char hash[32], unsigned char *sig,
			size_t cap, size_t *siglen, char *err, size_t errlen);

/* Sign SHA-256("abc") and check that the public operation on the signature
 * gives the RFC 8017 EMSA-PKCS1-v1_5 encoding of that digest, byte for byte. */
int evp_rsa_kat(EVP_PKEY *pkey, EVP_PKEY_CTX *sctx, char *err, size_t errlen);

int evp_rsa_run(bool sign, EVP_PKEY_CTX *sctx, EVP_PKEY_CTX *vctx, const unsigned char hash[32],
		unsigned char *sig, size_t cap, size_t *siglen, uint64_t max,
		const atomic_int *stop, uint64_t *done, char *err, size_t errlen);

/* Sign then verify (sign mode), or verify (verify mode); CORRUPT flips a
 * signature bit first, which the verification must reject. */
int evp_rsa_checked(bool sign, EVP_PKEY_CTX *sctx, EVP_PKEY_CTX *vctx,
		    const unsigned char hash[32], unsigned char *sig, size_t cap,
		    size_t *siglen, bool corrupt, char *err, size_t errlen);

#endif
