/* AEAD ciphers through EVP (AES-GCM, ChaCha20-Poly1305): the timed
 * encrypt-and-tag loop, its known answer and its checks. */
#ifndef EVP_AEAD_H
#define EVP_AEAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "backend.h"

/* RAND_bytes, or where no loaded provider offers a generator (--provider
 * legacy alone) a plain PRNG's bytes: buffers and keys to time, no
 * secrets.  1, as RAND_bytes. */
int evp_random(unsigned char *buf, int n);

/* EVP_EncryptUpdate or EVP_DecryptUpdate, chosen once: openssl speed
 * calls these, not EVP_CipherUpdate, which is one call more per update. */
typedef int (*evp_update_fn)(EVP_CIPHER_CTX *, unsigned char *, int *, const unsigned char *,
			     int);

static inline evp_update_fn evp_update_for(bool decrypt)
{
	return decrypt ? EVP_DecryptUpdate : EVP_EncryptUpdate;
}

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
	unsigned char *mem, *buf, *save, *plain;  /* buf: --misalign bytes into mem */
	unsigned char *chain;             /* --stream's check: the buffer after each update */
	bool decrypt;                     /* open one record (buf, tag, iv) over and over; stream: decrypt */
	bool tls;                         /* --aead: a new IV per record (encryption) */
	bool rekey;                       /* --rekey: the key set again every record */
	bool stream;                      /* --stream: updates under one IV, no record */
	uint64_t streamed;                /* bytes under the stream's IV */
	bool fault;                       /* test-only: the tag (the plaintext; stream: the buffer) is corrupted */
};

int evp_aead_init(struct evp_aead *x, const struct job *job, char *err, size_t errlen);
void evp_aead_fini(struct evp_aead *x);

/* The timed loop: up to MAX records encrypted in place, each with its tag;
 * with decrypt, the record opened into PLAIN, its tag checked (a refused
 * tag is an error).  With stream, up to MAX updates of the buffer in place
 * under one IV, the tag left for the stream's end. */
int evp_aead_run(struct evp_aead *x, uint64_t max, const atomic_int *stop, uint64_t *done,
		 char *err, size_t errlen);

/* The published known answer (ciphertext and tag) through the timed path. */
int evp_aead_kat(struct evp_aead *x, char *err, size_t errlen);

/* One timed record (counted in DONE) that an independent context must
 * decrypt and authenticate, and must refuse with a tag bit flipped; with
 * decrypt, the timed opening gives the plaintext back and the timed path
 * refuses a flipped tag bit.  With stream, a short stream of timed updates
 * checked so, then a new stream (a new IV) for the loop. */
int evp_aead_check(struct evp_aead *x, uint64_t *done, char *err, size_t errlen);

#endif
