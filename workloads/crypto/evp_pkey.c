/* ECDSA, EdDSA and key agreement through EVP_PKEY, as openssl speed times
 * them: ECDSA signs a digest, EdDSA a message, derive is EVP_PKEY_derive. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <openssl/conf.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/provider.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/x509.h>

#include "evp_pkey.h"

/* EdDSA signs whole messages through a digest-sign context. */
static bool is_eddsa(const struct algo *a)
{
	return a->kind == ALGO_SIGN && !a->group;
}

EVP_PKEY *evp_pkey_keygen(const struct algo *a, char *err, size_t errlen)
{
	EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(NULL, a->evp_name, NULL);
	OSSL_PARAM params[2] = { OSSL_PARAM_END, OSSL_PARAM_END };
	EVP_PKEY *k = NULL;

	if (a->group)
		params[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME,
							     (char *)a->group, 0);
	if (!c || EVP_PKEY_keygen_init(c) != 1 || EVP_PKEY_CTX_set_params(c, params) != 1 ||
	    EVP_PKEY_generate(c, &k) != 1)
		ossl_failed(err, errlen, "key generation");
	EVP_PKEY_CTX_free(c);
	return k;
}

/* The public half as an object of its own (through its DER encoding). */
static EVP_PKEY *public_of(EVP_PKEY *k)
{
	unsigned char *der = NULL;
	const unsigned char *q;
	int n = i2d_PUBKEY(k, &der);
	EVP_PKEY *pub = NULL;

	if (n > 0) {
		q = der;
		pub = d2i_PUBKEY(NULL, &q, n);
	}
	OPENSSL_free(der);
	return pub;
}

/* A sign, verify or derive (against PEER) context on K, in library
 * context LIB (NULL: the process's, where the checker works). */
static int contexts_on(const struct evp_pkey *p, OSSL_LIB_CTX *lib, EVP_PKEY *k,
		       enum algo_mode mode, EVP_PKEY *peer, EVP_PKEY_CTX **ctx, EVP_MD_CTX **mctx)
{
	const char *propq = lib ? p->propq : NULL;

	if (is_eddsa(p->a)) {
		*mctx = EVP_MD_CTX_new();
		return *mctx && (mode == MODE_SIGN ?
				 EVP_DigestSignInit_ex(*mctx, NULL, NULL, lib, propq, k, NULL) :
				 EVP_DigestVerifyInit_ex(*mctx, NULL, NULL, lib, propq, k, NULL)) == 1 ? 0 : -1;
	}
	*ctx = EVP_PKEY_CTX_new_from_pkey(lib, k, propq);
	if (!*ctx)
		return -1;
	if (mode == MODE_SIGN)
		return EVP_PKEY_sign_init(*ctx) == 1 ? 0 : -1;
	if (mode == MODE_VERIFY)
		return EVP_PKEY_verify_init(*ctx) == 1 ? 0 : -1;
	return EVP_PKEY_derive_init(*ctx) == 1 && EVP_PKEY_derive_set_peer(*ctx, peer) == 1 ? 0 : -1;
}

static int sign_into(const struct evp_pkey *p, EVP_PKEY_CTX *ctx, EVP_MD_CTX *mctx,
		     unsigned char *out, size_t *len)
{
	if (is_eddsa(p->a))
		return EVP_DigestSign(mctx, out, len, p->msg, p->msglen);
	return EVP_PKEY_sign(ctx, out, len, p->msg, p->msglen);
}

static bool verifies(const struct evp_pkey *p, EVP_PKEY_CTX *ctx, EVP_MD_CTX *mctx,
		     const unsigned char *sig, size_t len)
{
	bool ok;

	if (is_eddsa(p->a))
		ok = EVP_DigestVerify(mctx, sig, len, p->msg, p->msglen) == 1;
	else
		ok = EVP_PKEY_verify(ctx, sig, len, p->msg, p->msglen) == 1;
	ERR_clear_error();
	return ok;
}

/*
 * The worker's own library context, with the process's configuration and
 * providers.  OpenSSL 3.0 fetches inside every ECDSA signature (the nonce's
 * digest) under its library context's locks: workers sharing one would
 * contend there, where openssl speed -multi's processes do not.
 */
static int own_library(struct evp_pkey *p, const char *const *providers, unsigned nprov,
		       const char *propq, char *err, size_t errlen)
{
	char *cnf = CONF_get1_default_config_file();
	unsigned i;
	int ret = -1;

	p->propq = propq;
	if (!(p->lib = OSSL_LIB_CTX_new()) ||
	    (cnf && access(cnf, R_OK) == 0 && OSSL_LIB_CTX_load_config(p->lib, cnf) != 1)) {
		ossl_failed(err, errlen, "the worker's library context");
		goto out;
	}
	for (i = 0; i < nprov && i < BE_MAX_PROVIDERS; i++) {
		if (!(p->prov[p->nprov] = OSSL_PROVIDER_load(p->lib, providers[i]))) {
			ossl_failed(err, errlen, "loading the worker's providers");
			goto out;
		}
		p->nprov++;
	}
	if (propq && EVP_set_default_properties(p->lib, propq) != 1) {
		ossl_failed(err, errlen, "the worker's property query");
		goto out;
	}
	ret = 0;
out:
	OPENSSL_free(cnf);
	return ret;
}

/* K's key pair as a key of P's library context. */
static EVP_PKEY *copy_into(const struct evp_pkey *p, EVP_PKEY *k)
{
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *c = NULL;
	EVP_PKEY *out = NULL;

	if (EVP_PKEY_todata(k, EVP_PKEY_KEYPAIR, &params) == 1 &&
	    (c = EVP_PKEY_CTX_new_from_name(p->lib, p->a->evp_name, p->propq)) &&
	    EVP_PKEY_fromdata_init(c) == 1)
		EVP_PKEY_fromdata(c, &out, EVP_PKEY_KEYPAIR, params);
	OSSL_PARAM_free(params);
	EVP_PKEY_CTX_free(c);
	return out;
}

int evp_pkey_worker_init(struct evp_pkey *p, const struct algo *a, enum algo_mode mode,
			 EVP_PKEY *shared, const char *const *providers, unsigned nprov,
			 const char *propq, char *err, size_t errlen)
{
	EVP_PKEY_CTX *sc = NULL;
	EVP_MD_CTX *sm = NULL;
	size_t len = sizeof(p->out);
	int ret = -1;

	p->a = a;
	p->mode = mode;
	p->msglen = 32;
	if (own_library(p, providers, nprov, propq, err, errlen) < 0)
		return -1;
	if (mode == MODE_DERIVE && (!(p->peer = evp_pkey_keygen(a, err, errlen)) ||
				    !(p->wrong = evp_pkey_keygen(a, err, errlen))))
		return -1;
	/* The worker's own key object, in its own library context; the
	 * checker's contexts, in the process's, on the public half rebuilt
	 * (derive: the peer's and a stranger's against it). */
	if (!(p->pkey = copy_into(p, shared)) || !(p->pub = public_of(p->pkey)) ||
	    contexts_on(p, p->lib, p->pkey, mode, p->peer, &p->ctx, &p->mctx) < 0 ||
	    (mode == MODE_DERIVE ?
	     contexts_on(p, NULL, p->peer, mode, p->pub, &p->ref_ctx, NULL) < 0 ||
	     contexts_on(p, NULL, p->wrong, mode, p->pub, &p->wrong_ctx, NULL) < 0 :
	     contexts_on(p, NULL, p->pub, MODE_VERIFY, NULL, &p->ref_ctx, &p->ref_mctx) < 0) ||
	    RAND_bytes(p->msg, (int)p->msglen) != 1) {
		ossl_failed(err, errlen, "context set-up");
		goto out;
	}
	/* A verify loop verifies a signature made here. */
	if (mode == MODE_VERIFY && (contexts_on(p, p->lib, p->pkey, MODE_SIGN, NULL, &sc, &sm) < 0 ||
				    sign_into(p, sc, sm, p->out, &len) != 1)) {
		ossl_failed(err, errlen, "the first signature");
		goto out;
	}
	p->outlen = len;
	ret = 0;
out:
	EVP_PKEY_CTX_free(sc);
	EVP_MD_CTX_free(sm);
	return ret;
}

void evp_pkey_worker_fini(struct evp_pkey *p)
{
	EVP_PKEY_CTX_free(p->ctx);
	EVP_PKEY_CTX_free(p->ref_ctx);
	EVP_PKEY_CTX_free(p->wrong_ctx);
	EVP_MD_CTX_free(p->mctx);
	EVP_MD_CTX_free(p->ref_mctx);
	EVP_PKEY_free(p->pkey);
	EVP_PKEY_free(p->peer);
	EVP_PKEY_free(p->wrong);
	EVP_PKEY_free(p->pub);
	while (p->nprov)
		OSSL_PROVIDER_unload(p->prov[--p->nprov]);
	OSSL_LIB_CTX_free(p->lib);
	p->lib = NULL;
}

int evp_pkey_run(struct evp_pkey *p, uint64_t max, const atomic_int *stop, uint64_t *done,
		 char *err, size_t errlen)
{
	uint64_t i;
	size_t len;
	int ret = 0;

	for (i = 0; i < max && !atomic_load_explicit(stop, memory_order_relaxed); i++) {
		len = sizeof(p->out);
		if (p->mode == MODE_VERIFY) {
			if (!verifies(p, p->ctx, p->mctx, p->out, p->outlen) && !p->fault) {
				snprintf(err, errlen, "%s of a good signature failed", p->a->verify_label);
				ret = -1;
				break;
			}
			continue;
		}
		if ((p->mode == MODE_SIGN ? sign_into(p, p->ctx, p->mctx, p->out, &len) :
		     EVP_PKEY_derive(p->ctx, p->out, &len)) != 1) {
			ossl_failed(err, errlen, p->a->label);
			ret = -1;
			break;
		}
		p->outlen = len;
	}
	ERR_clear_error();
	if (p->fault && i && p->mode != MODE_VERIFY)
		p->out[p->outlen / 2] ^= 0x01;
	*done += i;
	return ret;
}

static int verify_once(void *p, uint64_t *done, char *err, size_t errlen)
{
	atomic_int never = 0;

	return evp_pkey_run(p, 1, &never, done, err, errlen);
}

/* The timed verify must refuse P->out with one bit flipped. */
static int refuses_corrupted(struct evp_pkey *p, char *err, size_t errlen)
{
	char who[96];

	snprintf(who, sizeof(who), "the timed %s", p->a->verify_label);
	return verify_refuses_flip(p->out, p->outlen, verify_once, p, who, err, errlen);
}

/* A vector's key in LIB: EdDSA's and X25519/X448's raw, ECDSA's public point. */
static EVP_PKEY *kat_key(OSSL_LIB_CTX *lib, const char *propq, const struct algo *a,
			 const char *hex, bool private)
{
	unsigned char b[160];
	int n = hex_decode(hex, b, sizeof(b));
	OSSL_PARAM params[3];
	EVP_PKEY_CTX *c;
	EVP_PKEY *k = NULL;

	if (n <= 0)
		return NULL;
	if (!a->group)
		return private ? EVP_PKEY_new_raw_private_key_ex(lib, a->evp_name, propq, b, (size_t)n) :
				 EVP_PKEY_new_raw_public_key_ex(lib, a->evp_name, propq, b, (size_t)n);
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)a->group, 0);
	params[1] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, b, (size_t)n);
	params[2] = OSSL_PARAM_construct_end();
	c = EVP_PKEY_CTX_new_from_name(lib, a->evp_name, propq);
	if (c && EVP_PKEY_fromdata_init(c) == 1)
		EVP_PKEY_fromdata(c, &k, EVP_PKEY_PUBLIC_KEY, params);
	EVP_PKEY_CTX_free(c);
	return k;
}

/* A CAVP signature, R || S in hex, as the DER that EVP verifies. */
static int der_signature(const char *hex, unsigned char *out, size_t *len)
{
	unsigned char rs[160], *q = out;
	int n = hex_decode(hex, rs, sizeof(rs)), l = -1;
	ECDSA_SIG *s = ECDSA_SIG_new();
	BIGNUM *r = n > 0 ? BN_bin2bn(rs, n / 2, NULL) : NULL;
	BIGNUM *ss = n > 0 ? BN_bin2bn(rs + n / 2, n / 2, NULL) : NULL;

	if (s && r && ss && ECDSA_SIG_set0(s, r, ss) == 1) {
		r = ss = NULL;
		l = i2d_ECDSA_SIG(s, &q);
	}
	BN_free(r);
	BN_free(ss);
	ECDSA_SIG_free(s);
	*len = l > 0 ? (size_t)l : 0;
	return l > 0 ? 0 : -1;
}

/* The vector through the timed code: EdDSA's signature and a derived
 * secret equal the published ones; ECDSA's published signature verifies. */
static int published_answer(struct evp_pkey *t, enum algo_mode want_mode, char *err, size_t errlen)
{
	const struct kat *v = &t->a->kat;
	unsigned char want[160];
	int n = hex_decode(v->out, want, sizeof(want));
	atomic_int never = 0;
	uint64_t unused = 0;

	t->msglen = v->in ? (size_t)hex_decode(v->in, t->msg, sizeof(t->msg)) : 0;
	t->pkey = kat_key(t->lib, t->propq, t->a, v->key, t->mode != MODE_VERIFY);
	t->peer = v->iv ? kat_key(t->lib, t->propq, t->a, v->iv, false) : NULL;
	if (!t->pkey || (v->iv && !t->peer) ||
	    contexts_on(t, t->lib, t->pkey, t->mode, t->peer, &t->ctx, &t->mctx) < 0 ||
	    (t->mode == MODE_VERIFY && der_signature(v->out, t->out, &t->outlen) < 0)) {
		ossl_failed(err, errlen, "known-answer set-up");
		return -1;
	}
	if (evp_pkey_run(t, 1, &never, &unused, err, errlen) < 0)
		return -1;
	if (t->mode != MODE_VERIFY && (t->outlen != (size_t)n || memcmp(t->out, want, (size_t)n))) {
		snprintf(err, errlen, "known-answer test (%s) gives a wrong %s", v->source,
			 t->mode == MODE_DERIVE ? "secret" : "signature");
		return -1;
	}
	/* EdDSA in a verify row: its verify takes the published signature too. */
	if (t->mode == MODE_SIGN && want_mode == MODE_VERIFY) {
		EVP_MD_CTX_free(t->mctx);
		t->mctx = NULL;
		t->mode = MODE_VERIFY;
		if (contexts_on(t, t->lib, t->pkey, MODE_VERIFY, NULL, &t->ctx, &t->mctx) < 0) {
			ossl_failed(err, errlen, "known-answer set-up");
			return -1;
		}
		if (evp_pkey_run(t, 1, &never, &unused, err, errlen) < 0)
			return -1;
	}
	return t->mode == MODE_VERIFY ? refuses_corrupted(t, err, errlen) : 0;
}

int evp_pkey_kat(struct evp_pkey *p, char *err, size_t errlen)
{
	/* In the worker's library context, which stays the worker's. */
	struct evp_pkey t = { .a = p->a, .fault = p->fault, .lib = p->lib, .propq = p->propq };
	uint64_t unused = 0;
	int ret;

	char why[384];

	/* No vector carried: the self-consistency checks alone. */
	if (!p->a->kat.out) {
		if (evp_pkey_check(p, &unused, why, sizeof(why)) == 0)
			return 0;
		snprintf(err, errlen, "known-answer test (%s): %s", p->a->kat.source, why);
		return -1;
	}
	t.mode = p->a->kind == ALGO_DERIVE ? MODE_DERIVE : p->a->group ? MODE_VERIFY : MODE_SIGN;
	ret = published_answer(&t, p->mode, err, errlen);
	t.lib = NULL;
	evp_pkey_worker_fini(&t);
	/* An ECDSA sign row: its own signatures verify too. */
	if (ret == 0 && p->mode == MODE_SIGN && p->a->group)
		ret = evp_pkey_check(p, &unused, err, errlen);
	return ret;
}

/* Both sides' secrets equal; a stranger's differs. */
static int check_secret(struct evp_pkey *p, char *err, size_t errlen)
{
	size_t len = sizeof(p->ref);

	if (EVP_PKEY_derive(p->ref_ctx, p->ref, &len) != 1) {
		ossl_failed(err, errlen, "the peer's derivation");
		return -1;
	}
	if (len != p->outlen || memcmp(p->ref, p->out, len)) {
		snprintf(err, errlen, "the timed %s secret differs from the peer's", p->a->label);
		return -1;
	}
	len = sizeof(p->ref);
	if (EVP_PKEY_derive(p->wrong_ctx, p->ref, &len) != 1) {
		ossl_failed(err, errlen, "a stranger's derivation");
		return -1;
	}
	if (len == p->outlen && !memcmp(p->ref, p->out, len)) {
		snprintf(err, errlen, "the timed %s secret equals a stranger's", p->a->label);
		return -1;
	}
	return 0;
}

int evp_pkey_check(struct evp_pkey *p, uint64_t *done, char *err, size_t errlen)
{
	atomic_int never = 0;
	bool bad;

	if (evp_pkey_run(p, 1, &never, done, err, errlen) < 0)
		return -1;
	if (p->mode == MODE_DERIVE)
		return check_secret(p, err, errlen);
	if (!verifies(p, p->ref_ctx, p->ref_mctx, p->out, p->outlen)) {
		snprintf(err, errlen, "the %zu-byte %s signature %s does not verify", p->outlen,
			 p->a->label, p->mode == MODE_SIGN ? "made in the timed loop" : "the timed loop verifies");
		return -1;
	}
	if (p->mode == MODE_VERIFY)
		return refuses_corrupted(p, err, errlen);
	p->out[p->outlen / 2] ^= 0x01;
	bad = verifies(p, p->ref_ctx, p->ref_mctx, p->out, p->outlen);
	p->out[p->outlen / 2] ^= 0x01;
	if (bad) {
		snprintf(err, errlen, "a corrupted %s signature verifies", p->a->label);
		return -1;
	}
	/* Sign new data from here on. */
	memcpy(p->msg, p->out + p->outlen - p->msglen, p->msglen);
	return 0;
}
