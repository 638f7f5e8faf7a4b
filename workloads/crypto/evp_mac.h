/* MACs through EVP_MAC (HMAC, CMAC): the timed loop, its known answer and
 * its checks. */
#ifndef EVP_MAC_H
#define EVP_MAC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "backend.h"

/* One worker's MAC state. */
struct evp_mac {
	const struct algo *algo;
	EVP_MAC *mac, *ref_mac;           /* the timed loop's; the checker's, fetched apart */
	EVP_MAC_CTX *ctx;
	unsigned char key[64], tag[EVP_MAX_MD_SIZE];
	size_t size, len, key_len, tag_len;  /* the job's size; this tag's */
	unsigned char *mem, *buf;         /* buf: --misalign bytes into mem */
	bool fault;                       /* test-only: the tag is corrupted */
};

int evp_mac_init(struct evp_mac *m, const struct job *job, char *err, size_t errlen);
void evp_mac_fini(struct evp_mac *m);

/* The timed loop: up to MAX tags of the buffer, the key set once. */
int evp_mac_run(struct evp_mac *m, uint64_t max, const atomic_int *stop, uint64_t *done,
		char *err, size_t errlen);

/* The published known answer through the timed path. */
int evp_mac_kat(struct evp_mac *m, char *err, size_t errlen);

/* One timed tag (counted in DONE), recomputed by an independent context. */
int evp_mac_check(struct evp_mac *m, uint64_t *done, char *err, size_t errlen);

/* "HMAC:SHA256" -> MAC "HMAC", parameter "digest" = "SHA256". */
int evp_mac_split(const char *evp_name, char *mac, size_t maclen, const char **sub,
		  const char **param);

#endif
