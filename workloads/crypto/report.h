/* t2accel's human output: openssl-speed-like tables and per-worker lines. */
#ifndef REPORT_H
#define REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "backend.h"
#include "runenv.h"
#include "runner.h"

struct report_line {
	const struct algo *algo;
	double *rate;           /* per size (ciphers, digests) */
	double sign, verify;    /* RSA, ops/s; 0 when not measured */
	const char *skipped;
};

struct report_worker {
	int planned;
	uint64_t ops;
	unsigned long migrations;
	struct cpu_track seen;  /* union of what every measurement saw */
};

/* One measurement's latency (t2accel --latency), per operation, seconds. */
enum { REPORT_LAT_P = 5 };      /* p50, p90, p99, p99.9, max */
struct report_latency {
	char label[96];         /* "aes-128-cbc 16 bytes" */
	uint64_t batch, n;
	double p[REPORT_LAT_P];
	double *wp;             /* per worker: p50, p99, max (3 each); NULL when none */
	unsigned nworkers;
};

struct report {
	const uint64_t *sizes;
	int nsizes;
	unsigned bits, nworkers;
	struct report_line lines[ALGO_MAX];
	unsigned nlines;
	struct report_worker *workers;
	char skips[ALGO_MAX][256];
	unsigned nskips;
	struct report_latency *lat;
	size_t nlat;
};

void report_init(struct report *rep, const uint64_t *sizes, int nsizes, unsigned bits,
		 unsigned nworkers);
void report_fini(struct report *rep);

/* The measurement's rate: bytes/s, or operations/s for RSA. */
double report_rate(const struct job *job, const struct run_result *r);
/* "16 bytes" or "2048 bits". */
const char *report_size_text(const struct job *job, char *buf, size_t len);

void report_header(FILE *out, const struct run_env *env, const char *backend, const char *impl,
		   uint64_t reps, double seconds);
void report_add(struct report *rep, const struct job *job, const struct run_result *r);
void report_skip(struct report *rep, const struct algo *a, const char *why);
/* One line per finished measurement, like openssl speed's "Doing ...". */
void report_progress(FILE *out, const struct job *job, const struct run_result *r);
void report_print(FILE *out, const struct report *rep, bool quiet);

#endif
