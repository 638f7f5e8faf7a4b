/* ECDSA, EdDSA and ECDH on a PKCS#11 token: key pairs made in the token
 * (C_GenerateKeyPair), each timed result checked with OpenSSL on the public
 * keys the token exports (CKA_EC_POINT). */
#ifndef P11_PKEY_H
#define P11_PKEY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <openssl/evp.h>
#include <p11-kit/pkcs11.h>

#include "algos.h"

#define P11_POINT_MAX 160

/* One worker's key pairs, mechanism and last output. */
struct p11_pkey {
	const struct algo *a;
	enum algo_mode mode;
	CK_FUNCTION_LIST_PTR f;
	CK_SESSION_HANDLE s;
	CK_OBJECT_HANDLE priv, pub;     /* the worker's pair */
	CK_OBJECT_HANDLE peer_priv;     /* derive: the peer's private half */
	CK_OBJECT_HANDLE secret;        /* derive: the last derived key */
	CK_MECHANISM mech;
	/* Bare public points: the worker's, its peer's, OpenSSL's (derive). */
	unsigned char point[P11_POINT_MAX], peer_point[P11_POINT_MAX], other_point[P11_POINT_MAX];
	CK_ULONG point_len, peer_len, other_len;
	EVP_PKEY *evp_pub;              /* the worker's public key, as the token says */
	EVP_PKEY *evp_other;            /* derive: OpenSSL's own pair, the third party */
	unsigned char msg[64], out[P11_POINT_MAX];
	CK_ULONG msg_len, out_len;      /* message or digest; signature */
	bool fault;                     /* test-only: see backend.h */
};

int p11_pkey_init(struct p11_pkey *k, CK_FUNCTION_LIST_PTR f, CK_SESSION_HANDLE s,
		  const struct algo *a, enum algo_mode mode, char *err, size_t errlen);
void p11_pkey_fini(struct p11_pkey *k);
int p11_pkey_run(struct p11_pkey *k, uint64_t max, const atomic_int *stop, uint64_t *done,
		 char *err, size_t errlen);
/* The row's published signature verified by the token on its published
 * public key, and a corrupted one refused; then one timed operation checked
 * as p11_pkey_check does. */
int p11_pkey_kat(struct p11_pkey *k, char *err, size_t errlen);
/* One timed operation checked: OpenSSL verifies the signature and the timed
 * verify refuses a corrupted one; a derived secret equals the peer's way
 * round and OpenSSL's with a third key, and differs from the third's. */
int p11_pkey_check(struct p11_pkey *k, uint64_t *done, char *err, size_t errlen);

/* The key-pair generation mechanism the row needs. */
CK_MECHANISM_TYPE p11_pkey_keygen_mech(const struct algo *a, const char **name);

#endif
