/* The OpenSSL 3 EVP backend: the same calls openssl speed -evp times. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

#include "backend.h"
#include "evp_rsa.h"

struct evp_ctx {
	OSSL_PROVIDER *deflt, *legacy;
	char legacy_error[256];
};

struct evp_worker {
	const struct job *job;
	EVP_CIPHER *cipher;
	EVP_CIPHER_CTX *enc;
	EVP_MD *md;
	EVP_MD_CTX *mdctx;
	EVP_PKEY *pkey;
	EVP_PKEY_CTX *sctx, *vctx;
	unsigned char key[32], iv[16], digest[EVP_MAX_MD_SIZE];
	unsigned char hash[32], sig[1024];
	size_t siglen;
	unsigned char *buf, *save, *plain;
	bool started;           /* the cipher chain has run at least once */
};

/* The newest OpenSSL error as text, or FALLBACK. */
static void ossl_error(char *err, size_t errlen, const char *what)
{
	unsigned long e = ERR_get_error();
	char buf[256];

	if (e) {
		ERR_error_string_n(e, buf, sizeof(buf));
		snprintf(err, errlen, "%s: %s", what, buf);
	} else {
		snprintf(err, errlen, "%s failed", what);
	}
	ERR_clear_error();
}

static int evp_setup(void **ctxp, const struct backend_opts *o, char *err, size_t errlen)
{
	struct evp_ctx *ctx;

	if (o->module || o->slot_set || o->token_label || o->pin_file || o->insecure_files) {
		snprintf(err, errlen, "--module, --slot, --token-label, --pin-file and --insecure-files are for -b pkcs11");
		return BE_USAGE;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return BE_FAIL;
	/* Loading legacy explicitly unloads the implicit default: load both. */
	ctx->deflt = OSSL_PROVIDER_load(NULL, "default");
	ctx->legacy = OSSL_PROVIDER_load(NULL, "legacy");
	if (!ctx->legacy)
		ossl_error(ctx->legacy_error, sizeof(ctx->legacy_error),
			   "OpenSSL legacy provider not loadable");
	ERR_clear_error();
	*ctxp = ctx;
	return BE_OK;
}

static void evp_teardown(void *p)
{
	struct evp_ctx *ctx = p;

	if (!ctx)
		return;
	if (ctx->legacy)
		OSSL_PROVIDER_unload(ctx->legacy);
	if (ctx->deflt)
		OSSL_PROVIDER_unload(ctx->deflt);
	free(ctx);
}

static void evp_describe(void *p, char *buf, size_t len)
{
	struct evp_ctx *ctx = p;

	snprintf(buf, len, "%s, providers default%s", OpenSSL_version(OPENSSL_VERSION),
		 ctx->legacy ? "+legacy" : "");
}

static int evp_supports(void *p, const struct algo *a, char *err, size_t errlen)
{
	struct evp_ctx *ctx = p;
	EVP_CIPHER *c;

	if (a->kind != ALGO_CIPHER)
		return BE_OK;
	c = EVP_CIPHER_fetch(NULL, a->evp_name, NULL);
	if (c) {
		EVP_CIPHER_free(c);
		return BE_OK;
	}
	ERR_clear_error();
	snprintf(err, errlen, "%s: %s is not available in this OpenSSL%s%s", a->name,
		 a->evp_name, a->legacy ? " (it lives in the legacy provider: " : "",
		 a->legacy ? (ctx->legacy_error[0] ? ctx->legacy_error : "not loaded") : "");
	if (a->legacy)
		strncat(err, ")", errlen - strlen(err) - 1);
	return BE_SKIP;
}

static int evp_job_init(void *ctx, struct job *job, char *err, size_t errlen)
{
	(void)ctx;
	if (job->algo->kind != ALGO_SIGN)
		return 0;
	job->shared = evp_rsa_keygen(job->bits, err, errlen);
	return job->shared ? 0 : -1;
}

static void evp_job_fini(void *ctx, struct job *job)
{
	(void)ctx;
	EVP_PKEY_free(job->shared);
	job->shared = NULL;
}

static void worker_free(struct evp_worker *w)
{
	if (!w)
		return;
	EVP_CIPHER_CTX_free(w->enc);
	EVP_CIPHER_free(w->cipher);
	EVP_MD_CTX_free(w->mdctx);
	EVP_MD_free(w->md);
	EVP_PKEY_CTX_free(w->sctx);
	EVP_PKEY_CTX_free(w->vctx);
	EVP_PKEY_free(w->pkey);
	free(w->buf);
	free(w->save);
	free(w->plain);
	free(w);
}

/* Buffers on their own cache lines, filled with this worker's random data. */
static int alloc_buffers(struct evp_worker *w, size_t size, char *err, size_t errlen)
{
	size_t len = (size + 63) / 64 * 64;

	if (posix_memalign((void **)&w->buf, 64, len) || posix_memalign((void **)&w->save, 64, len) ||
	    posix_memalign((void **)&w->plain, 64, len)) {
		snprintf(err, errlen, "cannot allocate %zu-byte buffers", size);
		return -1;
	}
	if (RAND_bytes(w->buf, (int)size) != 1 || RAND_bytes(w->key, sizeof(w->key)) != 1 ||
	    RAND_bytes(w->iv, sizeof(w->iv)) != 1) {
		ossl_error(err, errlen, "RAND_bytes");
		return -1;
	}
	return 0;
}

static int cipher_init(struct evp_worker *w, char *err, size_t errlen)
{
	w->cipher = EVP_CIPHER_fetch(NULL, w->job->algo->evp_name, NULL);
	w->enc = EVP_CIPHER_CTX_new();
	if (!w->cipher || !w->enc ||
	    EVP_EncryptInit_ex2(w->enc, w->cipher, w->key, w->iv, NULL) != 1 ||
	    EVP_CIPHER_CTX_set_padding(w->enc, 0) != 1) {
		ossl_error(err, errlen, w->job->algo->evp_name);
		return -1;
	}
	return 0;
}

static int digest_init(struct evp_worker *w, char *err, size_t errlen)
{
	w->md = EVP_MD_fetch(NULL, w->job->algo->evp_name, NULL);
	w->mdctx = EVP_MD_CTX_new();
	if (!w->md || !w->mdctx) {
		ossl_error(err, errlen, w->job->algo->evp_name);
		return -1;
	}
	return 0;
}

static int evp_worker_init(void *ctx, const struct job *job, void **state, char *err,
			   size_t errlen)
{
	struct evp_worker *w = calloc(1, sizeof(*w));
	int ret = -1;

	(void)ctx;
	if (!w) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	w->job = job;
	if (alloc_buffers(w, job->size ? job->size : 64, err, errlen) < 0)
		goto out;
	switch (job->algo->kind) {
	case ALGO_CIPHER:
		ret = cipher_init(w, err, errlen);
		break;
	case ALGO_DIGEST:
		ret = digest_init(w, err, errlen);
		break;
	case ALGO_SIGN:
		ret = evp_rsa_worker_init(job->shared, &w->pkey, &w->sctx, &w->vctx, w->hash,
					  w->sig, sizeof(w->sig), &w->siglen, err, errlen);
		break;
	}
out:
	if (ret < 0) {
		worker_free(w);
		return -1;
	}
	*state = w;
	return 0;
}

static int kat_cipher(const struct algo *a, char *err, size_t errlen)
{
	unsigned char key[32], iv[16], in[64], want[64], got[64 + 16];
	int klen = hex_decode(a->kat.key, key, sizeof(key));
	int ilen = hex_decode(a->kat.in, in, sizeof(in));
	int n, outl = 0, ret = -1;
	EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, a->evp_name, NULL);
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

	hex_decode(a->kat.iv, iv, sizeof(iv));
	n = hex_decode(a->kat.out, want, sizeof(want));
	if (!c || !ctx || klen != (int)a->key_len ||
	    EVP_EncryptInit_ex2(ctx, c, key, iv, NULL) != 1 ||
	    EVP_CIPHER_CTX_set_padding(ctx, 0) != 1 ||
	    EVP_EncryptUpdate(ctx, got, &outl, in, ilen) != 1) {
		ossl_error(err, errlen, a->evp_name);
		goto out;
	}
	if (outl != n || memcmp(got, want, (size_t)n) != 0) {
		snprintf(err, errlen, "known-answer test (%s) gives a wrong ciphertext", a->kat.source);
		goto out;
	}
	ret = 0;
out:
	EVP_CIPHER_CTX_free(ctx);
	EVP_CIPHER_free(c);
	return ret;
}

static int kat_digest(struct evp_worker *w, char *err, size_t errlen)
{
	const struct algo *a = w->job->algo;
	unsigned char in[64], want[64], got[EVP_MAX_MD_SIZE];
	int ilen = hex_decode(a->kat.in, in, sizeof(in)), n = hex_decode(a->kat.out, want, sizeof(want));
	unsigned int outl = 0;

	if (EVP_DigestInit_ex2(w->mdctx, w->md, NULL) != 1 ||
	    EVP_DigestUpdate(w->mdctx, in, (size_t)ilen) != 1 ||
	    EVP_DigestFinal_ex(w->mdctx, got, &outl) != 1) {
		ossl_error(err, errlen, a->evp_name);
		return -1;
	}
	if ((int)outl != n || memcmp(got, want, (size_t)n) != 0) {
		snprintf(err, errlen, "known-answer test (%s) gives a wrong digest", a->kat.source);
		return -1;
	}
	return 0;
}

static int evp_kat(void *state, char *err, size_t errlen)
{
	struct evp_worker *w = state;

	switch (w->job->algo->kind) {
	case ALGO_CIPHER: return kat_cipher(w->job->algo, err, errlen);
	case ALGO_DIGEST: return kat_digest(w, err, errlen);
	case ALGO_SIGN: return evp_rsa_kat(w->pkey, w->sctx, err, errlen);
	}
	return -1;
}

/* The timed loops: one EVP call per operation, as openssl speed -evp does
 * (ciphers chain in place through one context; digests are whole
 * init/update/final, with the digest fetched once). */
static int evp_run(void *state, uint64_t max, const atomic_int *stop, uint64_t *done,
		   char *err, size_t errlen)
{
	struct evp_worker *w = state;
	const int size = (int)w->job->size;
	unsigned char *buf = w->buf;
	uint64_t i;
	int outl;
	unsigned int mdl;

	switch (w->job->algo->kind) {
	case ALGO_CIPHER:
		for (i = 0; i < max && !atomic_load_explicit(stop, memory_order_relaxed); i++)
			if (EVP_EncryptUpdate(w->enc, buf, &outl, buf, size) != 1)
				goto fail;
		w->started |= i > 0;
		break;
	case ALGO_DIGEST:
		for (i = 0; i < max && !atomic_load_explicit(stop, memory_order_relaxed); i++)
			if (EVP_DigestInit_ex2(w->mdctx, w->md, NULL) != 1 ||
			    EVP_DigestUpdate(w->mdctx, buf, (size_t)size) != 1 ||
			    EVP_DigestFinal_ex(w->mdctx, w->digest, &mdl) != 1)
				goto fail;
		break;
	case ALGO_SIGN:
		i = 0;
		if (evp_rsa_run(w->job->mode == MODE_SIGN, w->sctx, w->vctx, w->hash, w->sig,
				sizeof(w->sig), &w->siglen, max, stop, &i, err, errlen) < 0) {
			*done += i;
			return -1;
		}
		break;
	default:
		i = 0;
	}
	*done += i;
	return 0;
fail:
	*done += i;
	ossl_error(err, errlen, w->job->algo->evp_name);
	return -1;
}

/* Encrypt the buffer once, then decrypt it with a context of its own from
 * the chaining value it started with: the plaintext must come back. */
static int checked_cipher(struct evp_worker *w, bool corrupt, char *err, size_t errlen)
{
	const size_t size = w->job->size, block = w->job->algo->block;
	EVP_CIPHER_CTX *dec = EVP_CIPHER_CTX_new();
	unsigned char iv[16];
	int outl = 0, ret = -1;

	/* Encryption is in place and CBC chains, so this operation starts from
	 * the last ciphertext block the previous one left in the buffer. */
	memcpy(iv, w->started ? w->buf + size - block : w->iv, block);
	memcpy(w->save, w->buf, size);
	if (!dec || EVP_EncryptUpdate(w->enc, w->buf, &outl, w->buf, (int)size) != 1) {
		ossl_error(err, errlen, w->job->algo->evp_name);
		goto out;
	}
	w->started = true;
	if (corrupt)
		w->buf[size / 2] ^= 0x10;
	if (EVP_DecryptInit_ex2(dec, w->cipher, w->key, iv, NULL) != 1 ||
	    EVP_CIPHER_CTX_set_padding(dec, 0) != 1 ||
	    EVP_DecryptUpdate(dec, w->plain, &outl, w->buf, (int)size) != 1) {
		ossl_error(err, errlen, "decrypt");
		goto out;
	}
	if ((size_t)outl != size || memcmp(w->plain, w->save, size) != 0) {
		snprintf(err, errlen, "decrypting the %zu-byte output does not give back the input",
			 size);
		goto out;
	}
	ret = 0;
out:
	EVP_CIPHER_CTX_free(dec);
	return ret;
}

/* Digest the buffer in the worker's context and again in a fresh one-shot
 * call: the two must agree. */
static int checked_digest(struct evp_worker *w, bool corrupt, char *err, size_t errlen)
{
	unsigned char again[EVP_MAX_MD_SIZE];
	unsigned int l1 = 0, l2 = 0;

	if (EVP_DigestInit_ex2(w->mdctx, w->md, NULL) != 1 ||
	    EVP_DigestUpdate(w->mdctx, w->buf, w->job->size) != 1 ||
	    EVP_DigestFinal_ex(w->mdctx, w->digest, &l1) != 1 ||
	    EVP_Digest(w->buf, w->job->size, again, &l2, w->md, NULL) != 1) {
		ossl_error(err, errlen, w->job->algo->evp_name);
		return -1;
	}
	if (corrupt)
		w->digest[0] ^= 0x01;
	if (l1 != l2 || memcmp(w->digest, again, l1) != 0) {
		snprintf(err, errlen, "digest of the %zu-byte buffer differs from a second computation",
			 w->job->size);
		return -1;
	}
	/* Feed the digest back so each operation hashes different data. */
	memcpy(w->buf, w->digest, l1 < w->job->size ? l1 : w->job->size);
	return 0;
}

static int evp_checked_op(void *state, bool corrupt, char *err, size_t errlen)
{
	struct evp_worker *w = state;

	switch (w->job->algo->kind) {
	case ALGO_CIPHER: return checked_cipher(w, corrupt, err, errlen);
	case ALGO_DIGEST: return checked_digest(w, corrupt, err, errlen);
	case ALGO_SIGN:
		return evp_rsa_checked(w->job->mode == MODE_SIGN, w->sctx, w->vctx, w->hash,
				       w->sig, sizeof(w->sig), &w->siglen, corrupt, err, errlen);
	}
	return -1;
}

static void evp_worker_fini(void *state)
{
	worker_free(state);
}

const struct backend backend_evp = {
	.name = "evp",
	.setup = evp_setup,
	.teardown = evp_teardown,
	.describe = evp_describe,
	.supports = evp_supports,
	.job_init = evp_job_init,
	.job_fini = evp_job_fini,
	.worker_init = evp_worker_init,
	.kat = evp_kat,
	.run = evp_run,
	.checked_op = evp_checked_op,
	.worker_fini = evp_worker_fini,
};
