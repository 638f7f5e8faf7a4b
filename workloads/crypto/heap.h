/* OpenSSL's memory: cache-line aligned outside the timed loops. */
#ifndef T2ACCEL_HEAP_H
#define T2ACCEL_HEAP_H

#include <stdbool.h>
#include <stddef.h>

/* Before any OpenSSL call: 0, or -1 when OpenSSL has already allocated. */
int heap_align_openssl(void);
/* This thread's allocations from now on: plain malloc (timed) or aligned. */
void heap_timed(bool timed);
/* A buffer of N bytes on its own cache lines (where --misalign counts
 * from, as openssl speed's): free() it.  NULL when out of memory. */
void *heap_lines(size_t n);

#endif
