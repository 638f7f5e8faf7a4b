/* MACs through EVP_MAC, as openssl speed -hmac/-cmac time them: the key set
 * once, per tag init, update over the buffer, final. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/rand.h>

#include "evp_aead.h"
#include "evp_mac.h"
#include "heap.h"

int evp_mac_split(const char *evp_name, char *mac, size_t maclen, const char **sub,
		  const char **param)
{
	const char *colon = strchr(evp_name, ':');

	if (!colon || (size_t)(colon - evp_name) >= maclen)
		return -1;
	snprintf(mac, maclen, "%.*s", (int)(colon - evp_name), evp_name);
	*sub = colon + 1;
	*param = strcmp(mac, "CMAC") == 0 ? OSSL_MAC_PARAM_CIPHER : OSSL_MAC_PARAM_DIGEST;
	return 0;
}

/* A context of MAC keyed with KEY for the row's digest or cipher. */
static EVP_MAC_CTX *keyed(const struct evp_mac *m, EVP_MAC *mac, const unsigned char *key,
			  size_t key_len)
{
	char name[16];
	const char *sub, *param;
	EVP_MAC_CTX *c;
	OSSL_PARAM ps[2];

	if (evp_mac_split(m->algo->evp_name, name, sizeof(name), &sub, &param) < 0 ||
	    !(c = EVP_MAC_CTX_new(mac)))
		return NULL;
	ps[0] = OSSL_PARAM_construct_utf8_string(param, (char *)sub, 0);
	ps[1] = OSSL_PARAM_construct_end();
	if (EVP_MAC_init(c, key, key_len, ps) != 1) {
		EVP_MAC_CTX_free(c);
		return NULL;
	}
	return c;
}

int evp_mac_init(struct evp_mac *m, const struct job *job, char *err, size_t errlen)
{
	const struct algo *a = job->algo;
	size_t room = job->size > 128 ? job->size : 128;
	char name[16];
	const char *sub, *param;

	m->algo = a;
	m->len = m->size = job->size;
	m->key_len = a->key_len;
	if (evp_mac_split(a->evp_name, name, sizeof(name), &sub, &param) < 0) {
		snprintf(err, errlen, "%s: not MAC:ALGORITHM", a->evp_name);
		return -1;
	}
	m->mem = heap_lines(room + 64);
	m->buf = m->mem ? m->mem + job->misalign : NULL;
	m->mac = EVP_MAC_fetch(NULL, name, NULL);
	m->ref_mac = EVP_MAC_fetch(NULL, name, NULL);
	if (!m->buf || !m->mac || !m->ref_mac || evp_random(m->buf, (int)room) != 1 ||
	    evp_random(m->key, (int)m->key_len) != 1 ||
	    !(m->ctx = keyed(m, m->mac, m->key, m->key_len))) {
		ossl_error(err, errlen, a->evp_name);
		return -1;
	}
	return 0;
}

void evp_mac_fini(struct evp_mac *m)
{
	EVP_MAC_CTX_free(m->ctx);
	EVP_MAC_free(m->mac);
	EVP_MAC_free(m->ref_mac);
	free(m->mem);
}

int evp_mac_run(struct evp_mac *m, uint64_t max, const atomic_int *stop, uint64_t *done,
		char *err, size_t errlen)
{
	uint64_t i;

	for (i = 0; i < max && !atomic_load_explicit(stop, memory_order_relaxed); i++)
		if (EVP_MAC_init(m->ctx, NULL, 0, NULL) != 1 ||
		    EVP_MAC_update(m->ctx, m->buf, m->len) != 1 ||
		    EVP_MAC_final(m->ctx, m->tag, &m->tag_len, sizeof(m->tag)) != 1) {
			*done += i;
			ossl_error(err, errlen, m->algo->evp_name);
			return -1;
		}
	if (m->fault && i)
		m->tag[0] ^= 0x01;
	*done += i;
	return 0;
}

int evp_mac_kat(struct evp_mac *m, char *err, size_t errlen)
{
	const struct kat *k = &m->algo->kat;
	unsigned char key[64], want[EVP_MAX_MD_SIZE], save[128];
	EVP_MAC_CTX *timed = m->ctx;
	atomic_int never = 0;
	uint64_t unused = 0;
	int n, key_len, ret = -1;

	/* --hmac, --cmac: no published answer carried; the checks still run. */
	if (!k->out)
		return 0;
	memcpy(save, m->buf, sizeof(save));
	key_len = hex_decode(k->key, key, sizeof(key));
	m->len = (size_t)hex_decode(k->in, m->buf, sizeof(save));
	n = hex_decode(k->out, want, sizeof(want));
	m->ctx = keyed(m, m->mac, key, (size_t)key_len);
	if (!m->ctx) {
		ossl_error(err, errlen, m->algo->evp_name);
		goto out;
	}
	if (evp_mac_run(m, 1, &never, &unused, err, errlen) < 0)
		goto out;
	if ((size_t)n != m->tag_len || memcmp(m->tag, want, (size_t)n) != 0) {
		snprintf(err, errlen, "known-answer test (%s) gives a wrong tag", k->source);
		goto out;
	}
	ret = 0;
out:
	EVP_MAC_CTX_free(m->ctx);
	m->ctx = timed;
	m->len = m->size;
	memcpy(m->buf, save, sizeof(save));
	return ret;
}

int evp_mac_check(struct evp_mac *m, uint64_t *done, char *err, size_t errlen)
{
	unsigned char again[EVP_MAX_MD_SIZE];
	EVP_MAC_CTX *ref;
	atomic_int never = 0;
	size_t l = 0;
	int ok;

	if (evp_mac_run(m, 1, &never, done, err, errlen) < 0)
		return -1;
	ref = keyed(m, m->ref_mac, m->key, m->key_len);
	ok = ref && EVP_MAC_update(ref, m->buf, m->len) == 1 &&
	     EVP_MAC_final(ref, again, &l, sizeof(again)) == 1;
	EVP_MAC_CTX_free(ref);
	if (!ok) {
		ossl_error(err, errlen, "the check's MAC");
		return -1;
	}
	if (l != m->tag_len || memcmp(m->tag, again, l) != 0) {
		snprintf(err, errlen, "the timed %s of %zu bytes differs from an independent one",
			 m->algo->label, m->len);
		return -1;
	}
	/* Feed the tag back so the loop authenticates new data from here on. */
	memcpy(m->buf, m->tag, l < m->len ? l : m->len);
	return 0;
}
