/* AEAD through EVP, as openssl speed -evp times it: per record the IV, the
 * additional data, the payload in place and the tag. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/rand.h>

#include "evp_aead.h"

int evp_aead_init(struct evp_aead *x, const struct algo *a, size_t size, char *err,
		  size_t errlen)
{
	/* Room for the known answers' plaintexts too. */
	size_t room = (size > 128 ? size : 128) + 64;

	x->algo = a;
	x->len = x->size = size;
	x->buf = malloc(room);
	x->save = malloc(room);
	x->plain = malloc(room);
	x->cipher = EVP_CIPHER_fetch(NULL, a->evp_name, NULL);
	x->ref_cipher = EVP_CIPHER_fetch(NULL, a->evp_name, NULL);
	x->enc = EVP_CIPHER_CTX_new();
	if (!x->buf || !x->save || !x->plain || !x->cipher || !x->ref_cipher || !x->enc) {
		ossl_error(err, errlen, a->evp_name);
		return -1;
	}
	if (RAND_bytes(x->buf, (int)room) != 1 || RAND_bytes(x->key, sizeof(x->key)) != 1 ||
	    RAND_bytes(x->iv, sizeof(x->iv)) != 1) {
		ossl_error(err, errlen, "RAND_bytes");
		return -1;
	}
	if (EVP_EncryptInit_ex2(x->enc, x->cipher, x->key, NULL, NULL) != 1) {
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
	free(x->buf);
	free(x->save);
	free(x->plain);
}

int evp_aead_run(struct evp_aead *x, uint64_t max, const atomic_int *stop, uint64_t *done,
		 char *err, size_t errlen)
{
	const int len = (int)x->len, aad = (int)x->aad_len;
	uint64_t i;
	int outl;

	for (i = 0; i < max && !atomic_load_explicit(stop, memory_order_relaxed); i++)
		if (EVP_EncryptInit_ex2(x->enc, NULL, NULL, x->iv, NULL) != 1 ||
		    (aad && EVP_EncryptUpdate(x->enc, NULL, &outl, x->aad, aad) != 1) ||
		    EVP_EncryptUpdate(x->enc, x->buf, &outl, x->buf, len) != 1 ||
		    EVP_EncryptFinal_ex(x->enc, x->buf + len, &outl) != 1 ||
		    EVP_CIPHER_CTX_ctrl(x->enc, EVP_CTRL_AEAD_GET_TAG, AEAD_TAG, x->tag) != 1) {
			*done += i;
			ossl_error(err, errlen, x->algo->evp_name);
			return -1;
		}
	if (x->fault && i)
		x->tag[0] ^= 0x01;
	*done += i;
	return 0;
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

int evp_aead_check(struct evp_aead *x, uint64_t *done, char *err, size_t errlen)
{
	const char *name = x->algo->evp_name;
	atomic_int never = 0;
	unsigned char bad[AEAD_TAG];
	int st;

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

int evp_aead_kat(struct evp_aead *x, char *err, size_t errlen)
{
	const struct kat *k = &x->algo->kat;
	unsigned char key[32], iv[AEAD_IV], want[256], rkey[32], riv[AEAD_IV];
	atomic_int never = 0;
	uint64_t unused = 0;
	int n, ret = -1;

	memcpy(rkey, x->key, sizeof(rkey));
	memcpy(riv, x->iv, sizeof(riv));
	memcpy(x->save, x->buf, 128);
	hex_decode(k->key, key, sizeof(key));
	hex_decode(k->iv, x->iv, sizeof(iv));
	x->aad_len = k->aad ? (size_t)hex_decode(k->aad, x->aad, sizeof(x->aad)) : 0;
	x->len = (size_t)hex_decode(k->in, x->buf, 128);
	n = hex_decode(k->out, want, sizeof(want));
	if (EVP_EncryptInit_ex2(x->enc, NULL, key, NULL, NULL) != 1) {
		ossl_error(err, errlen, x->algo->evp_name);
		goto out;
	}
	if (evp_aead_run(x, 1, &never, &unused, err, errlen) < 0)
		goto out;
	if ((size_t)n != x->len + AEAD_TAG || memcmp(x->buf, want, x->len) != 0 ||
	    memcmp(x->tag, want + x->len, AEAD_TAG) != 0) {
		snprintf(err, errlen, "known-answer test (%s) gives a wrong %s", k->source,
			 memcmp(x->buf, want, x->len) ? "ciphertext" : "tag");
		goto out;
	}
	ret = 0;
out:
	memcpy(x->key, rkey, sizeof(rkey));
	memcpy(x->iv, riv, sizeof(riv));
	memcpy(x->buf, x->save, 128);
	x->aad_len = 0;
	x->len = x->size;
	if (EVP_EncryptInit_ex2(x->enc, NULL, x->key, NULL, NULL) != 1 && ret == 0) {
		ossl_error(err, errlen, x->algo->evp_name);
		ret = -1;
	}
	return ret;
}
