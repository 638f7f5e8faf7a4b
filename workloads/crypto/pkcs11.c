/*
 * The PKCS#11 backend: every worker opens its own session (after binding to
 * its PU), holds its own session-object keys, and times C_EncryptInit +
 * C_Encrypt, C_DigestInit + C_Digest, C_SignInit + C_Sign or C_VerifyInit +
 * C_Verify.  Results are cross-checked against OpenSSL EVP with the same key
 * material, before timing and on samples during the run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/provider.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

#include "backend.h"
#include "evp_rsa.h"
#include "p11.h"

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
	unsigned char key_bytes[32], iv[16];
	unsigned char *in, *out, *ref;
	unsigned char sig[1024];
	CK_ULONG siglen;
	/* The EVP side of the cross-check. */
	EVP_CIPHER *cipher;
	EVP_MD *md;
	EVP_PKEY *evp_pub;          /* built from the token's public key */
	EVP_PKEY_CTX *evp_sctx, *evp_vctx;
	EVP_PKEY *evp_priv;
};

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

static const char *mech_name(CK_MECHANISM_TYPE m)
{
	switch (m) {
	case CKM_AES_CBC: return "CKM_AES_CBC";
	case CKM_DES_CBC: return "CKM_DES_CBC";
	case CKM_DES3_CBC: return "CKM_DES3_CBC";
	case CKM_MD5: return "CKM_MD5";
	case CKM_SHA_1: return "CKM_SHA_1";
	case CKM_SHA256: return "CKM_SHA256";
	case CKM_SHA256_RSA_PKCS: return "CKM_SHA256_RSA_PKCS";
	default: return "mechanism";
	}
}

static int p11_supports(void *ctx, const struct algo *a, char *err, size_t errlen)
{
	struct p11_backend *b = ctx;
	EVP_CIPHER *c;

	if (!p11_has_mechanism(&b->p11, a->p11_mech)) {
		snprintf(err, errlen, "%s: the module lacks %s (CKR_MECHANISM_INVALID)", a->name,
			 mech_name(a->p11_mech));
		return BE_SKIP;
	}
	/* The cross-check needs the algorithm in OpenSSL too. */
	if (a->kind == ALGO_CIPHER) {
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
	if (job->algo->kind != ALGO_SIGN)
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

static int ckr(CK_RV rv, const char *what, char *err, size_t errlen)
{
	if (rv == CKR_OK)
		return 0;
	snprintf(err, errlen, "%s failed: %s", what, p11_rv_name(rv));
	return -1;
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
	return a->p11_mech == CKM_AES_CBC ? CKK_AES : a->p11_mech == CKM_DES_CBC ? CKK_DES : CKK_DES3;
}

/* A secret key as a session object (CKA_TOKEN false: no files touched). */
static int import_secret(struct p11_worker *w, const unsigned char *key, CK_ULONG len,
			 CK_OBJECT_HANDLE *h, char *err, size_t errlen)
{
	CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
	CK_KEY_TYPE kt = key_type(w->job->algo);
	CK_BBOOL no = CK_FALSE, yes = CK_TRUE;
	CK_ATTRIBUTE t[] = {
		{ CKA_CLASS, &cls, sizeof(cls) }, { CKA_KEY_TYPE, &kt, sizeof(kt) },
		{ CKA_TOKEN, &no, sizeof(no) }, { CKA_ENCRYPT, &yes, sizeof(yes) },
		{ CKA_DECRYPT, &yes, sizeof(yes) }, { CKA_VALUE, (void *)key, len },
	};

	return ckr(w->f->C_CreateObject(w->s, t, sizeof(t) / sizeof(t[0]), h), "C_CreateObject (key)",
		   err, errlen);
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
	OSSL_PARAM_BLD *bld = NULL;
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *fc = NULL;
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
	if (ckr(w->f->C_CreateObject(w->s, t, 13, &w->key), "C_CreateObject (RSA private key)", err, errlen) ||
	    ckr(w->f->C_CreateObject(w->s, pt, 6, &w->pub), "C_CreateObject (RSA public key)", err, errlen) ||
	    ckr(w->f->C_GetAttributeValue(w->s, w->pub, back, 2), "C_GetAttributeValue (public key)", err,
		errlen))
		goto out;
	/* EVP verifies with what the token says its public key is. */
	n = BN_bin2bn(n_back, (int)back[0].ulValueLen, NULL);
	e = BN_bin2bn(e_back, (int)back[1].ulValueLen, NULL);
	bld = OSSL_PARAM_BLD_new();
	if (!n || !e || !bld || !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e) ||
	    !(params = OSSL_PARAM_BLD_to_param(bld)) ||
	    !(fc = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL)) || EVP_PKEY_fromdata_init(fc) != 1 ||
	    EVP_PKEY_fromdata(fc, &w->evp_pub, EVP_PKEY_PUBLIC_KEY, params) != 1) {
		snprintf(err, errlen, "cannot build an EVP key from the token's public key");
		goto out;
	}
	ret = 0;
out:
	explicit_bzero(parts, sizeof(parts));
	BN_free(n);
	BN_free(e);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	EVP_PKEY_CTX_free(fc);
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
	free(w->in);
	free(w->out);
	free(w->ref);
	free(w);
}

static int sign_once(struct p11_worker *w, char *err, size_t errlen)
{
	CK_MECHANISM m = { CKM_SHA256_RSA_PKCS, NULL, 0 };

	w->siglen = sizeof(w->sig);
	if (ckr(w->f->C_SignInit(w->s, &m, w->key), "C_SignInit", err, errlen) ||
	    ckr(w->f->C_Sign(w->s, w->in, 32, w->sig, &w->siglen), "C_Sign", err, errlen))
		return -1;
	return 0;
}

static int p11_worker_init(void *ctx, const struct job *job, void **state, char *err,
			   size_t errlen)
{
	struct p11_backend *b = ctx;
	struct p11_worker *w = calloc(1, sizeof(*w));
	const struct algo *a = job->algo;
	size_t size = job->size ? job->size : 64;
	if (!w)
		return -1;
	w->job = job;
	w->f = b->p11.f;
	w->in = malloc(size);
	w->out = malloc(size + 64);
	w->ref = malloc(size + 64);
	if (!w->in || !w->out || !w->ref || RAND_bytes(w->in, (int)size) != 1 ||
	    RAND_bytes(w->key_bytes, sizeof(w->key_bytes)) != 1 || RAND_bytes(w->iv, sizeof(w->iv)) != 1) {
		snprintf(err, errlen, "out of memory or randomness");
		goto fail;
	}
	if (ckr(w->f->C_OpenSession(b->p11.slot, CKF_SERIAL_SESSION, NULL, NULL, &w->s),
		"C_OpenSession", err, errlen))
		goto fail;
	w->open = true;
	switch (a->kind) {
	case ALGO_CIPHER:
		if (a->p11_mech != CKM_AES_CBC)
			des_parity(w->key_bytes, a->key_len);
		w->mech = (CK_MECHANISM){ a->p11_mech, w->iv, a->block };
		w->cipher = EVP_CIPHER_fetch(NULL, a->evp_name, NULL);
		if (!w->cipher) {
			snprintf(err, errlen, "OpenSSL lacks %s", a->evp_name);
			goto fail;
		}
		if (import_secret(w, w->key_bytes, a->key_len, &w->key, err, errlen) < 0)
			goto fail;
		break;
	case ALGO_DIGEST:
		w->mech = (CK_MECHANISM){ a->p11_mech, NULL, 0 };
		w->md = EVP_MD_fetch(NULL, a->evp_name, NULL);
		if (!w->md) {
			snprintf(err, errlen, "OpenSSL lacks %s", a->evp_name);
			goto fail;
		}
		break;
	case ALGO_SIGN:
		w->evp_priv = EVP_PKEY_dup(job->shared);
		if (!w->evp_priv || import_rsa(w, w->evp_priv, err, errlen) < 0)
			goto fail;
		w->evp_vctx = evp_rsa_ctx(w->evp_pub, false);
		w->evp_sctx = evp_rsa_ctx(w->evp_priv, true);
		if (!w->evp_vctx || !w->evp_sctx) {
			snprintf(err, errlen, "cannot set up OpenSSL's RSA contexts");
			goto fail;
		}
		break;
	}
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
	return ckr(w->f->C_EncryptInit(w->s, &w->mech, w->key), "C_EncryptInit", err, errlen) ||
	       ckr(w->f->C_Encrypt(w->s, (CK_BYTE_PTR)in, len, out, outl), "C_Encrypt", err, errlen)
		       ? -1 : 0;
}

static int token_digest(struct p11_worker *w, const unsigned char *in, CK_ULONG len,
			unsigned char *out, CK_ULONG *outl, char *err, size_t errlen)
{
	*outl = 64;
	return ckr(w->f->C_DigestInit(w->s, &w->mech), "C_DigestInit", err, errlen) ||
	       ckr(w->f->C_Digest(w->s, (CK_BYTE_PTR)in, len, out, outl), "C_Digest", err, errlen)
		       ? -1 : 0;
}

/* The same operation through EVP, on the same key, IV and input. */
static int evp_reference(struct p11_worker *w, const unsigned char *key, const unsigned char *iv,
			 const unsigned char *in, size_t len, unsigned char *out, size_t *outl)
{
	EVP_CIPHER_CTX *c;
	unsigned int dl = 0;
	int l = 0, ok;

	if (w->job->algo->kind == ALGO_DIGEST) {
		ok = EVP_Digest(in, len, out, &dl, w->md, NULL) == 1;
		*outl = dl;
		return ok ? 0 : -1;
	}
	c = EVP_CIPHER_CTX_new();
	ok = c && EVP_EncryptInit_ex2(c, w->cipher, key, iv, NULL) == 1 &&
	     EVP_CIPHER_CTX_set_padding(c, 0) == 1 && EVP_EncryptUpdate(c, out, &l, in, (int)len) == 1;
	EVP_CIPHER_CTX_free(c);
	*outl = (size_t)l;
	return ok ? 0 : -1;
}

static int p11_kat(void *state, char *err, size_t errlen)
{
	struct p11_worker *w = state;
	const struct algo *a = w->job->algo;
	unsigned char key[32], iv[16], in[64], want[64], got[128];
	CK_OBJECT_HANDLE h;
	CK_MECHANISM saved = w->mech;
	CK_OBJECT_HANDLE saved_key = w->key;
	CK_ULONG gl;
	int il, wl, ret;

	if (a->kind == ALGO_SIGN) {
		unsigned char evp_sig[1024];
		size_t el = sizeof(evp_sig);
		EVP_PKEY_CTX *sc = w->evp_sctx;

		/* The token's PKCS#1 v1.5 signature must be byte for byte the one
		 * EVP makes with the same key; EVP's passes the RFC 8017 check. */
		ret = evp_rsa_kat(w->evp_priv, sc, err, errlen);
		if (!ret) {
			unsigned char h256[32];
			CK_MECHANISM m = { CKM_SHA256_RSA_PKCS, NULL, 0 };

			EVP_Digest("abc", 3, h256, NULL, EVP_sha256(), NULL);
			w->siglen = sizeof(w->sig);
			ret = EVP_PKEY_sign(sc, evp_sig, &el, h256, 32) == 1 ? 0 : -1;
			if (!ret)
				ret = ckr(w->f->C_SignInit(w->s, &m, w->key), "C_SignInit", err, errlen) ||
				      ckr(w->f->C_Sign(w->s, (CK_BYTE_PTR)"abc", 3, w->sig, &w->siglen),
					  "C_Sign", err, errlen) ? -1 : 0;
			if (!ret && (w->siglen != el || memcmp(w->sig, evp_sig, el))) {
				snprintf(err, errlen, "known-answer test: the token's signature of \"abc\" differs from OpenSSL's");
				ret = -1;
			}
		}
		/* The message to time: 32 random bytes, signed once for verify. */
		if (!ret && (RAND_bytes(w->in, 32) != 1 || sign_once(w, err, errlen) < 0))
			ret = -1;
		return ret;
	}
	il = hex_decode(a->kat.in, in, sizeof(in));
	wl = hex_decode(a->kat.out, want, sizeof(want));
	if (a->kind == ALGO_DIGEST) {
		if (token_digest(w, in, (CK_ULONG)il, got, &gl, err, errlen) < 0)
			return -1;
	} else {
		hex_decode(a->kat.key, key, sizeof(key));
		hex_decode(a->kat.iv, iv, sizeof(iv));
		if (import_secret(w, key, a->key_len, &h, err, errlen) < 0)
			return -1;
		w->mech = (CK_MECHANISM){ a->p11_mech, iv, a->block };
		w->key = h;
		ret = token_encrypt(w, in, (CK_ULONG)il, got, &gl, err, errlen);
		w->f->C_DestroyObject(w->s, h);
		w->mech = saved;
		w->key = saved_key;
		if (ret < 0)
			return -1;
	}
	if ((int)gl != wl || memcmp(got, want, (size_t)wl)) {
		snprintf(err, errlen, "known-answer test (%s) through the token gives a wrong answer",
			 a->kat.source);
		return -1;
	}
	return 0;
}

static int p11_run(void *state, uint64_t max, const atomic_int *stop, uint64_t *done, char *err,
		   size_t errlen)
{
	struct p11_worker *w = state;
	const CK_ULONG size = (CK_ULONG)w->job->size;
	CK_MECHANISM m = { CKM_SHA256_RSA_PKCS, NULL, 0 };
	CK_ULONG outl;
	uint64_t i;
	int ret = 0;

	for (i = 0; i < max && !atomic_load_explicit(stop, memory_order_relaxed); i++) {
		switch (w->job->algo->kind) {
		case ALGO_CIPHER:
			ret = token_encrypt(w, w->in, size, w->out, &outl, err, errlen);
			break;
		case ALGO_DIGEST:
			ret = token_digest(w, w->in, size, w->out, &outl, err, errlen);
			break;
		case ALGO_SIGN:
			if (w->job->mode == MODE_SIGN) {
				ret = sign_once(w, err, errlen);
			} else {
				ret = ckr(w->f->C_VerifyInit(w->s, &m, w->pub), "C_VerifyInit", err, errlen) ||
				      ckr(w->f->C_Verify(w->s, w->in, 32, w->sig, w->siglen), "C_Verify", err,
					  errlen) ? -1 : 0;
			}
			break;
		}
		if (ret < 0)
			break;
	}
	*done += i;
	return ret;
}

/* One operation through the token, and the same through EVP: they must
 * agree (ciphertext, digest), or EVP must verify the token's signature with
 * the public key read back from the token. */
static int p11_checked_op(void *state, bool corrupt, char *err, size_t errlen)
{
	struct p11_worker *w = state;
	const size_t size = w->job->size;
	CK_MECHANISM m = { CKM_SHA256_RSA_PKCS, NULL, 0 };
	unsigned char h[32];
	CK_ULONG outl = 0;
	size_t refl = 0;
	CK_RV rv;

	switch (w->job->algo->kind) {
	case ALGO_CIPHER:
	case ALGO_DIGEST:
		if ((w->job->algo->kind == ALGO_CIPHER
			     ? token_encrypt(w, w->in, (CK_ULONG)size, w->out, &outl, err, errlen)
			     : token_digest(w, w->in, (CK_ULONG)size, w->out, &outl, err, errlen)) < 0)
			return -1;
		if (corrupt)
			w->out[outl / 2] ^= 0x04;
		if (evp_reference(w, w->key_bytes, w->iv, w->in, size, w->ref, &refl) < 0) {
			snprintf(err, errlen, "the EVP reference computation failed");
			return -1;
		}
		if (refl != outl || memcmp(w->ref, w->out, refl)) {
			snprintf(err, errlen, "the token's %s of %zu bytes differs from OpenSSL EVP's",
				 w->job->algo->kind == ALGO_CIPHER ? "ciphertext" : "digest", size);
			return -1;
		}
		/* Feed the output back so the next operations see new data. */
		memcpy(w->in, w->out, outl < size ? outl : size);
		return 0;
	case ALGO_SIGN:
		if (w->job->mode == MODE_SIGN && sign_once(w, err, errlen) < 0)
			return -1;
		if (corrupt)
			w->sig[w->siglen / 2] ^= 0x01;
		EVP_Digest(w->in, 32, h, NULL, EVP_sha256(), NULL);
		if (EVP_PKEY_verify(w->evp_vctx, w->sig, w->siglen, h, 32) != 1) {
			ERR_clear_error();
			if (corrupt)
				w->sig[w->siglen / 2] ^= 0x01;
			snprintf(err, errlen, "OpenSSL does not verify the token's %lu-byte signature",
				 (unsigned long)w->siglen);
			return -1;
		}
		if (w->job->mode == MODE_VERIFY) {
			rv = w->f->C_VerifyInit(w->s, &m, w->pub);
			if (rv == CKR_OK)
				rv = w->f->C_Verify(w->s, w->in, 32, w->sig, w->siglen);
			if (rv != CKR_OK)
				return ckr(rv, "C_Verify of a good signature", err, errlen);
		}
		return 0;
	}
	return -1;
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
	.checked_op = p11_checked_op,
	.worker_fini = p11_worker_fini,
};
