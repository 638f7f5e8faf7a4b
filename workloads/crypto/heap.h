/* OpenSSL's memory: cache-line aligned outside the timed loops. */
#ifndef T2ACCEL_HEAP_H
#define T2ACCEL_HEAP_H

#include <stdbool.h>

/* Before any OpenSSL call: 0, or -1 when OpenSSL has already allocated. */
int heap_align_openssl(void);
/* This thread's allocations from now on: plain malloc (timed) or aligned. */
void heap_timed(bool timed);

#endif
