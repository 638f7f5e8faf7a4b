/* RSA sign and verify through EVP_PKEY, as openssl speed rsa times them. */
#include <stdio.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

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

static void rsa_error(char *err, size_t errlen, const char *what)
{
	unsigned long e = ERR_get_error();
	char buf[256] = "";

	if (e)
		ERR_error_string_n(e, buf, sizeof(buf));
	snprintf(err, errlen, "%s failed%s%s", what, e ? ": " : "", buf);
	ERR_clear_error();
}

EVP_PKEY *evp_rsa_keygen(unsigned bits, char *err, size_t errlen)
{
	EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)bits);

	if (!k)
		rsa_error(err, errlen, "RSA key generation");
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

int evp_rsa_worker_init(EVP_PKEY *shared, EVP_PKEY **pkey, EVP_PKEY_CTX **sctx,
			EVP_PKEY_CTX **vctx, unsigned char hash[32], unsigned char *sig,
			size_t cap, size_t *siglen, char *err, size_t errlen)
{
	/* Each worker has its own key object: no shared blinding state. */
	*pkey = EVP_PKEY_dup(shared);
	if (!*pkey || !(*sctx = evp_rsa_ctx(*pkey, true)) || !(*vctx = evp_rsa_ctx(*pkey, false))) {
		rsa_error(err, errlen, "RSA context set-up");
		return -1;
	}
	*siglen = cap;
	if (RAND_bytes(hash, 32) != 1 || EVP_PKEY_sign(*sctx, sig, siglen, hash, 32) != 1) {
		rsa_error(err, errlen, "RSA sign");
		return -1;
	}
	return 0;
}

int evp_rsa_kat(EVP_PKEY *pkey, EVP_PKEY_CTX *sctx, char *err, size_t errlen)
{
	unsigned char sig[1024], em[1024], want[1024];
	size_t siglen = sizeof(sig), k, ps;
	BIGNUM *n = NULL, *e = NULL, *s = NULL, *m = NULL;
	BN_CTX *bn = BN_CTX_new();
	int ret = -1;

	if (!bn || EVP_PKEY_sign(sctx, sig, &siglen, sha256_abc, 32) != 1 ||
	    EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_RSA_N, &n) != 1 ||
	    EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_RSA_E, &e) != 1) {
		rsa_error(err, errlen, "RSA known-answer signature");
		goto out;
	}
	k = (size_t)BN_num_bytes(n);
	s = BN_bin2bn(sig, (int)siglen, NULL);
	m = BN_new();
	if (!s || !m || k > sizeof(em) || BN_mod_exp(m, s, e, n, bn) != 1 ||
	    BN_bn2binpad(m, em, (int)k) < 0) {
		rsa_error(err, errlen, "RSA public operation");
		goto out;
	}
	/* EM = 0x00 || 0x01 || PS (0xff...) || 0x00 || DigestInfo || H */
	ps = k - 3 - sizeof(sha256_prefix) - 32;
	want[0] = 0x00;
	want[1] = 0x01;
	memset(want + 2, 0xff, ps);
	want[2 + ps] = 0x00;
	memcpy(want + 3 + ps, sha256_prefix, sizeof(sha256_prefix));
	memcpy(want + 3 + ps + sizeof(sha256_prefix), sha256_abc, 32);
	if (siglen != k || memcmp(em, want, k) != 0) {
		snprintf(err, errlen,
			 "known-answer test: the signature does not encode SHA-256(\"abc\") as RFC 8017 EMSA-PKCS1-v1_5");
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

int evp_rsa_run(bool sign, EVP_PKEY_CTX *sctx, EVP_PKEY_CTX *vctx, const unsigned char hash[32],
		unsigned char *sig, size_t cap, size_t *siglen, uint64_t max,
		const atomic_int *stop, uint64_t *done, char *err, size_t errlen)
{
	uint64_t i;
	size_t len;

	for (i = 0; i < max && !atomic_load_explicit(stop, memory_order_relaxed); i++) {
		if (sign) {
			len = cap;
			if (EVP_PKEY_sign(sctx, sig, &len, hash, 32) != 1) {
				*done += i;
				rsa_error(err, errlen, "RSA sign");
				return -1;
			}
			*siglen = len;
		} else if (EVP_PKEY_verify(vctx, sig, *siglen, hash, 32) != 1) {
			*done += i;
			rsa_error(err, errlen, "RSA verify of a good signature");
			return -1;
		}
	}
	*done += i;
	return 0;
}

int evp_rsa_checked(bool sign, EVP_PKEY_CTX *sctx, EVP_PKEY_CTX *vctx,
		    const unsigned char hash[32], unsigned char *sig, size_t cap,
		    size_t *siglen, bool corrupt, char *err, size_t errlen)
{
	size_t len = cap;
	int ok;

	if (sign) {
		if (EVP_PKEY_sign(sctx, sig, &len, hash, 32) != 1) {
			rsa_error(err, errlen, "RSA sign");
			return -1;
		}
		*siglen = len;
	}
	if (corrupt)
		sig[*siglen / 2] ^= 0x01;
	ok = EVP_PKEY_verify(vctx, sig, *siglen, hash, 32);
	ERR_clear_error();
	if (corrupt)
		sig[*siglen / 2] ^= 0x01;
	if (ok != 1) {
		snprintf(err, errlen, "signature check failed: the %zu-byte signature does not verify",
			 *siglen);
		return -1;
	}
	return 0;
}
