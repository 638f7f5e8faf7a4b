/* t2accel's OpenSSL allocator (workloads/crypto/heap.h): what OpenSSL
 * allocates in setup starts on a cache line, inside the timed loops it is
 * plain malloc, and realloc and free work across the two. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/crypto.h>

#include "heap.h"

static int taken;

static int aligned(const void *p)
{
	return ((uintptr_t)p & 63) == 0;
}

static void test_taken(void **unused)
{
	(void)unused;
	assert_int_equal(taken, 0);
}

static void test_setup_aligned(void **unused)
{
	size_t n;
	void *p;

	(void)unused;
	heap_timed(false);
	for (n = 1; n <= 4096; n += n / 2 + 7) {
		p = OPENSSL_malloc(n);
		assert_non_null(p);
		assert_true(aligned(p));
		memset(p, 0xa5, n);
		OPENSSL_free(p);
	}
	assert_null(OPENSSL_malloc(0));
}

/* Timed: glibc's malloc gives 16-byte alignment; among many blocks of 24
 * bytes some are not on a line, which an aligned allocator never gives. */
static void test_timed_plain(void **unused)
{
	void *p[64];
	int i, off_line = 0;

	(void)unused;
	heap_timed(true);
	for (i = 0; i < 64; i++) {
		p[i] = OPENSSL_malloc(24);
		assert_non_null(p[i]);
		off_line += !aligned(p[i]);
	}
	for (i = 0; i < 64; i++)
		OPENSSL_free(p[i]);
	heap_timed(false);
	assert_true(off_line > 0);
}

static void test_realloc_keeps(void **unused)
{
	unsigned char *p, *q;
	int i;

	(void)unused;
	p = OPENSSL_malloc(100);
	assert_non_null(p);
	for (i = 0; i < 100; i++)
		p[i] = (unsigned char)i;
	q = OPENSSL_realloc(p, 5000);
	assert_non_null(q);
	assert_true(aligned(q));
	for (i = 0; i < 100; i++)
		assert_int_equal(q[i], i);
	/* An aligned block grown in a timed loop, then shrunk in setup. */
	heap_timed(true);
	p = OPENSSL_realloc(q, 9000);
	heap_timed(false);
	assert_non_null(p);
	q = OPENSSL_realloc(p, 50);
	assert_non_null(q);
	assert_true(aligned(q));
	for (i = 0; i < 50; i++)
		assert_int_equal(q[i], i);
	assert_null(OPENSSL_realloc(q, 0));
	assert_non_null(p = OPENSSL_realloc(NULL, 10));
	assert_true(aligned(p));
	OPENSSL_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_taken),
		cmocka_unit_test(test_setup_aligned),
		cmocka_unit_test(test_timed_plain),
		cmocka_unit_test(test_realloc_keeps),
	};

	taken = heap_align_openssl();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
