/*
 * The PKCS#11 backend: every worker opens its own session (after binding to
 * its PU), holds its own session-object keys, and times C_EncryptInit +
 * C_Encrypt (CBC; GCM with its tag), C_DigestInit + C_Digest, C_SignInit +
 * C_Sign (RSA, HMAC) or C_VerifyInit + C_Verify; ECDSA, EdDSA and ECDH are
 * in p11_pkey.c.  Results are cross-checked against OpenSSL EVP with the
 * same key material, before timing and on samples during the run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

#include "backend.h"
#include "evp_mac.h"
#include "evp_rsa.h"
#include "p11.h"
#include "p11_pkey.h"

struct p11_backend {
	struct p11 p11;
	OSSL_PROVIDER *deflt, *legacy;
};

struct p11_worker {
	const struct job *job;
	CK_FUNCTION_LIST_PTR f;
	CK_SESSION_HANDLE s;
	bool open;
	CK_OBJECT_HANDLE key, pub;
	CK_MECHANISM mech;
	CK_GCM_PARAMS gcm;
	unsigned char key_bytes[32], iv[16];
	unsigned char *in, *out, *ref;
	CK_ULONG len;               /* bytes per operation (the job's size; the KAT's) */
	CK_ULONG outl;              /* bytes of the last output */
	unsigned char sig[1024];
	CK_ULONG siglen;
	bool fault;                 /* test-only: run() corrupts its last output */
	/* The EVP side of the cross-check. */
	EVP_CIPHER *cipher;
	EVP_MD *md;
	EVP_PKEY *evp_pub;          /* built from the token's public key */
	EVP_PKEY_CTX *evp_sctx, *evp_vctx;
	EVP_PKEY *evp_priv;
	bool pkey;                  /* ECDSA, EdDSA, ECDH: all in pk */
	struct p11_pkey pk;
};

/* The mechanism that makes a row's key in the token (rows whose keys are
 * not imported). */
static CK_MECHANISM_TYPE keygen_mech(const struct algo *a, const char **name)
{
	if (a->kind == ALGO_AEAD || a->kind == ALGO_MAC) {
		*name = a->kind == ALGO_AEAD ? "CKM_AES_KEY_GEN" : "CKM_GENERIC_SECRET_KEY_GEN";
		return a->kind == ALGO_AEAD ? CKM_AES_KEY_GEN : CKM_GENERIC_SECRET_KEY_GEN;
	}
	return p11_pkey_keygen_mech(a, name);
}

static bool is_rsa(const struct algo *a)
{
	return a->p11_mech == CKM_SHA256_RSA_PKCS;
}

static bool is_pkey(const struct algo *a)
{
	return (a->kind == ALGO_SIGN || a->kind == ALGO_DERIVE) && !is_rsa(a);
}

static int p11_setup(void **ctxp, const struct backend_opts *o, char *err, size_t errlen)
{
	struct p11_backend *b = calloc(1, sizeof(*b));
	int ret;

	if (!b)
		return BE_FAIL;
	/* The cross-check's EVP (and SoftHSM2's single DES) need both providers. */
	b->deflt = OSSL_PROVIDER_load(NULL, "default");
	b->legacy = OSSL_PROVIDER_load(NULL, "legacy");
	ERR_clear_error();
	ret = p11_open(&b->p11, o, err, errlen);
	if (ret != BE_OK) {
		if (b->legacy)
			OSSL_PROVIDER_unload(b->legacy);
		if (b->deflt)
			OSSL_PROVIDER_unload(b->deflt);
		free(b);
		return ret;
	}
	*ctxp = b;
	return BE_OK;
}

static void p11_teardown(void *ctx)
{
	struct p11_backend *b = ctx;

	if (!b)
		return;
	p11_close(&b->p11);
	if (b->legacy)
		OSSL_PROVIDER_unload(b->legacy);
	if (b->deflt)
		OSSL_PROVIDER_unload(b->deflt);
	free(b);
}

static void p11_describe(void *ctx, char *buf, size_t len)
{
	struct p11_backend *b = ctx;

	snprintf(buf, len, "%s", b->p11.impl);
}

static int p11_supports(void *ctx, const struct algo *a, char *err, size_t errlen)
{
	struct p11_backend *b = ctx;
	const char *gen = NULL;
	EVP_CIPHER *c;

	if (!a->p11_mech_name) {
		snprintf(err, errlen, "%s: no PKCS#11 mechanism measured for it (-b evp has it)",
			 a->name);
		return BE_SKIP;
	}
	if (!p11_has_mechanism(&b->p11, a->p11_mech)) {
		snprintf(err, errlen, "%s: the module lacks %s (CKR_MECHANISM_INVALID)", a->name,
			 a->p11_mech_name);
		return BE_SKIP;
	}
	/* Keys are made in the token (the older rows' are imported). */
	if ((a->kind == ALGO_AEAD || a->kind == ALGO_MAC || is_pkey(a)) &&
	    !p11_has_mechanism(&b->p11, keygen_mech(a, &gen))) {
		snprintf(err, errlen, "%s: the module lacks %s (to make the key) (CKR_MECHANISM_INVALID)",
			 a->name, gen);
		return BE_SKIP;
	}
	/* The cross-check needs the algorithm in OpenSSL too. */
	if (a->kind == ALGO_CIPHER || a->kind == ALGO_AEAD) {
		c = EVP_CIPHER_fetch(NULL, a->evp_name, NULL);
		if (!c) {
			ERR_clear_error();
			snprintf(err, errlen, "%s: OpenSSL lacks %s to cross-check against", a->name, a->evp_name);
			return BE_SKIP;
		}
		EVP_CIPHER_free(c);
	}
	return BE_OK;
}

static int p11_job_init(void *ctx, struct job *job, char *err, size_t errlen)
{
	(void)ctx;
	if (!is_rsa(job->algo))
		return 0;
	job->shared = evp_rsa_keygen(job->bits, err, errlen);
	return job->shared ? 0 : -1;
}

static void p11_job_fini(void *ctx, struct job *job)
{
	(void)ctx;
	EVP_PKEY_free(job->shared);
	job->shared = NULL;
}

/* DES keys carry odd parity in each byte's low bit. */
static void des_parity(unsigned char *k, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char b = k[i] & 0xfe;
		b |= !(__builtin_popcount(b) & 1);
		k[i] = b;
	}
}

static CK_KEY_TYPE key_type(const struct algo *a)
{
	switch (a->p11_mech) {
	case CKM_DES_CBC: return CKK_DES;
	case CKM_DES3_CBC: return CKK_DES3;
	case CKM_SHA256_HMAC: return CKK_GENERIC_SECRET;
	default: return CKK_AES;
	}
}

/* A secret key as a session object (CKA_TOKEN false: no files touched):
 * KEY imported, or with KEY NULL made in the token, extractable, its value
 * read back into VALUE for OpenSSL's side of the checks. */
static int secret_key(struct p11_worker *w, const unsigned char *key, CK_ULONG len,
		      unsigned char *value, CK_OBJECT_HANDLE *h, char *err, size_t errlen)
{
	const struct algo *a = w->job->algo;
	const char *unused;
	CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
	CK_KEY_TYPE kt = key_type(a);
	CK_BBOOL no = CK_FALSE, yes = CK_TRUE;
	bool mac = a->kind == ALGO_MAC;
	CK_ATTRIBUTE t[] = {
		{ CKA_CLASS, &cls, sizeof(cls) }, { CKA_KEY_TYPE, &kt, sizeof(kt) },
		{ CKA_TOKEN, &no, sizeof(no) }, { mac ? CKA_SIGN : CKA_ENCRYPT, &yes, sizeof(yes) },
		{ mac ? CKA_VERIFY : CKA_DECRYPT, &yes, sizeof(yes) },
		{ CKA_SENSITIVE, &no, sizeof(no) }, { CKA_EXTRACTABLE, &yes, sizeof(yes) },
		key ? (CK_ATTRIBUTE){ CKA_VALUE, (void *)key, len } : (CK_ATTRIBUTE){ CKA_VALUE_LEN, &len, sizeof(len) },
	};
	CK_MECHANISM gen = { keygen_mech(a, &unused), NULL, 0 };
	CK_ATTRIBUTE back = { CKA_VALUE, value, len };

	if (key)
		return p11_ckr(w->f->C_CreateObject(w->s, t, 8, h), "C_CreateObject (key)", err, errlen);
	return p11_ckr(w->f->C_GenerateKey(w->s, &gen, t, 8, h), "C_GenerateKey", err, errlen) ||
	       p11_ckr(w->f->C_GetAttributeValue(w->s, *h, &back, 1), "C_GetAttributeValue (key CKA_VALUE)",
		       err, errlen) ? -1 : 0;
}

static int bn_attr(EVP_PKEY *k, const char *name, unsigned char *buf, size_t cap, CK_ULONG *len)
{
	BIGNUM *bn = NULL;
	int n = -1;

	if (EVP_PKEY_get_bn_param(k, name, &bn) == 1 && (size_t)BN_num_bytes(bn) <= cap)
		n = BN_bn2bin(bn, buf);
	BN_free(bn);
	*len = n < 0 ? 0 : (CK_ULONG)n;
	return n < 0 ? -1 : 0;
}

/* The RSA key of the job, imported into this worker's session, and the
 * public key read back from the token for EVP to verify with. */
static int import_rsa(struct p11_worker *w, EVP_PKEY *k, char *err, size_t errlen)
{
	static const char *const names[] = {
		OSSL_PKEY_PARAM_RSA_N, OSSL_PKEY_PARAM_RSA_E, OSSL_PKEY_PARAM_RSA_D,
		OSSL_PKEY_PARAM_RSA_FACTOR1, OSSL_PKEY_PARAM_RSA_FACTOR2,
		OSSL_PKEY_PARAM_RSA_EXPONENT1, OSSL_PKEY_PARAM_RSA_EXPONENT2,
		OSSL_PKEY_PARAM_RSA_COEFFICIENT1,
	};
	static const CK_ATTRIBUTE_TYPE types[] = {
		CKA_MODULUS, CKA_PUBLIC_EXPONENT, CKA_PRIVATE_EXPONENT, CKA_PRIME_1, CKA_PRIME_2,
		CKA_EXPONENT_1, CKA_EXPONENT_2, CKA_COEFFICIENT,
	};
	unsigned char parts[8][512], n_back[512], e_back[16];
	CK_OBJECT_CLASS priv = CKO_PRIVATE_KEY, pubc = CKO_PUBLIC_KEY;
	CK_KEY_TYPE kt = CKK_RSA;
	CK_BBOOL no = CK_FALSE, yes = CK_TRUE;
	CK_ATTRIBUTE t[13], pt[6], back[2] = {
		{ CKA_MODULUS, n_back, sizeof(n_back) }, { CKA_PUBLIC_EXPONENT, e_back, sizeof(e_back) },
	};
	CK_ULONG len[8];
	BIGNUM *n = NULL, *e = NULL;
	int i, ret = -1;

	for (i = 0; i < 8; i++)
		if (bn_attr(k, names[i], parts[i], sizeof(parts[i]), &len[i]) < 0) {
			snprintf(err, errlen, "RSA key component %s not available", names[i]);
			return -1;
		}
	t[0] = (CK_ATTRIBUTE){ CKA_CLASS, &priv, sizeof(priv) };
	t[1] = (CK_ATTRIBUTE){ CKA_KEY_TYPE, &kt, sizeof(kt) };
	t[2] = (CK_ATTRIBUTE){ CKA_TOKEN, &no, sizeof(no) };
	t[3] = (CK_ATTRIBUTE){ CKA_SIGN, &yes, sizeof(yes) };
	t[4] = (CK_ATTRIBUTE){ CKA_PRIVATE, &yes, sizeof(yes) };
	for (i = 0; i < 8; i++)
		t[5 + i] = (CK_ATTRIBUTE){ types[i], parts[i], len[i] };
	pt[0] = (CK_ATTRIBUTE){ CKA_CLASS, &pubc, sizeof(pubc) };
	pt[1] = (CK_ATTRIBUTE){ CKA_KEY_TYPE, &kt, sizeof(kt) };
	pt[2] = (CK_ATTRIBUTE){ CKA_TOKEN, &no, sizeof(no) };
	pt[3] = (CK_ATTRIBUTE){ CKA_VERIFY, &yes, sizeof(yes) };
	pt[4] = (CK_ATTRIBUTE){ CKA_MODULUS, parts[0], len[0] };
	pt[5] = (CK_ATTRIBUTE){ CKA_PUBLIC_EXPONENT, parts[1], len[1] };
	if (p11_ckr(w->f->C_CreateObject(w->s, t, 13, &w->key), "C_CreateObject (RSA private key)", err, errlen) ||
	    p11_ckr(w->f->C_CreateObject(w->s, pt, 6, &w->pub), "C_CreateObject (RSA public key)", err, errlen) ||
	    p11_ckr(w->f->C_GetAttributeValue(w->s, w->pub, back, 2), "C_GetAttributeValue (public key)", err,
		errlen))
		goto out;
	/* EVP verifies with what the token says its public key is. */
	n = BN_bin2bn(n_back, (int)back[0].ulValueLen, NULL);
	e = BN_bin2bn(e_back, (int)back[1].ulValueLen, NULL);
	if (!n || !e || !(w->evp_pub = evp_rsa_from_ne(n, e))) {
		snprintf(err, errlen, "cannot build an EVP key from the token's public key");
		goto out;
	}
	ret = 0;
out:
	explicit_bzero(parts, sizeof(parts));
	BN_free(n);
	BN_free(e);
	return ret;
}

static void worker_free(struct p11_worker *w)
{
	if (!w)
		return;
	if (w->open)
		w->f->C_CloseSession(w->s);  /* destroys its session objects */
	EVP_CIPHER_free(w->cipher);
	EVP_MD_free(w->md);
	EVP_PKEY_free(w->evp_pub);
	EVP_PKEY_free(w->evp_priv);
	EVP_PKEY_CTX_free(w->evp_sctx);
	EVP_PKEY_CTX_free(w->evp_vctx);
	if (w->pkey)
		p11_pkey_fini(&w->pk);
	free(w->in);
	free(w->out);
	free(w->ref);
	free(w);
}

static int sign_once(struct p11_worker *w, char *err, size_t errlen)
{
	CK_MECHANISM m = { CKM_SHA256_RSA_PKCS, NULL, 0 };

	w->siglen = sizeof(w->sig);
	if (p11_ckr(w->f->C_SignInit(w->s, &m, w->key), "C_SignInit", err, errlen) ||
	    p11_ckr(w->f->C_Sign(w->s, w->in, w->len, w->sig, &w->siglen), "C_Sign", err, errlen))
		return -1;
	return 0;
}

/* The worker's mechanism, its key on the token, and OpenSSL's side of
 * the checks: 0, or -1 with ERR. */
static int worker_keys(struct p11_worker *w, const struct job *job, char *err, size_t errlen)
{
	const struct algo *a = job->algo;

	switch (a->kind) {
	case ALGO_CIPHER:
		if (a->p11_mech != CKM_AES_CBC)
			des_parity(w->key_bytes, a->key_len);
		w->mech = (CK_MECHANISM){ a->p11_mech, w->iv, a->block };
		w->cipher = EVP_CIPHER_fetch(NULL, a->evp_name, NULL);
		if (!w->cipher) {
			snprintf(err, errlen, "OpenSSL lacks %s", a->evp_name);
			return -1;
		}
		if (secret_key(w, w->key_bytes, a->key_len, NULL, &w->key, err, errlen) < 0)
			return -1;
		break;
	case ALGO_AEAD:
		w->gcm = (CK_GCM_PARAMS){ w->iv, 12, 96, NULL, 0, 128 };
		w->mech = (CK_MECHANISM){ a->p11_mech, &w->gcm, sizeof(w->gcm) };
		if (!(w->cipher = EVP_CIPHER_fetch(NULL, a->evp_name, NULL))) {
			snprintf(err, errlen, "OpenSSL lacks %s", a->evp_name);
			return -1;
		}
		return secret_key(w, NULL, a->key_len, w->key_bytes, &w->key, err, errlen);
	case ALGO_MAC:
		w->mech = (CK_MECHANISM){ a->p11_mech, NULL, 0 };
		return secret_key(w, NULL, a->key_len, w->key_bytes, &w->key, err, errlen);
	case ALGO_DIGEST:
		w->mech = (CK_MECHANISM){ a->p11_mech, NULL, 0 };
		w->md = EVP_MD_fetch(NULL, a->evp_name, NULL);
		if (!w->md) {
			snprintf(err, errlen, "OpenSSL lacks %s", a->evp_name);
			return -1;
		}
		break;
	case ALGO_SIGN:
	case ALGO_DERIVE:
		if ((w->pkey = is_pkey(a)))
			return p11_pkey_init(&w->pk, w->f, w->s, a, job->mode, err, errlen);
		w->evp_priv = EVP_PKEY_dup(job->shared);
		if (!w->evp_priv || import_rsa(w, w->evp_priv, err, errlen) < 0)
			return -1;
		w->evp_vctx = evp_rsa_ctx(w->evp_pub, false);
		w->evp_sctx = evp_rsa_ctx(w->evp_priv, true);
		if (!w->evp_vctx || !w->evp_sctx) {
			snprintf(err, errlen, "cannot set up OpenSSL's RSA contexts");
			return -1;
		}
		break;
	default: /* p11_supports refuses the other kinds */
		snprintf(err, errlen, "%s: no PKCS#11 mechanism", a->name);
		return -1;
	}
	return 0;
}

static int p11_worker_init(void *ctx, const struct job *job, void **state, char *err,
			   size_t errlen)
{
	struct p11_backend *b = ctx;
	struct p11_worker *w = calloc(1, sizeof(*w));
	const struct algo *a = job->algo;
	/* Room for the known answers too. */
	size_t size = job->size > 64 ? job->size : 64;

	if (!w)
		return -1;
	w->job = job;
	w->f = b->p11.f;
	w->len = is_rsa(a) ? 32 : (CK_ULONG)job->size;
	w->in = malloc(size);
	w->out = malloc(size + 64);
	w->ref = malloc(size + 64);
	if (!w->in || !w->out || !w->ref || RAND_bytes(w->in, (int)size) != 1 ||
	    RAND_bytes(w->key_bytes, sizeof(w->key_bytes)) != 1 || RAND_bytes(w->iv, sizeof(w->iv)) != 1) {
		snprintf(err, errlen, "out of memory or randomness");
		goto fail;
	}
	if (p11_ckr(w->f->C_OpenSession(b->p11.slot, CKF_SERIAL_SESSION, NULL, NULL, &w->s),
		"C_OpenSession", err, errlen))
		goto fail;
	w->open = true;
	if (worker_keys(w, job, err, errlen) < 0)
		goto fail;
	*state = w;
	return 0;
fail:
	worker_free(w);
	return -1;
}

/* One token encryption of IN into OUT. */
static int token_encrypt(struct p11_worker *w, const unsigned char *in, CK_ULONG len,
			 unsigned char *out, CK_ULONG *outl, char *err, size_t errlen)
{
	*outl = len + 64;
	return p11_ckr(w->f->C_EncryptInit(w->s, &w->mech, w->key), "C_EncryptInit", err, errlen) ||
	       p11_ckr(w->f->C_Encrypt(w->s, (CK_BYTE_PTR)in, len, out, outl), "C_Encrypt", err, errlen)
		       ? -1 : 0;
}

static int token_digest(struct p11_worker *w, const unsigned char *in, CK_ULONG len,
			unsigned char *out, CK_ULONG *outl, char *err, size_t errlen)
{
	*outl = 64;
	return p11_ckr(w->f->C_DigestInit(w->s, &w->mech), "C_DigestInit", err, errlen) ||
	       p11_ckr(w->f->C_Digest(w->s, (CK_BYTE_PTR)in, len, out, outl), "C_Digest", err, errlen)
		       ? -1 : 0;
}

/* One MAC of IN into OUT: C_SignInit + C_Sign with the secret key. */
static int token_mac(struct p11_worker *w, char *err, size_t errlen)
{
	w->outl = 64;
	return p11_ckr(w->f->C_SignInit(w->s, &w->mech, w->key), "C_SignInit", err, errlen) ||
	       p11_ckr(w->f->C_Sign(w->s, w->in, w->len, w->out, &w->outl), "C_Sign", err, errlen)
		       ? -1 : 0;
}

static int p11_run(void *state, uint64_t max, const atomic_int *stop, uint64_t *done, char *err,
		   size_t errlen)
{
	struct p11_worker *w = state;
	CK_MECHANISM m = { CKM_SHA256_RSA_PKCS, NULL, 0 };
	CK_RV rv;
	uint64_t i;
	int ret = 0;

	if (w->pkey)
		return p11_pkey_run(&w->pk, max, stop, done, err, errlen);
	for (i = 0; i < max && !atomic_load_explicit(stop, memory_order_relaxed); i++) {
		switch (w->job->algo->kind) {
		case ALGO_CIPHER:
		case ALGO_AEAD:  /* the output: ciphertext and tag */
			ret = token_encrypt(w, w->in, w->len, w->out, &w->outl, err, errlen);
			break;
		case ALGO_MAC:
			ret = token_mac(w, err, errlen);
			break;
		case ALGO_DIGEST:
			ret = token_digest(w, w->in, w->len, w->out, &w->outl, err, errlen);
			break;
		case ALGO_SIGN:
			if (w->job->mode == MODE_SIGN) {
				ret = sign_once(w, err, errlen);
				break;
			}
			rv = w->f->C_VerifyInit(w->s, &m, w->pub);
			if (rv == CKR_OK)
				rv = w->f->C_Verify(w->s, w->in, w->len, w->sig, w->siglen);
			if (rv != CKR_OK && !(w->fault && rv == CKR_SIGNATURE_INVALID))
				ret = p11_ckr(rv, "C_Verify", err, errlen);
			break;
		default: /* worker_keys refuses the other kinds */
			break;
		}
		if (ret < 0)
			break;
	}
	if (w->fault && i) {
		if (w->job->algo->kind != ALGO_SIGN)
			w->out[w->outl / 2] ^= 0x04;
		else if (w->job->mode == MODE_SIGN)
			w->sig[w->siglen / 2] ^= 0x01;
	}
	*done += i;
	return ret;
}

/* One operation through the timed path, outside the timed loop. */
static int run_one(struct p11_worker *w, uint64_t *done, char *err, size_t errlen)
{
	atomic_int never = 0;

	return p11_run(w, 1, &never, done, err, errlen);
}

/* The token's C_Verify on the current signature with one bit flipped must
 * say CKR_SIGNATURE_INVALID (through the timed path). */
static int verify_once(void *w, uint64_t *done, char *err, size_t errlen)
{
	return run_one(w, done, err, errlen);
}

static int verify_rejects_bad(struct p11_worker *w, char *err, size_t errlen)
{
	return verify_refuses_flip(w->sig, w->siglen, verify_once, w, "the token's C_Verify", err,
				   errlen);
}

/* EVP signs IN (SHA-256, PKCS#1 v1.5): the signature the token verifies. */
static int evp_sign_in(struct p11_worker *w, char *err, size_t errlen)
{
	unsigned char h[32];
	size_t l = sizeof(w->sig);

	if (EVP_Digest(w->in, w->len, h, NULL, EVP_sha256(), NULL) != 1 ||
	    EVP_PKEY_sign(w->evp_sctx, w->sig, &l, h, 32) != 1) {
		ERR_clear_error();
		snprintf(err, errlen, "OpenSSL could not sign for the token to verify");
		return -1;
	}
	w->siglen = (CK_ULONG)l;
	return 0;
}

/* Known answers through the worker's own session, key and mechanism, by way
 * of the timed path: the token's signature of "abc" must be the RFC 8017
 * encoding of its SHA-256; the token's verify must take OpenSSL's signature
 * and refuse a corrupted one. */
static int kat_sign(struct p11_worker *w, char *err, size_t errlen)
{
	static const unsigned char sha256_abc[32] = {
		0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae,
		0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61,
		0xf2, 0x00, 0x15, 0xad,
	};
	uint64_t unused = 0;
	int ret = -1;

	memcpy(w->in, "abc", 3);
	w->len = 3;
	if (w->job->mode == MODE_SIGN) {
		if (run_one(w, &unused, err, errlen) < 0)
			goto out;
		if (evp_rsa_check_encoding(w->evp_pub, w->sig, w->siglen, sha256_abc, err, errlen) < 0) {
			snprintf(err, errlen, "known-answer test: the token's signature of \"abc\" is not the RFC 8017 encoding of its SHA-256");
			goto out;
		}
	} else if (evp_sign_in(w, err, errlen) < 0 || run_one(w, &unused, err, errlen) < 0 ||
		   verify_rejects_bad(w, err, errlen) < 0) {
		goto out;
	}
	ret = 0;
out:
	/* The message to time: 32 random bytes, signed by OpenSSL for verify. */
	w->len = 32;
	if (ret == 0 && (RAND_bytes(w->in, 32) != 1 ||
			 (w->job->mode == MODE_VERIFY && evp_sign_in(w, err, errlen) < 0)))
		ret = -1;
	return ret;
}

/* RFC 4231 test case 6: SoftHSM2 refuses HMAC keys shorter than the
 * digest, so the row's case 2 ("Jefe") cannot go through a token. */
#define AA16 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
static const struct kat hmac_sha256_long_key = {
	AA16 AA16 AA16 AA16 AA16 AA16 AA16 AA16 "aaaaaa", NULL,
	"54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368204b6579204669727374",
	"60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54", "RFC 4231 test case 6", NULL,
};

/* The published key (and IV, and an AEAD's additional data, into AAD) as
 * the worker's key and mechanism for a while; the caller restores them. */
#define KAT_AAD_MAX 64
static int kat_key(struct p11_worker *w, const struct kat *k, unsigned char *iv, unsigned char *aad,
		   CK_OBJECT_HANDLE *h, char *err, size_t errlen)
{
	const struct algo *a = w->job->algo;
	unsigned char key[160];
	int kl = hex_decode(k->key, key, sizeof(key)), al = k->aad ? hex_decode(k->aad, aad, KAT_AAD_MAX) : 0;

	if (k->iv)
		hex_decode(k->iv, iv, 16);
	if (kl < 0 || secret_key(w, key, (CK_ULONG)kl, NULL, h, err, errlen) < 0)
		return -1;
	w->key = *h;
	if (a->kind == ALGO_CIPHER)
		w->mech = (CK_MECHANISM){ a->p11_mech, iv, a->block };
	else if (a->kind == ALGO_AEAD)
		w->gcm = (CK_GCM_PARAMS){ iv, 12, 96, al > 0 ? aad : NULL, al > 0 ? (CK_ULONG)al : 0, 128 };
	return 0;
}

/* Known answers through the worker's session and the timed path: the
 * row's published one (RSA and the elliptic curves have their own). */
static int p11_kat(void *state, char *err, size_t errlen)
{
	struct p11_worker *w = state;
	const struct algo *a = w->job->algo;
	const struct kat *k = a->kind == ALGO_MAC ? &hmac_sha256_long_key : &a->kat;
	unsigned char iv[16], aad[KAT_AAD_MAX], want[128], saved[64];
	CK_OBJECT_HANDLE h = CK_INVALID_HANDLE, saved_key = w->key;
	CK_MECHANISM saved_mech = w->mech;
	CK_GCM_PARAMS saved_gcm = w->gcm;
	uint64_t unused = 0;
	int wl, ret = -1;

	if (w->pkey)
		return p11_pkey_kat(&w->pk, err, errlen);
	if (is_rsa(a))
		return kat_sign(w, err, errlen);
	memcpy(saved, w->in, 64);
	w->len = (CK_ULONG)hex_decode(k->in, w->in, 64);
	wl = hex_decode(k->out, want, sizeof(want));
	if (a->kind != ALGO_DIGEST && kat_key(w, k, iv, aad, &h, err, errlen) < 0)
		goto out;
	if (run_one(w, &unused, err, errlen) < 0)
		goto out;
	if ((int)w->outl != wl || memcmp(w->out, want, (size_t)wl)) {
		snprintf(err, errlen, "known-answer test (%s) through the token gives a wrong answer",
			 k->source);
		goto out;
	}
	ret = 0;
out:
	if (h != CK_INVALID_HANDLE)
		w->f->C_DestroyObject(w->s, h);
	w->mech = saved_mech;
	w->gcm = saved_gcm;
	w->key = saved_key;
	w->len = (CK_ULONG)w->job->size;
	memcpy(w->in, saved, 64);
	return ret;
}

/* The same operation through EVP, on the same key, IV and input. */
static int evp_reference(struct p11_worker *w, const unsigned char *in, size_t len,
			 unsigned char *out, size_t *outl)
{
	const struct algo *a = w->job->algo;
	EVP_CIPHER_CTX *c;
	const char *sub, *param;
	char mac[16];
	unsigned int dl = 0;
	int l = 0, ok;

	if (a->kind == ALGO_DIGEST) {
		ok = EVP_Digest(in, len, out, &dl, w->md, NULL) == 1;
		*outl = dl;
		return ok ? 0 : -1;
	}
	if (a->kind == ALGO_MAC)
		return evp_mac_split(a->evp_name, mac, sizeof(mac), &sub, &param) < 0 ||
		       !EVP_Q_mac(NULL, mac, NULL, sub, NULL, w->key_bytes, a->key_len, in, len, out, 64, outl)
			       ? -1 : 0;
	c = EVP_CIPHER_CTX_new();
	ok = c && EVP_EncryptInit_ex2(c, w->cipher, w->key_bytes, w->iv, NULL) == 1 &&
	     EVP_CIPHER_CTX_set_padding(c, 0) == 1 && EVP_EncryptUpdate(c, out, &l, in, (int)len) == 1;
	EVP_CIPHER_CTX_free(c);
	*outl = (size_t)l;
	return ok ? 0 : -1;
}

/* EVP must verify the RSA signature the timed loop made or verified; the
 * timed verify must refuse a corrupted one. */
static int check_rsa(struct p11_worker *w, char *err, size_t errlen)
{
	unsigned char h[32];

	EVP_Digest(w->in, w->len, h, NULL, EVP_sha256(), NULL);
	if (EVP_PKEY_verify(w->evp_vctx, w->sig, w->siglen, h, 32) != 1) {
		ERR_clear_error();
		snprintf(err, errlen, "OpenSSL does not verify the %lu-byte signature %s",
			 (unsigned long)w->siglen,
			 w->job->mode == MODE_SIGN ? "the token made" : "the token verified");
		return -1;
	}
	if (w->job->mode == MODE_VERIFY)
		return verify_rejects_bad(w, err, errlen);
	/* Sign new data from here on. */
	memcpy(w->in, w->sig, w->len);
	return 0;
}

/* The token's ciphertext and tag decrypt and authenticate in EVP; the
 * token's C_Decrypt refuses them with a tag bit flipped. */
static int check_aead(struct p11_worker *w, char *err, size_t errlen)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	const CK_ULONG len = w->outl >= 16 ? w->outl - 16 : 0;
	CK_ULONG pl = w->len + 64;
	int l = 0;
	bool ok = c && w->outl >= 16 && EVP_DecryptInit_ex2(c, w->cipher, w->key_bytes, w->iv, NULL) == 1 &&
		  EVP_DecryptUpdate(c, w->ref, &l, w->out, (int)len) == 1 &&
		  EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, 16, w->out + len) == 1 &&
		  EVP_DecryptFinal_ex(c, w->ref + l, &l) == 1 && len == w->len && !memcmp(w->ref, w->in, len);
	CK_RV rv;

	EVP_CIPHER_CTX_free(c);
	ERR_clear_error();
	if (!ok) {
		snprintf(err, errlen, "the token's ciphertext and tag of %lu bytes do not decrypt and authenticate in OpenSSL EVP",
			 (unsigned long)len);
		return -1;
	}
	w->out[w->outl - 1] ^= 0x01;
	rv = w->f->C_DecryptInit(w->s, &w->mech, w->key);
	if (rv == CKR_OK)
		rv = w->f->C_Decrypt(w->s, w->out, w->outl, w->ref, &pl);
	w->out[w->outl - 1] ^= 0x01;
	if (rv == CKR_OK) {
		snprintf(err, errlen, "the token's C_Decrypt accepted a tag with one bit flipped");
		return -1;
	}
	return 0;
}

/* One timed operation through the token, checked independently: EVP's
 * ciphertext, digest or MAC equal, an AEAD record decrypted by EVP, a
 * signature verified by EVP, a secret derived the other way round. */
static int p11_check(void *state, uint64_t *done, char *err, size_t errlen)
{
	struct p11_worker *w = state;
	const struct algo *a = w->job->algo;
	const size_t len = w->len;
	size_t refl = 0;

	if (w->pkey)
		return p11_pkey_check(&w->pk, done, err, errlen);
	if (run_one(w, done, err, errlen) < 0)
		return -1;
	if (is_rsa(a))
		return check_rsa(w, err, errlen);
	if (a->kind == ALGO_AEAD) {
		if (check_aead(w, err, errlen) < 0)
			return -1;
	} else if (evp_reference(w, w->in, len, w->ref, &refl) < 0) {
		snprintf(err, errlen, "the EVP reference computation failed");
		return -1;
	} else if (refl != w->outl || memcmp(w->ref, w->out, refl)) {
		snprintf(err, errlen, "the token's %s of %zu bytes differs from OpenSSL EVP's",
			 a->kind == ALGO_CIPHER ? "ciphertext" : a->kind == ALGO_MAC ? "MAC" : "digest", len);
		return -1;
	}
	/* Feed the output back so the next operations see new data. */
	memcpy(w->in, w->out, w->outl < len ? w->outl : len);
	return 0;
}

/* --list with -b pkcs11: per row, its mechanism and whether the token
 * offers it (and what makes its key). */
static int p11_list(const struct backend_opts *o, FILE *out, char *err, size_t errlen)
{
	void *ctx;
	char why[512];
	const char *m;
	size_t i;
	int ret = p11_setup(&ctx, o, err, errlen);

	if (ret != BE_OK)
		return ret;
	for (i = 0; i < nalgos; i++) {
		m = algos[i].p11_mech_name ? algos[i].p11_mech_name : "-";
		fprintf(out, "%s\t%.*s\t%s\n", algos[i].name, (int)strcspn(m, " "), m,
			p11_supports(ctx, &algos[i], why, sizeof(why)) == BE_OK ? "yes" : "no");
	}
	p11_teardown(ctx);
	return BE_OK;
}

static void p11_inject_fault(void *state)
{
	struct p11_worker *w = state;

	w->fault = w->pk.fault = true;
}

static void p11_worker_fini(void *state)
{
	worker_free(state);
}

const struct backend backend_pkcs11 = {
	.name = "pkcs11",
	.setup = p11_setup,
	.teardown = p11_teardown,
	.describe = p11_describe,
	.supports = p11_supports,
	.job_init = p11_job_init,
	.job_fini = p11_job_fini,
	.worker_init = p11_worker_init,
	.kat = p11_kat,
	.run = p11_run,
	.check = p11_check,
	.inject_fault = p11_inject_fault,
	.worker_fini = p11_worker_fini,
	.list = p11_list,
};
