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
#include "evp_aead.h"
#include "evp_mac.h"
#include "evp_pkey.h"
#include "evp_rsa.h"
#include "heap.h"

struct evp_ctx {
	OSSL_PROVIDER *prov[BE_MAX_PROVIDERS];
	unsigned nprov;
	bool legacy;                /* the legacy provider is loaded */
	char legacy_error[256];     /* why it is not, when it was to be */
	const char *propq;
	bool stream;                /* --stream: an AEAD must stream byte for byte */
};

struct evp_worker {
	const struct job *job;
	size_t len;                 /* bytes per operation (the job's size; the KAT's) */
	EVP_CIPHER *cipher;
	EVP_CIPHER_CTX *enc;
	EVP_MD *md;
	EVP_MD_CTX *mdctx;
	struct evp_rsa rsa;
	struct evp_aead aead;
	struct evp_mac mac;
	struct evp_pkey pk;         /* ECDSA, EdDSA, key agreement */
	unsigned char key[64], iv[16], digest[EVP_MAX_MD_SIZE];
	unsigned char *mem, *buf, *save, *ref;  /* buf: --misalign bytes into mem */
	bool fault;                 /* test-only: run() corrupts its last output */
	/* The checker's own: fetched apart from the timed loop's. */
	EVP_CIPHER *ref_cipher;
	EVP_MD *ref_md;
};

/* The newest OpenSSL error as text, or FALLBACK. */
void ossl_error(char *err, size_t errlen, const char *what)
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

void ossl_failed(char *err, size_t errlen, const char *what)
{
	unsigned long e = ERR_get_error();
	char buf[256] = "";

	if (e)
		ERR_error_string_n(e, buf, sizeof(buf));
	snprintf(err, errlen, "%s failed%s%s", what, e ? ": " : "", buf);
	ERR_clear_error();
}

int evp_random(unsigned char *buf, int n)
{
	static _Atomic uint64_t seed = 0x9e3779b97f4a7c15u;
	uint64_t x;
	int i;

	if (RAND_bytes(buf, n) == 1)
		return 1;
	ERR_clear_error();
	x = atomic_fetch_add(&seed, (uint64_t)(uintptr_t)buf | 1);
	for (i = 0; i < n; i++) {
		/* splitmix64, a byte at a time */
		x += 0x9e3779b97f4a7c15u;
		buf[i] = (unsigned char)((x ^ (x >> 31)) * 0xbf58476d1ce4e5b9u >> 56);
	}
	return 1;
}

static void evp_teardown(void *p)
{
	struct evp_ctx *ctx = p;

	if (!ctx)
		return;
	while (ctx->nprov)
		OSSL_PROVIDER_unload(ctx->prov[--ctx->nprov]);
	free(ctx);
}

/* --provider's, or else default and legacy (loading legacy explicitly
 * unloads the implicit default: load both); legacy may be missing. */
static int load_providers(struct evp_ctx *ctx, const struct backend_opts *o, char *err,
			  size_t errlen)
{
	static const char *const dflt[] = { "default", "legacy" };
	const char *const *names = o->nproviders ? o->providers : dflt;
	unsigned i, n = o->nproviders ? o->nproviders : 2;
	char why[192];

	for (i = 0; i < n; i++) {
		ctx->prov[ctx->nprov] = OSSL_PROVIDER_load(NULL, names[i]);
		if (ctx->prov[ctx->nprov]) {
			ctx->legacy |= strcmp(names[i], "legacy") == 0;
			ctx->nprov++;
			continue;
		}
		ossl_error(why, sizeof(why), "OSSL_PROVIDER_load");
		if (!o->nproviders) {
			snprintf(ctx->legacy_error, sizeof(ctx->legacy_error),
				 "OpenSSL legacy provider not loadable: %s", why);
			continue;
		}
		snprintf(err, errlen, "provider '%s' is not loadable here (%s)", names[i], why);
		return BE_SKIP;
	}
	return BE_OK;
}

static int evp_setup(void **ctxp, const struct backend_opts *o, char *err, size_t errlen)
{
	struct evp_ctx *ctx;
	int ret;

	if (o->module || o->module_args || o->module_dir || o->slot_set || o->token_label ||
	    o->pin_file || o->insecure_files) {
		snprintf(err, errlen, "--module, --module-args, --module-dir, --slot, --token-label, --pin-file and --insecure-files are for -b pkcs11");
		return BE_USAGE;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return BE_FAIL;
	ret = load_providers(ctx, o, err, errlen);
	if (ret == BE_OK && o->propq && EVP_set_default_properties(NULL, o->propq) != 1) {
		snprintf(err, errlen, "propquery: '%s' is not a property query, e.g. provider=default or fips=yes",
			 o->propq);
		ret = BE_USAGE;
	}
	ERR_clear_error();
	ctx->propq = o->propq;
	ctx->stream = o->stream;
	if (ret != BE_OK) {
		evp_teardown(ctx);
		return ret;
	}
	*ctxp = ctx;
	return BE_OK;
}

static void evp_describe(void *p, char *buf, size_t len)
{
	struct evp_ctx *ctx = p;
	size_t used;
	unsigned i;

	used = (size_t)snprintf(buf, len, "%s, provider%s ", OpenSSL_version(OPENSSL_VERSION),
				ctx->nprov == 1 ? "" : "s");
	for (i = 0; i < ctx->nprov && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "+" : "",
					 OSSL_PROVIDER_get0_name(ctx->prov[i]));
	if (ctx->propq && used < len)
		snprintf(buf + used, len - used, ", propquery %s", ctx->propq);
}

/* The provider that serves A (its MAC, its key type), or NULL: none loaded
 * does. */
static const OSSL_PROVIDER *serving(const struct algo *a)
{
	const OSSL_PROVIDER *p = NULL;
	char name[16];
	const char *sub, *param;
	EVP_CIPHER *c = NULL;
	EVP_MD *md = NULL;
	EVP_MAC *mac = NULL;
	EVP_KEYMGMT *km = NULL;

	switch (a->kind) {
	case ALGO_CIPHER: case ALGO_AEAD:
		if ((c = EVP_CIPHER_fetch(NULL, a->evp_name, NULL)))
			p = EVP_CIPHER_get0_provider(c);
		break;
	case ALGO_DIGEST:
		if ((md = EVP_MD_fetch(NULL, a->evp_name, NULL)))
			p = EVP_MD_get0_provider(md);
		break;
	case ALGO_MAC:
		if (evp_mac_split(a->evp_name, name, sizeof(name), &sub, &param) == 0 &&
		    (mac = EVP_MAC_fetch(NULL, name, NULL)) &&
		    (strcmp(name, "CMAC") ? !!(md = EVP_MD_fetch(NULL, sub, NULL)) :
					    !!(c = EVP_CIPHER_fetch(NULL, sub, NULL))))
			p = EVP_MAC_get0_provider(mac);
		break;
	case ALGO_SIGN: case ALGO_DERIVE:
		if ((km = EVP_KEYMGMT_fetch(NULL, a->evp_name, NULL)))
			p = EVP_KEYMGMT_get0_provider(km);
		break;
	}
	EVP_CIPHER_free(c);
	EVP_MD_free(md);
	EVP_MAC_free(mac);
	EVP_KEYMGMT_free(km);
	ERR_clear_error();
	return p;
}

static int evp_impl_of(void *ctx, const struct algo *a, char *impl, size_t len,
		       const char **provider)
{
	const OSSL_PROVIDER *p = serving(a);

	(void)ctx;
	if (!p)
		return BE_SKIP;
	*provider = OSSL_PROVIDER_get0_name(p);
	snprintf(impl, len, "%s, provider %s", OpenSSL_version(OPENSSL_VERSION), *provider);
	return BE_OK;
}

static int evp_supports(void *p, const struct algo *a, char *err, size_t errlen)
{
	struct evp_ctx *ctx = p;
	char loaded[256];

	if (serving(a))
		return BE_OK;
	evp_describe(ctx, loaded, sizeof(loaded));
	snprintf(err, errlen, "%s: no loaded provider offers %s (%s)%s%s", a->name, a->evp_name,
		 loaded, a->legacy && !ctx->legacy ? "; it lives in the legacy provider: " : "",
		 a->legacy && !ctx->legacy ? (ctx->legacy_error[0] ? ctx->legacy_error : "not loaded") : "");
	return BE_SKIP;
}

/* A cipher -a evp:NAME may time: its IV and key fit, a mode the loops
 * drive (no key wrap; of the AEADs GCM, OCB and ChaCha20-Poly1305, whose
 * IV and tag the AEAD loop sets; as a --stream, not OCB, which holds back
 * a partial block).  0, or -1 saying why not. */
static int timeable_cipher(const struct evp_ctx *ctx, const EVP_CIPHER *c, const char *name,
			   char *err, size_t errlen)
{
	int mode = EVP_CIPHER_get_mode(c);
	bool aead = EVP_CIPHER_get_flags(c) & EVP_CIPH_FLAG_AEAD_CIPHER;

	if (aead && ctx->stream && mode == EVP_CIPH_OCB_MODE) {
		snprintf(err, errlen, "evp:%s: --stream: OCB does not encrypt a stream of updates byte for byte; GCM and ChaCha20-Poly1305 do",
			 name);
		return -1;
	}

	if (mode == EVP_CIPH_WRAP_MODE || EVP_CIPHER_get_iv_length(c) > 16 ||
	    EVP_CIPHER_get_key_length(c) > (aead ? 32 : 64) ||
	    (aead && mode != EVP_CIPH_GCM_MODE && mode != EVP_CIPH_OCB_MODE &&
	     !EVP_CIPHER_is_a(c, "ChaCha20-Poly1305"))) {
		snprintf(err, errlen, "evp:%s: t2accel does not time this cipher (key wrap, CCM, SIV, an IV over 16 or a key over 64 bytes)",
			 name);
		return -1;
	}
	return 0;
}

static int evp_resolve(void *ctx, struct algo *a, char *err, size_t errlen)
{
	EVP_CIPHER *c = NULL;
	EVP_MD *md = NULL;
	int ret = BE_OK;

	if (a->kind == ALGO_MAC) {
		if (!serving(a)) {
			snprintf(err, errlen, "%s: no loaded provider offers %s", a->name, a->evp_name);
			return BE_SKIP;
		}
		if (strncmp(a->evp_name, "CMAC:", 5) == 0) {
			c = EVP_CIPHER_fetch(NULL, a->evp_name + 5, NULL);
			if (EVP_CIPHER_get_mode(c) != EVP_CIPH_CBC_MODE || EVP_CIPHER_get_key_length(c) > 64) {
				snprintf(err, errlen, "%s: CMAC takes a CBC cipher with a key up to 64 bytes, e.g. aes-128-cbc",
					 a->name);
				ret = BE_USAGE;
			}
			a->key_len = (unsigned)EVP_CIPHER_get_key_length(c);
		}
	} else if ((c = EVP_CIPHER_fetch(NULL, a->evp_name, NULL))) {
		if (timeable_cipher(ctx, c, a->evp_name, err, errlen) < 0)
			ret = BE_SKIP;
		a->kind = EVP_CIPHER_get_flags(c) & EVP_CIPH_FLAG_AEAD_CIPHER ? ALGO_AEAD : ALGO_CIPHER;
		a->key_len = (unsigned)EVP_CIPHER_get_key_length(c);
		a->block = (unsigned)EVP_CIPHER_get_block_size(c);
	} else if ((md = EVP_MD_fetch(NULL, a->evp_name, NULL))) {
		a->kind = ALGO_DIGEST;
	} else {
		snprintf(err, errlen, "%s: no cipher or digest of that name in the loaded providers",
			 a->name);
		ret = BE_SKIP;
	}
	EVP_CIPHER_free(c);
	EVP_MD_free(md);
	ERR_clear_error();
	return ret;
}

static bool is_rsa(const struct algo *a)
{
	return a->kind == ALGO_SIGN && strcmp(a->evp_name, "RSA") == 0;
}

static int evp_job_init(void *ctx, struct job *job, char *err, size_t errlen)
{
	(void)ctx;
	if (!algo_per_op(job->algo))
		return 0;
	job->shared = is_rsa(job->algo) ? evp_rsa_keygen(job->bits, err, errlen) :
					   evp_pkey_keygen(job->algo, err, errlen);
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
	EVP_CIPHER_free(w->ref_cipher);
	EVP_MD_CTX_free(w->mdctx);
	EVP_MD_free(w->md);
	EVP_MD_free(w->ref_md);
	evp_rsa_worker_fini(&w->rsa);
	evp_aead_fini(&w->aead);
	evp_mac_fini(&w->mac);
	evp_pkey_worker_fini(&w->pk);
	free(w->mem);
	free(w->save);
	free(w->ref);
	free(w);
}

/* Buffers on their own cache lines (room for the known answers too),
 * filled with this worker's random data. */
static int alloc_buffers(struct evp_worker *w, size_t size, char *err, size_t errlen)
{
	size_t len = ((size > 64 ? size : 64) + 63) / 64 * 64;

	w->mem = heap_lines(len + 64);
	w->save = heap_lines(len);
	w->ref = heap_lines(len);
	if (!w->mem || !w->save || !w->ref) {
		snprintf(err, errlen, "cannot allocate %zu-byte buffers", size);
		return -1;
	}
	w->buf = w->mem + w->job->misalign;
	if (evp_random(w->buf, (int)len) != 1 || evp_random(w->key, sizeof(w->key)) != 1 ||
	    evp_random(w->iv, sizeof(w->iv)) != 1) {
		ossl_error(err, errlen, "random data");
		return -1;
	}
	return 0;
}

/* (Re)start the timed context (encryption, or --decrypt's) on KEY and IV. */
static int cipher_start(struct evp_worker *w, const unsigned char *key, const unsigned char *iv,
			char *err, size_t errlen)
{
	if (EVP_CipherInit_ex2(w->enc, w->cipher, key, iv, !w->job->decrypt, NULL) != 1 ||
	    EVP_CIPHER_CTX_set_padding(w->enc, 0) != 1) {
		ossl_error(err, errlen, w->job->algo->evp_name);
		return -1;
	}
	return 0;
}

static int cipher_init(struct evp_worker *w, char *err, size_t errlen)
{
	const char *name = w->job->algo->evp_name;

	w->cipher = EVP_CIPHER_fetch(NULL, name, NULL);
	w->ref_cipher = EVP_CIPHER_fetch(NULL, name, NULL);
	w->enc = EVP_CIPHER_CTX_new();
	if (!w->cipher || !w->ref_cipher || !w->enc) {
		ossl_error(err, errlen, name);
		return -1;
	}
	return cipher_start(w, w->key, w->iv, err, errlen);
}

static int digest_init(struct evp_worker *w, char *err, size_t errlen)
{
	const char *name = w->job->algo->evp_name;

	w->md = EVP_MD_fetch(NULL, name, NULL);
	w->ref_md = EVP_MD_fetch(NULL, name, NULL);
	w->mdctx = EVP_MD_CTX_new();
	if (!w->md || !w->ref_md || !w->mdctx) {
		ossl_error(err, errlen, name);
		return -1;
	}
	return 0;
}

/* ECDSA, EdDSA and key agreement, in a library context of the worker's own
 * with the providers loaded here. */
static int pkey_init(struct evp_ctx *ctx, struct evp_worker *w, char *err, size_t errlen)
{
	const char *names[BE_MAX_PROVIDERS];
	unsigned i;

	for (i = 0; i < ctx->nprov; i++)
		names[i] = OSSL_PROVIDER_get0_name(ctx->prov[i]);
	return evp_pkey_worker_init(&w->pk, w->job->algo, w->job->mode, w->job->shared, names,
				    ctx->nprov, ctx->propq, err, errlen);
}

static int evp_worker_init(void *ctx, const struct job *job, void **state, char *err,
			   size_t errlen)
{
	struct evp_worker *w = calloc(1, sizeof(*w));
	int ret = -1;

	if (!w) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	w->job = job;
	w->len = job->size;
	if (alloc_buffers(w, job->size, err, errlen) < 0)
		goto out;
	switch (job->algo->kind) {
	case ALGO_CIPHER:
		ret = cipher_init(w, err, errlen);
		break;
	case ALGO_DIGEST:
		ret = digest_init(w, err, errlen);
		break;
	case ALGO_SIGN:
		if (is_rsa(job->algo)) {
			ret = evp_rsa_worker_init(&w->rsa, job->shared, err, errlen);
			break;
		}
		/* fall through */
	case ALGO_DERIVE:
		ret = pkey_init(ctx, w, err, errlen);
		break;
	case ALGO_AEAD:
		ret = evp_aead_init(&w->aead, job, err, errlen);
		break;
	case ALGO_MAC:
		ret = evp_mac_init(&w->mac, job, err, errlen);
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

/* The timed loops: one EVP call per operation, as openssl speed -evp does
 * (ciphers chain in place through one context; digests are whole
 * init/update/final, with the digest fetched once). */
static int evp_run(void *state, uint64_t max, const atomic_int *stop, uint64_t *done,
		   char *err, size_t errlen)
{
	struct evp_worker *w = state;
	const int len = (int)w->len;
	unsigned char *buf = w->buf;
	const evp_update_fn update = evp_update_for(w->job->decrypt);
	uint64_t i = 0;
	int outl;
	unsigned int mdl;

	switch (w->job->algo->kind) {
	case ALGO_CIPHER:
		/* evp_update_for's, not EVP_CipherUpdate: a call less per
		 * update, which at 16 bytes takes about 30 ns. */
		for (; i < max && !atomic_load_explicit(stop, memory_order_relaxed); i++)
			if (update(w->enc, buf, &outl, buf, len) != 1)
				goto fail;
		if (w->fault && i)
			buf[len / 2] ^= 0x10;
		break;
	case ALGO_DIGEST:
		for (; i < max && !atomic_load_explicit(stop, memory_order_relaxed); i++)
			if (EVP_DigestInit_ex2(w->mdctx, w->md, NULL) != 1 ||
			    EVP_DigestUpdate(w->mdctx, buf, (size_t)len) != 1 ||
			    EVP_DigestFinal_ex(w->mdctx, w->digest, &mdl) != 1)
				goto fail;
		if (w->fault && i)
			w->digest[0] ^= 0x01;
		break;
	case ALGO_SIGN:
		if (is_rsa(w->job->algo))
			return evp_rsa_run(&w->rsa, w->job->mode == MODE_SIGN, max, stop, done, err,
					   errlen);
		/* fall through */
	case ALGO_DERIVE:
		return evp_pkey_run(&w->pk, max, stop, done, err, errlen);
	case ALGO_AEAD:
		return evp_aead_run(&w->aead, max, stop, done, err, errlen);
	case ALGO_MAC:
		return evp_mac_run(&w->mac, max, stop, done, err, errlen);
	}
	*done += i;
	return 0;
fail:
	*done += i;
	ossl_error(err, errlen, w->job->algo->evp_name);
	return -1;
}

/* One operation through the timed path, outside the timed loop. */
static int run_one(struct evp_worker *w, uint64_t *done, char *err, size_t errlen)
{
	atomic_int never = 0;

	return evp_run(w, 1, &never, done, err, errlen);
}

/* The known answers through the worker's own context, cipher or digest and
 * the timed loop's code: a wrong mode, length or key shows here. */
static int evp_kat(void *state, char *err, size_t errlen)
{
	struct evp_worker *w = state;
	const struct algo *a = w->job->algo;
	unsigned char key[32], iv[16], want[64];
	const unsigned char *got = w->buf;
	uint64_t unused = 0;
	int n, ret = -1;

	if (is_rsa(a))
		return evp_rsa_kat(&w->rsa, w->job->mode == MODE_SIGN, err, errlen);
	if (a->kind == ALGO_AEAD)
		return evp_aead_kat(&w->aead, err, errlen);
	if (a->kind == ALGO_MAC)
		return evp_mac_kat(&w->mac, err, errlen);
	if (algo_per_op(a))
		return evp_pkey_kat(&w->pk, err, errlen);
	/* -a evp:NAME: no published answer carried; the checks still run. */
	if (!a->kat.out)
		return 0;
	memcpy(w->save, w->buf, 64);
	w->len = (size_t)hex_decode(w->job->decrypt ? a->kat.out : a->kat.in, w->buf, 64);
	n = hex_decode(w->job->decrypt ? a->kat.in : a->kat.out, want, sizeof(want));
	if (a->kind == ALGO_CIPHER) {
		hex_decode(a->kat.key, key, sizeof(key));
		hex_decode(a->kat.iv, iv, sizeof(iv));
		if (cipher_start(w, key, iv, err, errlen) < 0)
			goto out;
	} else {
		got = w->digest;
		if ((int)EVP_MD_get_size(w->md) != n) {
			snprintf(err, errlen, "known-answer test (%s): the digest is %d bytes, not %d",
				 a->kat.source, EVP_MD_get_size(w->md), n);
			goto out;
		}
	}
	if (run_one(w, &unused, err, errlen) < 0)
		goto out;
	if (memcmp(got, want, (size_t)n) != 0) {
		snprintf(err, errlen, "known-answer test (%s) gives a wrong %s", a->kat.source,
			 a->kind != ALGO_CIPHER ? "digest" : w->job->decrypt ? "plaintext" : "ciphertext");
		goto out;
	}
	ret = 0;
out:
	w->len = w->job->size;
	memcpy(w->buf, w->save, 64);
	if (a->kind == ALGO_CIPHER) {
		char again[256];

		if (cipher_start(w, w->key, w->iv, again, sizeof(again)) < 0 && ret == 0) {
			snprintf(err, errlen, "%s", again);
			ret = -1;
		}
	}
	return ret;
}

/* A timed encryption (decryption) round-trips: a cipher fetched apart
 * from the loop's, in a context of its own, decrypts (encrypts) it back.
 * The timed context restarts from the worker's IV first: where a chain
 * stands (a stream cipher's counter) is not read back alike in every mode. */
static int check_cipher(struct evp_worker *w, uint64_t *done, char *err, size_t errlen)
{
	const size_t len = w->len;
	const bool enc = !w->job->decrypt;
	EVP_CIPHER_CTX *ref = EVP_CIPHER_CTX_new();
	int outl = 0, ret = -1;

	memcpy(w->save, w->buf, len);
	if (cipher_start(w, w->key, w->iv, err, errlen) < 0 || run_one(w, done, err, errlen) < 0)
		goto out;
	if (EVP_CipherInit_ex2(ref, w->ref_cipher, w->key, w->iv, !enc, NULL) != 1 ||
	    EVP_CIPHER_CTX_set_padding(ref, 0) != 1 ||
	    EVP_CipherUpdate(ref, w->ref, &outl, w->buf, (int)len) != 1) {
		ossl_error(err, errlen, "the check's round trip");
		goto out;
	}
	if ((size_t)outl != len || memcmp(w->ref, w->save, len) != 0) {
		snprintf(err, errlen, "the timed %s %s of %zu bytes does not %s back to its input",
			 w->job->algo->evp_name, enc ? "encryption" : "decryption", len,
			 enc ? "decrypt" : "encrypt");
		goto out;
	}
	ret = 0;
out:
	EVP_CIPHER_CTX_free(ref);
	return ret;
}

/* A timed digest, recomputed by a digest fetched apart from the loop's. */
static int check_digest(struct evp_worker *w, uint64_t *done, char *err, size_t errlen)
{
	unsigned char again[EVP_MAX_MD_SIZE];
	unsigned int l = 0;

	if (run_one(w, done, err, errlen) < 0)
		return -1;
	if (EVP_Digest(w->buf, w->len, again, &l, w->ref_md, NULL) != 1) {
		ossl_error(err, errlen, "the check's digest");
		return -1;
	}
	if (memcmp(w->digest, again, l) != 0) {
		snprintf(err, errlen, "the timed %s of %zu bytes differs from an independent one",
			 w->job->algo->evp_name, w->len);
		return -1;
	}
	/* Feed the digest back so the loop hashes new data from here on. */
	memcpy(w->buf, w->digest, l < w->len ? l : w->len);
	return 0;
}

static int evp_check(void *state, uint64_t *done, char *err, size_t errlen)
{
	struct evp_worker *w = state;

	switch (w->job->algo->kind) {
	case ALGO_CIPHER: return check_cipher(w, done, err, errlen);
	case ALGO_DIGEST: return check_digest(w, done, err, errlen);
	case ALGO_SIGN:
		if (is_rsa(w->job->algo))
			return evp_rsa_check(&w->rsa, w->job->mode == MODE_SIGN, done, err, errlen);
		/* fall through */
	case ALGO_DERIVE:
		return evp_pkey_check(&w->pk, done, err, errlen);
	case ALGO_AEAD:
		return evp_aead_check(&w->aead, done, err, errlen);
	case ALGO_MAC:
		return evp_mac_check(&w->mac, done, err, errlen);
	}
	return -1;
}

static void evp_inject_fault(void *state)
{
	struct evp_worker *w = state;

	w->fault = true;
	w->rsa.fault = true;
	w->aead.fault = true;
	w->mac.fault = true;
	w->pk.fault = true;
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
	.resolve = evp_resolve,
	.impl_of = evp_impl_of,
	.job_init = evp_job_init,
	.job_fini = evp_job_fini,
	.worker_init = evp_worker_init,
	.kat = evp_kat,
	.run = evp_run,
	.check = evp_check,
	.inject_fault = evp_inject_fault,
	.worker_fini = evp_worker_fini,
};
