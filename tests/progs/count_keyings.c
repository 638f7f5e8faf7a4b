/*
 * Preloaded into t2accel: counts the cipher initialisations its own code
 * makes with a key and with an IV (EVP_CipherInit_ex2 with a key, an IV
 * given), and at exit appends the two counts as one line, "KEYS IVS", to
 * the file COUNT_KEYINGS names.  The tests of --rekey and --stream read
 * it: a key (an IV) set per record, or once.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <openssl/evp.h>

static atomic_ulong keyings, ivs;

int EVP_CipherInit_ex2(EVP_CIPHER_CTX *ctx, const EVP_CIPHER *cipher, const unsigned char *key,
		       const unsigned char *iv, int enc, const OSSL_PARAM params[])
{
	static int (*next)(EVP_CIPHER_CTX *, const EVP_CIPHER *, const unsigned char *,
			   const unsigned char *, int, const OSSL_PARAM[]);

	if (!next)
		*(void **)&next = dlsym(RTLD_NEXT, "EVP_CipherInit_ex2");
	if (key)
		atomic_fetch_add_explicit(&keyings, 1, memory_order_relaxed);
	if (iv)
		atomic_fetch_add_explicit(&ivs, 1, memory_order_relaxed);
	return next ? next(ctx, cipher, key, iv, enc, params) : 0;
}

__attribute__((destructor)) static void report(void)
{
	const char *path = getenv("COUNT_KEYINGS");
	FILE *f;

	if (path && (f = fopen(path, "a"))) {
		fprintf(f, "%lu %lu\n", atomic_load(&keyings), atomic_load(&ivs));
		fclose(f);
	}
}
