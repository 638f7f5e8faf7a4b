/*
 * OpenSSL's memory, cache-line aligned outside the timed loops.
 *
 * Where malloc puts a context decides whether a field straddles two cache
 * lines: a CMAC context 48 bytes into a line stores its chaining block
 * across two, and CMAC-AES at 16 bytes ran 10% slower for it, run after run,
 * with no change in the code timed.  A rate should not depend on the heap's
 * history, so what OpenSSL allocates while a worker sets up (its contexts,
 * keys, tables) starts on a 64-byte line.  Inside the timed loops OpenSSL
 * gets plain malloc, as in any program: what one operation allocates and
 * frees costs what it costs there (memalign's split would slow ECDSA's
 * per-signature numbers by a tenth).
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "heap.h"

#define LINE 64

static _Thread_local bool timed;

static void *heap_malloc(size_t n, const char *file, int line)
{
	void *p;

	(void)file;
	(void)line;
	/* As CRYPTO_malloc: nothing for nothing. */
	if (n == 0)
		return NULL;
	if (timed)
		return malloc(n);
	return posix_memalign(&p, LINE, n) == 0 ? p : NULL;
}

static void *heap_realloc(void *p, size_t n, const char *file, int line)
{
	size_t old;
	void *q;

	if (!p)
		return heap_malloc(n, file, line);
	if (n == 0) {
		free(p);
		return NULL;
	}
	if (timed)
		return realloc(p, n);
	old = malloc_usable_size(p);
	q = heap_malloc(n, file, line);
	if (q) {
		memcpy(q, p, old < n ? old : n);
		free(p);
	}
	return q;
}

static void heap_free(void *p, const char *file, int line)
{
	(void)file;
	(void)line;
	free(p);
}

int heap_align_openssl(void)
{
	return CRYPTO_set_mem_functions(heap_malloc, heap_realloc, heap_free) ? 0 : -1;
}

void heap_timed(bool t)
{
	timed = t;
}

void *heap_lines(size_t n)
{
	void *p;

	return posix_memalign(&p, LINE, (n + LINE - 1) / LINE * LINE) == 0 ? p : NULL;
}
