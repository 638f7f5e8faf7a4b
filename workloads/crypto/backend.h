/*
 * A crypto backend: how one worker runs one algorithm.  The runner
 * (runner.c) owns threads, placement, timing and sampling; a backend owns
 * contexts, keys, buffers and the operations.  Backends are listed in one
 * const table (t2accel.c).
 */
#ifndef BACKEND_H
#define BACKEND_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "algos.h"

/* The newest OpenSSL error in ERR, the queue then cleared (evp.c):
 * ossl_error "WHAT: text" ("WHAT failed" when none), ossl_failed "WHAT
 * failed: text". */
void ossl_error(char *err, size_t errlen, const char *what);
void ossl_failed(char *err, size_t errlen, const char *what);

/* The programs' exit codes, returned by setup and support checks. */
enum { BE_OK = 0, BE_FAIL = 1, BE_USAGE = 2, BE_SKIP = 3 };

/* One measurement's parameters, shared read-only by its workers. */
struct job {
	const struct algo *algo;
	enum algo_mode mode;
	size_t size;            /* bytes per operation (ciphers, digests) */
	unsigned bits;          /* RSA key bits */
	bool decrypt;           /* ciphers and AEAD: time decryption */
	bool tls;               /* AEAD: openssl speed -aead's record (13-byte AAD, IV per record) */
	bool rekey;             /* AEAD: the key set again every record, as openssl speed -aead does */
	bool stream;            /* AEAD: openssl speed -evp's stream of updates under one IV, no record */
	unsigned misalign;      /* buffers start this many bytes past a 64-byte line */
	void *shared;           /* backend data prepared once per job (a key) */
};

#define BE_MAX_PROVIDERS 8

/* What the command line says about the backend. */
struct backend_opts {
	const char *module;     /* PKCS#11 module: path, p11-kit name or file name; NULL
				 * for the default */
	const char *module_args; /* C_Initialize's pReserved (NSS's configuration) */
	const char *module_dir; /* NAME.module files, instead of p11-kit's */
	bool slot_set;
	uint64_t slot;
	const char *token_label;
	const char *pin_file;
	bool insecure_files;    /* a PIN file others read, a module others write */
	/* EVP: the providers to load (none: default and legacy), the default
	 * property query. */
	const char *providers[BE_MAX_PROVIDERS];
	unsigned nproviders;
	const char *propq;
	bool stream;            /* --stream: the AEAD rows as a stream (those that stream) */
};

struct backend {
	const char *name;       /* what -b takes */
	/* Once per process: load providers or a module.  BE_OK, BE_SKIP (with a
	 * reason), BE_USAGE or BE_FAIL; the message in ERR. */
	int (*setup)(void **ctx, const struct backend_opts *o, char *err, size_t errlen);
	void (*teardown)(void *ctx);
	/* Describe the implementation for output and rows. */
	void (*describe)(void *ctx, char *buf, size_t len);
	/* Can this algorithm run here?  BE_OK or BE_SKIP with the reason. */
	int (*supports)(void *ctx, const struct algo *a, char *err, size_t errlen);
	/* Optional.  A row made on the command line (-a evp:NAME, --hmac,
	 * --cmac): its kind, key and block from what the providers offer;
	 * BE_OK, BE_SKIP (none offers it) or BE_USAGE, the message in ERR. */
	int (*resolve)(void *ctx, struct algo *a, char *err, size_t errlen);
	/* Optional.  What serves A, for the rows' impl column ("OpenSSL 3.0.19
	 * ..., provider default") and its provider's name (for --list): BE_OK,
	 * or BE_SKIP when nothing loaded does. */
	int (*impl_of)(void *ctx, const struct algo *a, char *impl, size_t len,
		       const char **provider);
	/* Once per job before the workers start (RSA key generation). */
	int (*job_init)(void *ctx, struct job *job, char *err, size_t errlen);
	void (*job_fini)(void *ctx, struct job *job);
	/* In the worker's thread, after it is bound: its own state. */
	int (*worker_init)(void *ctx, const struct job *job, void **state, char *err,
			   size_t errlen);
	/* Known answers through this worker's own contexts, key and mechanism
	 * and through run() itself, before timing.  0, or -1 naming the test. */
	int (*kat)(void *state, char *err, size_t errlen);
	/*
	 * Run up to MAX operations, stopping early when *STOP is set; add the
	 * count done to *DONE.  0, or -1 with the error in ERR.
	 */
	int (*run)(void *state, uint64_t max, const atomic_int *stop, uint64_t *done,
		   char *err, size_t errlen);
	/*
	 * One operation through run() (counted in *DONE), its input and output
	 * recorded and recomputed independently: a cipher or digest fetched apart
	 * from the loop's, OpenSSL for a token, a verification with a context of
	 * its own; a timed verify must also reject a corrupted signature.
	 * 0, or -1 with the mismatch in ERR.
	 */
	int (*check)(void *state, uint64_t *done, char *err, size_t errlen);
	/* Test-only fault switch: from now on run() corrupts the last output of
	 * each call (a timed verify accepts any signature).  The checks must
	 * catch it. */
	void (*inject_fault)(void *state);
	void (*worker_fini)(void *state);
	/* Optional: --list for this backend (-b before --list).  An exit code,
	 * the message in ERR. */
	int (*list)(const struct backend_opts *o, FILE *out, char *err, size_t errlen);
};

extern const struct backend backend_evp;
extern const struct backend backend_pkcs11;

#endif
