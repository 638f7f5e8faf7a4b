/* RSA sign and verify through EVP_PKEY, as openssl speed rsa times them. */
#include <stdio.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

#include "backend.h"
#include "evp_rsa.h"

/* DER DigestInfo prefix for SHA-256 (RFC 8017 section 9.2, note 1). */
static const unsigned char sha256_prefix[] = {
	0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
	0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20,
};
/* SHA-256("abc"), FIPS 180-2 B.1. */
static const unsigned char sha256_abc[32] = {
	0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae,
	0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61,
	0xf2, 0x00, 0x15, 0xad,
};

EVP_PKEY *evp_rsa_keygen(unsigned bits, char *err, size_t errlen)
{
	EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)bits);

	if (!k)
		ossl_failed(err, errlen, "RSA key generation");
	return k;
}

EVP_PKEY_CTX *evp_rsa_ctx(EVP_PKEY *pkey, bool sign)
{
	EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL);

	if (!c || (sign ? EVP_PKEY_sign_init(c) : EVP_PKEY_verify_init(c)) != 1 ||
	    EVP_PKEY_CTX_set_rsa_padding(c, RSA_PKCS1_PADDING) != 1 ||
	    EVP_PKEY_CTX_set_signature_md(c, EVP_sha256()) != 1) {
		EVP_PKEY_CTX_free(c);
		return NULL;
	}
	return c;
}

EVP_PKEY *evp_rsa_from_ne(const BIGNUM *n, const BIGNUM *e)
{
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *fc = NULL;
	EVP_PKEY *k = NULL;

	if (!bld || !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e) ||
	    !(params = OSSL_PARAM_BLD_to_param(bld)) ||
	    !(fc = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL)) || EVP_PKEY_fromdata_init(fc) != 1 ||
	    EVP_PKEY_fromdata(fc, &k, EVP_PKEY_PUBLIC_KEY, params) != 1)
		k = NULL;
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	EVP_PKEY_CTX_free(fc);
	return k;
}

EVP_PKEY *evp_rsa_public(EVP_PKEY *pkey)
{
	BIGNUM *n = NULL, *e = NULL;
	EVP_PKEY *k = NULL;

	if (EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_RSA_N, &n) == 1 &&
	    EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_RSA_E, &e) == 1)
		k = evp_rsa_from_ne(n, e);
	BN_free(n);
	BN_free(e);
	return k;
}

/* One signature of R->hash through the timed context. */
static int sign_once(struct evp_rsa *r, char *err, size_t errlen)
{
	size_t len = sizeof(r->sig);

	if (EVP_PKEY_sign(r->sctx, r->sig, &len, r->hash, 32) != 1) {
		ossl_failed(err, errlen, "RSA sign");
		return -1;
	}
	r->siglen = len;
	return 0;
}

int evp_rsa_worker_init(struct evp_rsa *r, EVP_PKEY *shared, char *err, size_t errlen)
{
	/* Each worker has its own key object: no shared blinding state.  The
	 * checker verifies with a public key and a context of its own. */
	r->pkey = EVP_PKEY_dup(shared);
	if (!r->pkey || !(r->sctx = evp_rsa_ctx(r->pkey, true)) ||
	    !(r->vctx = evp_rsa_ctx(r->pkey, false)) || !(r->ref_pub = evp_rsa_public(r->pkey)) ||
	    !(r->ref_vctx = evp_rsa_ctx(r->ref_pub, false))) {
		ossl_failed(err, errlen, "RSA context set-up");
		return -1;
	}
	if (RAND_bytes(r->hash, 32) != 1) {
		ossl_failed(err, errlen, "RAND_bytes");
		return -1;
	}
	return sign_once(r, err, errlen);
}

void evp_rsa_worker_fini(struct evp_rsa *r)
{
	EVP_PKEY_CTX_free(r->sctx);
	EVP_PKEY_CTX_free(r->vctx);
	EVP_PKEY_CTX_free(r->ref_vctx);
	EVP_PKEY_free(r->pkey);
	EVP_PKEY_free(r->ref_pub);
}

int evp_rsa_run(struct evp_rsa *r, bool sign, uint64_t max, const atomic_int *stop,
		uint64_t *done, char *err, size_t errlen)
{
	uint64_t i;
	int ret = 0;

	for (i = 0; i < max && !atomic_load_explicit(stop, memory_order_relaxed); i++) {
		if (sign) {
			if (sign_once(r, err, errlen) < 0) {
				ret = -1;
				break;
			}
		} else if (EVP_PKEY_verify(r->vctx, r->sig, r->siglen, r->hash, 32) != 1 && !r->fault) {
			ossl_failed(err, errlen, "RSA verify of a good signature");
			ret = -1;
			break;
		}
	}
	ERR_clear_error();
	if (sign && r->fault && i)
		r->sig[r->siglen / 2] ^= 0x01;
	*done += i;
	return ret;
}

int evp_rsa_check_encoding(EVP_PKEY *pub, const unsigned char *sig, size_t siglen,
			   const unsigned char digest[32], char *err, size_t errlen)
{
	unsigned char em[1024], want[1024];
	size_t k, ps;
	BIGNUM *n = NULL, *e = NULL, *s = NULL, *m = NULL;
	BN_CTX *bn = BN_CTX_new();
	int ret = -1;

	if (!bn || EVP_PKEY_get_bn_param(pub, OSSL_PKEY_PARAM_RSA_N, &n) != 1 ||
	    EVP_PKEY_get_bn_param(pub, OSSL_PKEY_PARAM_RSA_E, &e) != 1) {
		ossl_failed(err, errlen, "RSA public key");
		goto out;
	}
	k = (size_t)BN_num_bytes(n);
	s = BN_bin2bn(sig, (int)siglen, NULL);
	m = BN_new();
	if (!s || !m || k > sizeof(em) || k < 3 + sizeof(sha256_prefix) + 32 + 8 ||
	    BN_mod_exp(m, s, e, n, bn) != 1 || BN_bn2binpad(m, em, (int)k) < 0) {
		ossl_failed(err, errlen, "RSA public operation");
		goto out;
	}
	/* EM = 0x00 || 0x01 || PS (0xff...) || 0x00 || DigestInfo || H */
	ps = k - 3 - sizeof(sha256_prefix) - 32;
	want[0] = 0x00;
	want[1] = 0x01;
	memset(want + 2, 0xff, ps);
	want[2 + ps] = 0x00;
	memcpy(want + 3 + ps, sha256_prefix, sizeof(sha256_prefix));
	memcpy(want + 3 + ps + sizeof(sha256_prefix), digest, 32);
	if (siglen != k || memcmp(em, want, k) != 0) {
		snprintf(err, errlen,
			 "the %zu-byte signature is not the RFC 8017 EMSA-PKCS1-v1_5 encoding of its SHA-256 digest",
			 siglen);
		goto out;
	}
	ret = 0;
out:
	BN_free(n);
	BN_free(e);
	BN_free(s);
	BN_free(m);
	BN_CTX_free(bn);
	return ret;
}

static int verify_once(void *r, uint64_t *done, char *err, size_t errlen)
{
	atomic_int never = 0;

	return evp_rsa_run(r, false, 1, &never, done, err, errlen);
}

/* The timed verify on R->sig with one bit flipped must fail. */
static int verify_rejects_bad(struct evp_rsa *r, char *err, size_t errlen)
{
	return verify_refuses_flip(r->sig, r->siglen, verify_once, r, "the timed RSA verify", err,
				   errlen);
}

int evp_rsa_kat(struct evp_rsa *r, bool sign, char *err, size_t errlen)
{
	unsigned char saved[32];
	atomic_int never = 0;
	uint64_t unused = 0;
	int ret = -1;

	memcpy(saved, r->hash, 32);
	memcpy(r->hash, sha256_abc, 32);
	if (evp_rsa_run(r, true, 1, &never, &unused, err, errlen) < 0)
		goto out;
	if (evp_rsa_check_encoding(r->ref_pub, r->sig, r->siglen, sha256_abc, err, errlen) < 0) {
		snprintf(err, errlen, "known-answer test: the signature of SHA-256(\"abc\") is not its RFC 8017 EMSA-PKCS1-v1_5 encoding");
		goto out;
	}
	if (!sign && (evp_rsa_run(r, false, 1, &never, &unused, err, errlen) < 0 ||
		      verify_rejects_bad(r, err, errlen) < 0))
		goto out;
	ret = 0;
out:
	memcpy(r->hash, saved, 32);
	/* The loop's own signature again, made while no fault is armed. */
	if (ret == 0 && !sign && sign_once(r, err, errlen) < 0)
		ret = -1;
	return ret;
}

int evp_rsa_check(struct evp_rsa *r, bool sign, uint64_t *done, char *err, size_t errlen)
{
	atomic_int never = 0;

	if (evp_rsa_run(r, sign, 1, &never, done, err, errlen) < 0)
		return -1;
	if (EVP_PKEY_verify(r->ref_vctx, r->sig, r->siglen, r->hash, 32) != 1) {
		ERR_clear_error();
		snprintf(err, errlen, "the %zu-byte signature %s does not verify", r->siglen,
			 sign ? "made in the timed loop" : "the timed loop verifies");
		return -1;
	}
	if (!sign && verify_rejects_bad(r, err, errlen) < 0)
		return -1;
	if (sign) {
		/* Sign new data from here on. */
		memcpy(r->hash, r->sig, 32);
	}
	return 0;
}
