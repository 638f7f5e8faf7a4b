/* AEAD ciphers through EVP (AES-GCM, ChaCha20-Poly1305): the timed
 * encrypt-and-tag loop, its known answer and its checks. */
#ifndef EVP_AEAD_H
#define EVP_AEAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "algos.h"

/* The newest OpenSSL error as "WHAT: text" in ERR (evp.c). */
void ossl_error(char *err, size_t errlen, const char *what);

#define AEAD_TAG 16
#define AEAD_IV 12

/* One worker's AEAD state. */
struct evp_aead {
	const struct algo *algo;
	EVP_CIPHER *cipher, *ref_cipher;  /* the timed loop's; the checker's, fetched apart */
	EVP_CIPHER_CTX *enc;
	unsigned char key[32], iv[AEAD_IV], tag[AEAD_TAG];
	unsigned char aad[64];
	size_t size, len, aad_len;       /* the job's size; this record's */
	unsigned char *buf, *save, *plain;
	bool fault;                       /* test-only: the tag is corrupted */
};

int evp_aead_init(struct evp_aead *x, const struct algo *a, size_t size, char *err,
		  size_t errlen);
void evp_aead_fini(struct evp_aead *x);

/* The timed loop: up to MAX records encrypted in place, each with its tag. */
int evp_aead_run(struct evp_aead *x, uint64_t max, const atomic_int *stop, uint64_t *done,
		 char *err, size_t errlen);

/* The published known answer (ciphertext and tag) through the timed path. */
int evp_aead_kat(struct evp_aead *x, char *err, size_t errlen);

/* One timed record (counted in DONE) that an independent context must
 * decrypt and authenticate, and must refuse with a tag bit flipped. */
int evp_aead_check(struct evp_aead *x, uint64_t *done, char *err, size_t errlen);

#endif
