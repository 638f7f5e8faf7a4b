/* AEAD through EVP, as openssl speed -evp (and -aead) times it: per record
 * the IV, the additional data, the payload in place and the tag; with
 * --stream, updates in place under one IV, as openssl speed -evp's loop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/rand.h>

#include "evp_aead.h"
#include "heap.h"

/* openssl speed -aead's record: 13 bytes of additional data, as TLS's. */
#define TLS_AAD 13
/* --stream: a new stream (a new IV) at the latest after this many bytes;
 * GCM takes at most 2^36 - 32 bytes under one IV (openssl speed begins
 * again when an update fails there). */
#define STREAM_MAX ((uint64_t)1 << 32)
/* --stream's check: this many timed updates, then the tag. */
#define STREAM_CHECK 2

static int begin_stream(struct evp_aead *x, bool fresh);

int evp_aead_init(struct evp_aead *x, const struct job *job, char *err, size_t errlen)
{
	const struct algo *a = job->algo;
	/* Room for the known answers' plaintexts too. */
	size_t room = (job->size > 128 ? job->size : 128) + 64;
	atomic_int never = 0;
	uint64_t unused = 0;

	x->algo = a;
	x->len = x->size = job->size;
	x->tls = job->tls;
	x->rekey = job->rekey;
	x->mem = heap_lines(room + 64);
	x->save = malloc(room);
	x->plain = malloc(room);
	x->cipher = EVP_CIPHER_fetch(NULL, a->evp_name, NULL);
	x->ref_cipher = EVP_CIPHER_fetch(NULL, a->evp_name, NULL);
	x->enc = EVP_CIPHER_CTX_new();
	x->chain = job->stream ? heap_lines((STREAM_CHECK + 1) * room) : NULL;
	if (!x->mem || !x->save || !x->plain || !x->cipher || !x->ref_cipher || !x->enc ||
	    (job->stream && !x->chain)) {
		ossl_error(err, errlen, a->evp_name);
		return -1;
	}
	x->buf = x->mem + job->misalign;
	if (evp_random(x->buf, (int)room) != 1 || evp_random(x->key, sizeof(x->key)) != 1 ||
	    evp_random(x->iv, sizeof(x->iv)) != 1) {
		ossl_error(err, errlen, "random data");
		return -1;
	}
	if (x->tls) {
		memset(x->aad, 0xcc, TLS_AAD);
		x->aad_len = TLS_AAD;
	}
	if (EVP_EncryptInit_ex2(x->enc, x->cipher, x->key, NULL, NULL) != 1) {
		ossl_error(err, errlen, a->evp_name);
		return -1;
	}
	/* --decrypt opens one record, made here by the timed path (a stream
	 * opens whatever the buffer holds). */
	memcpy(x->save, x->buf, x->len);
	if (job->decrypt && !job->stream && evp_aead_run(x, 1, &never, &unused, err, errlen) < 0)
		return -1;
	x->decrypt = job->decrypt;
	x->stream = job->stream;
	/* Keyed for its direction (OCB decrypts with a key schedule of its own). */
	if (EVP_CipherInit_ex2(x->enc, NULL, x->key, NULL, !x->decrypt, NULL) != 1 ||
	    (x->stream && !begin_stream(x, true))) {
		ossl_error(err, errlen, a->evp_name);
		return -1;
	}
	return 0;
}

void evp_aead_fini(struct evp_aead *x)
{
	EVP_CIPHER_CTX_free(x->enc);
	EVP_CIPHER_free(x->cipher);
	EVP_CIPHER_free(x->ref_cipher);
	free(x->mem);
	free(x->save);
	free(x->plain);
	free(x->chain);
}

/* TLS's record nonce: the last four bytes count records. */
static void next_iv(unsigned char *iv)
{
	int i = AEAD_IV - 1;

	while (i >= AEAD_IV - 4 && ++iv[i] == 0)
		i--;
}

/* One record opened into PLAIN: 1 authentic, 0 refused, -1 an error. */
static int open_record(struct evp_aead *x, const int len, const int aad)
{
	int outl;

	if (EVP_CipherInit_ex2(x->enc, NULL, x->rekey ? x->key : NULL, x->iv, 0, NULL) != 1 ||
	    EVP_CIPHER_CTX_ctrl(x->enc, EVP_CTRL_AEAD_SET_TAG, AEAD_TAG, x->tag) != 1 ||
	    (aad && EVP_DecryptUpdate(x->enc, NULL, &outl, x->aad, aad) != 1) ||
	    EVP_DecryptUpdate(x->enc, x->plain, &outl, x->buf, len) != 1)
		return -1;
	return EVP_DecryptFinal_ex(x->enc, x->plain + len, &outl) == 1;
}

/* A stream begun: under a new IV (FRESH) or x->iv again, the additional
 * data first.  1, or 0 on an error. */
static int begin_stream(struct evp_aead *x, bool fresh)
{
	int outl;

	if (fresh)
		next_iv(x->iv);
	x->streamed = 0;
	return EVP_CipherInit_ex2(x->enc, NULL, NULL, x->iv, !x->decrypt, NULL) == 1 &&
	       (!x->aad_len || EVP_CipherUpdate(x->enc, NULL, &outl, x->aad, (int)x->aad_len) == 1);
}

/* --stream's timed loop: the buffer updated in place, the tag left for
 * the stream's end. */
static int stream_run(struct evp_aead *x, uint64_t max, const atomic_int *stop, uint64_t *done,
		      char *err, size_t errlen)
{
	const int len = (int)x->len;
	const evp_update_fn update = evp_update_for(x->decrypt);
	uint64_t i;
	int outl;

	for (i = 0; i < max && !atomic_load_explicit(stop, memory_order_relaxed); i++) {
		if ((x->streamed + (uint64_t)len > STREAM_MAX && !begin_stream(x, true)) ||
		    update(x->enc, x->buf, &outl, x->buf, len) != 1)
			goto fail;
		x->streamed += (uint64_t)len;
	}
	if (x->fault && i)
		x->buf[len / 2] ^= 0x10;
	*done += i;
	return 0;
fail:
	*done += i;
	ossl_error(err, errlen, x->algo->evp_name);
	return -1;
}

/* The stream's end: sealing, its tag into x->tag; opening, x->tag checked.
 * 1 done (authentic), 0 refused, -1 an error. */
static int finish_stream(struct evp_aead *x)
{
	int outl;

	if (x->decrypt)
		return EVP_CIPHER_CTX_ctrl(x->enc, EVP_CTRL_AEAD_SET_TAG, AEAD_TAG, x->tag) != 1 ? -1
		       : EVP_DecryptFinal_ex(x->enc, x->plain, &outl) == 1;
	return EVP_EncryptFinal_ex(x->enc, x->plain, &outl) == 1 &&
	       EVP_CIPHER_CTX_ctrl(x->enc, EVP_CTRL_AEAD_GET_TAG, AEAD_TAG, x->tag) == 1 ? 1 : -1;
}

int evp_aead_run(struct evp_aead *x, uint64_t max, const atomic_int *stop, uint64_t *done,
		 char *err, size_t errlen)
{
	const int len = (int)x->len, aad = (int)x->aad_len;
	uint64_t i;
	int outl, st = 1;

	if (x->stream)
		return stream_run(x, max, stop, done, err, errlen);
	for (i = 0; i < max && !atomic_load_explicit(stop, memory_order_relaxed); i++) {
		if (x->decrypt) {
			if ((st = open_record(x, len, aad)) != 1)
				goto fail;
			continue;
		}
		if (x->tls)
			next_iv(x->iv);
		/* --rekey: the key schedule (and GCM's GHASH table) made again,
		 * as openssl speed -aead does in OpenSSL 3. */
		if (EVP_CipherInit_ex2(x->enc, NULL, x->rekey ? x->key : NULL, x->iv, 1, NULL) != 1 ||
		    (aad && EVP_EncryptUpdate(x->enc, NULL, &outl, x->aad, aad) != 1) ||
		    EVP_EncryptUpdate(x->enc, x->buf, &outl, x->buf, len) != 1 ||
		    EVP_EncryptFinal_ex(x->enc, x->buf + len, &outl) != 1 ||
		    EVP_CIPHER_CTX_ctrl(x->enc, EVP_CTRL_AEAD_GET_TAG, AEAD_TAG, x->tag) != 1)
			goto fail;
	}
	if (x->fault && i)
		(x->decrypt ? x->plain : x->tag)[0] ^= 0x01;
	*done += i;
	return 0;
fail:
	*done += i;
	if (st == 0)
		snprintf(err, errlen, "the timed %s refused a record of %zu bytes as forged",
			 x->algo->evp_name, x->len);
	else
		ossl_error(err, errlen, x->algo->evp_name);
	ERR_clear_error();
	return -1;
}

/* An independent context's opening of the buffer under TAG into PLAIN:
 * 0 authentic, 1 refused, -1 an error. */
static int ref_open(struct evp_aead *x, const unsigned char *tag, char *err, size_t errlen)
{
	EVP_CIPHER_CTX *ref = EVP_CIPHER_CTX_new();
	const int aad = (int)x->aad_len;
	unsigned char t[AEAD_TAG];
	int outl, ret = -1;

	memcpy(t, tag, sizeof(t));
	if (!ref || EVP_DecryptInit_ex2(ref, x->ref_cipher, x->key, x->iv, NULL) != 1 ||
	    (aad && EVP_DecryptUpdate(ref, NULL, &outl, x->aad, aad) != 1) ||
	    EVP_DecryptUpdate(ref, x->plain, &outl, x->buf, (int)x->len) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ref, EVP_CTRL_AEAD_SET_TAG, AEAD_TAG, t) != 1) {
		ossl_error(err, errlen, "the check's decryption");
		goto out;
	}
	ret = EVP_DecryptFinal_ex(ref, x->plain + x->len, &outl) == 1 ? 0 : 1;
out:
	ERR_clear_error();
	EVP_CIPHER_CTX_free(ref);
	return ret;
}

/* --decrypt: the timed opening gives back the plaintext the record was
 * made from, and refuses the record with a tag bit flipped. */
static int check_opening(struct evp_aead *x, uint64_t *done, char *err, size_t errlen)
{
	atomic_int never = 0;
	uint64_t unused = 0;
	char ignored[256];
	int st;

	if (evp_aead_run(x, 1, &never, done, err, errlen) < 0)
		return -1;
	if (memcmp(x->plain, x->save, x->len) != 0) {
		snprintf(err, errlen, "the timed %s opening of %zu bytes does not give back what was encrypted",
			 x->algo->evp_name, x->len);
		return -1;
	}
	x->tag[AEAD_TAG - 1] ^= 0x80;
	st = evp_aead_run(x, 1, &never, &unused, ignored, sizeof(ignored));
	x->tag[AEAD_TAG - 1] ^= 0x80;
	if (st == 0) {
		snprintf(err, errlen, "the timed %s opening accepts a record whose tag has a bit flipped",
			 x->algo->evp_name);
		return -1;
	}
	return 0;
}

/* An independent context over the checked stream, x->chain's y_0..y_K:
 * each update of y_j must give y_(j-1) back, as the inverse of the timed
 * path's y_(j-1) -> y_j does; sealing, the tag into TAG; opening, TAG
 * checked.  0 as it should, 1 an update differs, 2 the tag refused, -1 an
 * error. */
static int ref_stream(struct evp_aead *x, bool seal, unsigned char *tag, char *err, size_t errlen)
{
	EVP_CIPHER_CTX *ref = EVP_CIPHER_CTX_new();
	const size_t len = x->len;
	const int aad = (int)x->aad_len;
	int outl, j, ret = 0;

	if (!ref || EVP_CipherInit_ex2(ref, x->ref_cipher, x->key, x->iv, seal, NULL) != 1 ||
	    (aad && EVP_CipherUpdate(ref, NULL, &outl, x->aad, aad) != 1))
		goto fail;
	for (j = 1; j <= STREAM_CHECK; j++) {
		if (EVP_CipherUpdate(ref, x->plain, &outl, x->chain + j * len, (int)len) != 1)
			goto fail;
		if (memcmp(x->plain, x->chain + (j - 1) * len, len) != 0)
			ret = 1;
	}
	if (seal ? EVP_EncryptFinal_ex(ref, x->plain, &outl) != 1 ||
		   EVP_CIPHER_CTX_ctrl(ref, EVP_CTRL_AEAD_GET_TAG, AEAD_TAG, tag) != 1
		 : EVP_CIPHER_CTX_ctrl(ref, EVP_CTRL_AEAD_SET_TAG, AEAD_TAG, tag) != 1)
		goto fail;
	if (!seal && EVP_DecryptFinal_ex(ref, x->plain, &outl) != 1 && !ret)
		ret = 2;
	goto out;
fail:
	ret = -1;
	ossl_error(err, errlen, "the check's stream");
out:
	ERR_clear_error();
	EVP_CIPHER_CTX_free(ref);
	return ret;
}

/* The checked stream again from y_0, its updates in one call of the timed
 * loop (as the loop runs them), uncounted: it must end at y_K.  0, 4 it
 * ends elsewhere, -1 an error. */
static int replay_stream(struct evp_aead *x, char *err, size_t errlen)
{
	atomic_int never = 0;
	uint64_t unused = 0;

	if (!begin_stream(x, false)) {
		ossl_error(err, errlen, x->algo->evp_name);
		return -1;
	}
	memcpy(x->buf, x->chain, x->len);
	if (stream_run(x, STREAM_CHECK, &never, &unused, err, errlen) < 0)
		return -1;
	return memcmp(x->buf, x->chain + STREAM_CHECK * x->len, x->len) ? 4 : 0;
}

/* Sealing: the independent context takes the chain back and
 * authenticates the timed tag, and refuses it with a bit flipped; the
 * replay ends with the same tag.  0, 1-4 (check_stream's words), -1 an
 * error. */
static int check_stream_sealing(struct evp_aead *x, char *err, size_t errlen)
{
	unsigned char tag[AEAD_TAG];
	int st;

	if (finish_stream(x) != 1)
		goto fail;
	memcpy(tag, x->tag, sizeof(tag));
	if ((st = ref_stream(x, false, tag, err, errlen)) != 0)
		return st;
	tag[AEAD_TAG - 1] ^= 0x80;
	if ((st = ref_stream(x, false, tag, err, errlen)) != 2)
		return st < 0 ? -1 : 3;
	tag[AEAD_TAG - 1] ^= 0x80;
	if ((st = replay_stream(x, err, errlen)) != 0)
		return st;
	if (finish_stream(x) != 1)
		goto fail;
	return memcmp(x->tag, tag, AEAD_TAG) ? 4 : 0;
fail:
	ossl_error(err, errlen, x->algo->evp_name);
	return -1;
}

/* Opening (--decrypt): the timed opening accepts the tag the independent
 * context sealed the chain with; on the replay it refuses that tag with a
 * bit flipped.  0, 1-4 (check_stream's words), -1 an error. */
static int check_stream_opening(struct evp_aead *x, char *err, size_t errlen)
{
	int st;

	if ((st = ref_stream(x, true, x->tag, err, errlen)) != 0)
		return st;
	if ((st = finish_stream(x)) == 0)
		return 2;
	if (st < 0)
		goto fail;
	if ((st = replay_stream(x, err, errlen)) != 0)
		return st;
	x->tag[AEAD_TAG - 1] ^= 0x80;
	st = finish_stream(x);
	x->tag[AEAD_TAG - 1] ^= 0x80;
	if (st < 0)
		goto fail;
	ERR_clear_error();
	return st ? 3 : 0;
fail:
	ossl_error(err, errlen, x->algo->evp_name);
	return -1;
}

/* --stream: STREAM_CHECK timed updates under a new IV (the last one
 * counted: a check is one operation), the buffer kept after each, checked
 * by an independent context the other way; then a new stream for the
 * loop. */
static int check_stream(struct evp_aead *x, uint64_t *done, char *err, size_t errlen)
{
	static const char *const open_why[] = {
		"", "does not encrypt back under an independent context",
		"refuses the tag an independent context sealed it with",
		"accepts it with a bit of its tag flipped",
		"ends elsewhere when its updates run in one call" };
	static const char *const seal_why[] = {
		"", "does not decrypt back under an independent context",
		"does not authenticate under an independent context",
		"is accepted by an independent context with a bit of its tag flipped",
		"ends elsewhere (buffer or tag) when its updates run in one call" };
	const size_t len = x->len;
	atomic_int never = 0;
	uint64_t unused = 0;
	int j, st;

	if (!begin_stream(x, true))
		goto fail;
	memcpy(x->chain, x->buf, len);
	for (j = 1; j <= STREAM_CHECK; j++) {
		if (stream_run(x, 1, &never, j == STREAM_CHECK ? done : &unused, err, errlen) < 0)
			return -1;
		memcpy(x->chain + j * len, x->buf, len);
	}
	st = x->decrypt ? check_stream_opening(x, err, errlen) : check_stream_sealing(x, err, errlen);
	if (st < 0)
		return -1;
	if (st) {
		snprintf(err, errlen, "the timed %s %s of %d updates of %zu bytes %s",
			 x->algo->evp_name, x->decrypt ? "opening of a stream" : "stream", STREAM_CHECK, len,
			 (x->decrypt ? open_why : seal_why)[st]);
		return -1;
	}
	if (!begin_stream(x, true))
		goto fail;
	return 0;
fail:
	ossl_error(err, errlen, x->algo->evp_name);
	return -1;
}

int evp_aead_check(struct evp_aead *x, uint64_t *done, char *err, size_t errlen)
{
	const char *name = x->algo->evp_name;
	atomic_int never = 0;
	unsigned char bad[AEAD_TAG];
	int st;

	if (x->stream)
		return check_stream(x, done, err, errlen);
	if (x->decrypt)
		return check_opening(x, done, err, errlen);
	memcpy(x->save, x->buf, x->len);
	if (evp_aead_run(x, 1, &never, done, err, errlen) < 0 ||
	    (st = ref_open(x, x->tag, err, errlen)) < 0)
		return -1;
	if (st || memcmp(x->plain, x->save, x->len) != 0) {
		snprintf(err, errlen, "the timed %s record of %zu bytes %s", name, x->len,
			 st ? "does not authenticate under an independent context"
			    : "does not decrypt to what was encrypted");
		return -1;
	}
	memcpy(bad, x->tag, sizeof(bad));
	bad[AEAD_TAG - 1] ^= 0x80;
	if ((st = ref_open(x, bad, err, errlen)) < 0)
		return -1;
	if (st == 0) {
		snprintf(err, errlen, "%s accepts a record whose tag has a bit flipped", name);
		return -1;
	}
	return 0;
}

/* --stream: the published record as a stream of one update under its IV
 * and additional data, through the timed path; opened, its tag checked. */
static int stream_record(struct evp_aead *x, char *err, size_t errlen)
{
	atomic_int never = 0;
	uint64_t unused = 0;
	int st;

	if (!begin_stream(x, false)) {
		ossl_error(err, errlen, x->algo->evp_name);
		return -1;
	}
	if (stream_run(x, 1, &never, &unused, err, errlen) < 0)
		return -1;
	if ((st = finish_stream(x)) < 0)
		ossl_error(err, errlen, x->algo->evp_name);
	else if (st == 0)
		snprintf(err, errlen, "known-answer test (%s): the timed stream's opening refuses the published tag",
			 x->algo->kat.source);
	ERR_clear_error();
	return st == 1 ? 0 : -1;
}

/* The published record through the timed path: sealed, its ciphertext and
 * tag; opened (--decrypt), its plaintext. */
static int published_record(struct evp_aead *x, char *err, size_t errlen)
{
	const struct kat *k = &x->algo->kat;
	unsigned char want[256];
	const unsigned char *got;
	atomic_int never = 0;
	uint64_t unused = 0;
	int n, plain;

	/* Into x->key, where the timed path takes it from under --rekey. */
	hex_decode(k->key, x->key, sizeof(x->key));
	hex_decode(k->iv, x->iv, AEAD_IV);
	x->aad_len = k->aad ? (size_t)hex_decode(k->aad, x->aad, sizeof(x->aad)) : 0;
	plain = hex_decode(k->in, x->save, 128);
	n = hex_decode(k->out, want, sizeof(want));
	if (n != plain + AEAD_TAG || EVP_CipherInit_ex2(x->enc, NULL, x->key, NULL, !x->decrypt, NULL) != 1) {
		ossl_error(err, errlen, x->algo->evp_name);
		return -1;
	}
	x->len = (size_t)plain;
	memcpy(x->buf, x->decrypt ? want : x->save, x->len);
	memcpy(x->tag, want + x->len, AEAD_TAG);
	/* The timed loop's IV is the record's (TLS: counted up before it). */
	if (x->tls && !x->decrypt)
		x->tls = false;
	if (x->stream ? stream_record(x, err, errlen) < 0
		      : evp_aead_run(x, 1, &never, &unused, err, errlen) < 0)
		return -1;
	/* A stream opens in place. */
	got = x->decrypt && !x->stream ? x->plain : x->buf;
	if (memcmp(got, x->decrypt ? x->save : want, x->len) != 0 ||
	    (!x->decrypt && memcmp(x->tag, want + x->len, AEAD_TAG) != 0)) {
		snprintf(err, errlen, "known-answer test (%s) gives a wrong %s", k->source,
			 x->decrypt ? "plaintext" : memcmp(x->buf, want, x->len) ? "ciphertext" : "tag");
		return -1;
	}
	return 0;
}

int evp_aead_kat(struct evp_aead *x, char *err, size_t errlen)
{
	unsigned char rkey[32], riv[AEAD_IV], rtag[AEAD_TAG], rbuf[128], rsave[128], raad[64];
	size_t raad_len = x->aad_len;
	bool tls = x->tls;
	int ret;

	/* -a evp:NAME: no published answer carried; the checks still run. */
	if (!x->algo->kat.out)
		return 0;
	memcpy(rkey, x->key, sizeof(rkey));
	memcpy(riv, x->iv, sizeof(riv));
	memcpy(rtag, x->tag, sizeof(rtag));
	memcpy(rbuf, x->buf, sizeof(rbuf));
	memcpy(rsave, x->save, sizeof(rsave));
	memcpy(raad, x->aad, sizeof(raad));
	ret = published_record(x, err, errlen);
	memcpy(x->key, rkey, sizeof(rkey));
	memcpy(x->iv, riv, sizeof(riv));
	memcpy(x->tag, rtag, sizeof(rtag));
	memcpy(x->buf, rbuf, sizeof(rbuf));
	memcpy(x->save, rsave, sizeof(rsave));
	memcpy(x->aad, raad, sizeof(raad));
	x->aad_len = raad_len;
	x->tls = tls;
	x->len = x->size;
	if ((EVP_CipherInit_ex2(x->enc, NULL, x->key, NULL, !x->decrypt, NULL) != 1 ||
	     (x->stream && !begin_stream(x, true))) && ret == 0) {
		ossl_error(err, errlen, x->algo->evp_name);
		ret = -1;
	}
	return ret;
}
