/* Sweeps: every (thread count, policy, repeat), progress, resume, SIGINT. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datafile.h"
#include "execute.h"
#include "opt.h"
#include "results.h"
#include "sweep.h"
#include "timing.h"

#define PROG "threadrun"
#define MAX_COUNTS 4096

static int count_part(const char *part, unsigned *vals, int n, char *err, size_t errlen)
{
	unsigned a, b, f = 0;
	char tail;
	int got = sscanf(part, "%u-%ux%u%c", &a, &b, &f, &tail);

	if (got == 3 && f < 2)
		goto bad;
	if (got != 3) {
		got = sscanf(part, "%u-%u%c", &a, &b, &tail);
		if (got != 2) {
			if (sscanf(part, "%u%c", &a, &tail) != 1)
				goto bad;
			b = a;
		}
	}
	/* sscanf takes "-1" as a huge unsigned: every digit string must start
	 * with a digit. */
	if (part[0] < '0' || part[0] > '9' || strstr(part, "--") || strstr(part, "x-"))
		goto bad;
	if (a < 1 || b > PL_MAX_WORKERS || b < a) {
		snprintf(err, errlen, "sweep: part '%s' is out of range or descending, allowed 1..%u ascending",
			 part, PL_MAX_WORKERS);
		return -1;
	}
	for (unsigned v = a; v <= b; v = f ? v * f : v + 1) {
		if (n >= MAX_COUNTS)
			goto bad;
		if (n > 0 && v <= vals[n - 1]) {
			snprintf(err, errlen, "sweep: %u after %u: thread counts must ascend", v, vals[n - 1]);
			return -1;
		}
		vals[n++] = v;
	}
	return n;
bad:
	snprintf(err, errlen,
		 "sweep: '%s' is not a thread count list, accepted: 1,2,4,8 or 1-8 or 1-64x2 (doubling), counts 1..%u ascending",
		 part, PL_MAX_WORKERS);
	return -1;
}

int sweep_parse_counts(const char *text, unsigned **out, char *err, size_t errlen)
{
	unsigned *vals = calloc(MAX_COUNTS, sizeof(*vals));
	char *copy = strdup(text), *save = NULL, *tok;
	int n = 0;

	*out = NULL;
	if (!vals || !copy)
		goto fail;
	if (!*text || text[0] == ',' || text[strlen(text) - 1] == ',' || strstr(text, ",,")) {
		snprintf(err, errlen,
			 "sweep: '%s' is not a thread count list, accepted: 1,2,4,8 or 1-8 or 1-64x2 (doubling), counts 1..%u ascending",
			 text, PL_MAX_WORKERS);
		goto fail;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		n = count_part(tok, vals, n, err, errlen);
		if (n < 0)
			goto fail;
	}
	free(copy);
	*out = vals;
	return n;
fail:
	free(copy);
	free(vals);
	return -1;
}

int sweep_parse_policies(const char *text, struct pl_policy **out, char *err, size_t errlen)
{
	struct pl_policy *pols = calloc(64, sizeof(*pols));
	char *copy = strdup(text), *p, *comma;
	int n = 0;

	*out = NULL;
	if (!pols || !copy)
		goto fail;
	for (p = copy;; p = comma + 1) {
		comma = strncmp(p, "list:", 5) == 0 ? NULL : strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (n == 64) {
			snprintf(err, errlen, "policies: more than 64 in '%.40s'", text);
			goto fail;
		}
		if (pl_policy_parse(p, &pols[n], err, errlen) < 0)
			goto fail;
		n++;
		if (!comma)
			break;
	}
	free(copy);
	*out = pols;
	return n;
fail:
	while (n > 0)
		pl_policy_clear(&pols[--n]);
	free(pols);
	free(copy);
	return -1;
}

/* (threads, policy, repeat) that already ran to success, from the file. */
struct done {
	char workload[256];
	struct { unsigned threads, repeat; char policy[128]; } *runs;
	size_t n, cap;
};

static int collect_done(const struct results_row *row, unsigned line, void *arg)
{
	struct done *d = arg;
	void *grown;

	(void)line;
	if (strcmp(results_row_get(row, RC_ALGORITHM), EXECUTE_RUN_ALGORITHM) ||
	    strcmp(results_row_get(row, RC_BACKEND), "threadrun") ||
	    strcmp(results_row_get(row, RC_WORKLOAD), d->workload) ||
	    strcmp(results_row_get(row, RC_STATUS), "0"))
		return 0;
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 64;
		grown = realloc(d->runs, d->cap * sizeof(*d->runs));
		if (!grown)
			return 1;
		d->runs = grown;
	}
	if (results_row_count(row, RC_THREADS, PL_MAX_WORKERS) < 0 ||
	    results_row_count(row, RC_REPEAT, 1 << 30) < 0)
		return 0;
	d->runs[d->n].threads = (unsigned)results_row_count(row, RC_THREADS, PL_MAX_WORKERS);
	d->runs[d->n].repeat = (unsigned)results_row_count(row, RC_REPEAT, 1 << 30);
	snprintf(d->runs[d->n].policy, sizeof(d->runs[d->n].policy), "%s",
		 results_row_get(row, RC_POLICY));
	d->n++;
	return 0;
}

static bool is_done(const struct done *d, unsigned threads, const char *policy, unsigned repeat)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->runs[i].threads == threads && d->runs[i].repeat == repeat &&
		    strcmp(d->runs[i].policy, policy) == 0)
			return true;
	return false;
}

static void clock_text(double s, char *buf, size_t len)
{
	long t = (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%02ld:%02ld", t / 60, t % 60);
}

struct progress {
	bool tty, quiet;
	unsigned total, index, ran;
	double start, busy;     /* seconds spent in runs done in this session */
};

static void show_progress(struct progress *pg, unsigned threads, const char *policy,
			  unsigned repeat, const char *program)
{
	char el[32], eta[32] = "?";
	unsigned left = pg->total - pg->index + 1;

	if (pg->quiet)
		return;
	clock_text(now_s() - pg->start, el, sizeof(el));
	if (pg->ran)
		clock_text(pg->busy / pg->ran * left, eta, sizeof(eta));
	fprintf(stderr, "%s%s: sweep [%u/%u] %u threads, %s, repeat %u: %s; %s elapsed, ETA %s%s",
		pg->tty ? "\r\033[K" : "", PROG, pg->index, pg->total, threads, policy, repeat,
		program, el, eta, pg->tty ? "" : "\n");
	fflush(stderr);
}

/* Check every plan before anything runs: a bad combination is a usage error. */
static int check_plans(pl_topology_t topo, const struct sweep_opts *o)
{
	struct pl_plan *plan;
	int i, j;

	for (i = 0; i < o->npolicies; i++)
		for (j = 0; j < o->ncounts; j++) {
			if (pl_plan_compute(topo, &o->policies[i], o->counts[j],
					    o->strict ? PL_PLAN_STRICT : 0, &plan) < 0) {
				msg_error(PROG, "%s", pl_topology_get_error(topo));
				return -1;
			}
			pl_plan_destroy(plan);
		}
	return 0;
}

/* FILE.log, FILE.lock: the files a sweep keeps beside the results. */
static int open_beside(const char *results, const char *suffix, char **path)
{
	char err[PATH_MAX + 256];
	int fd;

	if (asprintf(path, "%s%s", results, suffix) < 0) {
		*path = NULL;
		msg_error(PROG, "out of memory");
		return -1;
	}
	fd = datafile_open(suffix + 1, *path, O_RDWR | O_CREAT | O_APPEND, err, sizeof(err));
	if (fd < 0)
		msg_error(PROG, "sweep: %s", err);
	return fd;
}

/*
 * A live sweep's claim on the combination it is measuring: a write lock
 * (an open file description lock, gone with the process however it dies)
 * on one byte of FILE.lock, at an offset hashed from what --resume calls
 * one combination (workload, threads, policy, repeat).  1 claimed, 0 held
 * by another live process, -1 error.  RELEASE drops a claim.
 */
static int claim(int fd, const char *workload, unsigned threads, const char *policy,
		 unsigned repeat, bool release)
{
	struct flock fl = { .l_type = release ? F_UNLCK : F_WRLCK, .l_whence = SEEK_SET, .l_len = 1 };
	uint64_t h = 14695981039346656037ull;   /* FNV-1a */
	char num[64];
	const char *parts[] = { workload, num, policy };
	size_t i, k;

	snprintf(num, sizeof(num), "%u/%u", threads, repeat);
	for (k = 0; k < sizeof(parts) / sizeof(parts[0]); k++)
		for (i = 0; i <= strlen(parts[k]); i++)
			h = (h ^ (unsigned char)parts[k][i]) * 1099511628211ull;
	/* 2^40 bytes of offsets: far within every file system's limits. */
	fl.l_start = (off_t)(h & ((1ull << 40) - 1));
	if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
		return 1;
	return errno == EAGAIN || errno == EACCES ? 0 : -1;
}

int sweep_run(pl_topology_t topo, const struct sweep_opts *o)
{
	struct execute ex = { .topo = topo, .always_row = true, .output_fd = -1,
			      .monitor = o->monitor, .quiet = true };
	struct progress pg = { .tty = isatty(2), .quiet = o->quiet, .start = now_s() };
	struct done done = { 0 };
	struct results_info info;
	struct launch_result r;
	char err[PATH_MAX + 256], name[256], *log = NULL, *lockpath = NULL;
	const char *base = strrchr(o->argv[0], '/') ? strrchr(o->argv[0], '/') + 1 : o->argv[0];
	unsigned rep, failed = 0, skipped = 0, busy = 0;
	int i, j, ret = 2, st, lockfd = -1, claimed;
	struct pl_plan *plan = NULL;
	double t0;

	if (check_plans(topo, o) < 0)
		return 2;
	st = execute_prepare(&ex, o->argv[0], o->results, err, sizeof(err));
	if (st) {
		msg_error(PROG, "%s", err);
		execute_finish(&ex);
		return st;
	}
	snprintf(done.workload, sizeof(done.workload), "%s", base);
	if (o->resume && access(ex.results, F_OK) == 0 &&
	    results_read(ex.results, collect_done, &done, stderr, &info, err, sizeof(err)) < 0) {
		msg_error(PROG, "sweep: --resume: %s", err);
		execute_finish(&ex);
		return 2;
	}
	ex.output_fd = open_beside(ex.results, ".log", &log);
	if (ex.output_fd < 0)
		goto out;
	lockfd = open_beside(ex.results, ".lock", &lockpath);
	if (lockfd < 0)
		goto out;
	pg.total = (unsigned)(o->ncounts * o->npolicies) * o->repeat;
	ret = 0;
	for (rep = 0; rep < o->repeat; rep++)
		for (i = 0; i < o->npolicies; i++)
			for (j = 0; j < o->ncounts; j++) {
				pg.index++;
				pl_policy_name(&o->policies[i], name, sizeof(name));
				if (is_done(&done, o->counts[j], name, rep)) {
					skipped++;
					continue;
				}
				/* --resume never measures what a live sweep is measuring;
				 * a plain sweep was asked for every run and makes it. */
				claimed = claim(lockfd, base, o->counts[j], name, rep, false);
				if (claimed == 0 && o->resume) {
					busy++;
					continue;
				}
				if (pl_plan_compute(topo, &o->policies[i], o->counts[j],
						    o->strict ? PL_PLAN_STRICT : 0, &plan) < 0) {
					msg_error(PROG, "%s", pl_topology_get_error(topo));
					ret = 2;
					goto out;
				}
				show_progress(&pg, o->counts[j], name, rep, base);
				dprintf(ex.output_fd, "=== threadrun sweep [%u/%u] %u threads, %s, repeat %u\n",
					pg.index, pg.total, o->counts[j], name, rep);
				t0 = now_s();
				st = execute_run(&ex, plan, name, o->argv, rep, &r, err, sizeof(err));
				pg.busy += now_s() - t0;
				pg.ran++;
				pl_plan_destroy(plan);
				plan = NULL;
				if (claimed == 1)
					claim(lockfd, base, o->counts[j], name, rep, true);
				if (launch_interrupted()) {
					fprintf(stderr, "%s%s: sweep interrupted during run %u of %u; every finished row is in %s.\n"
						"%s: resume with the same command and --resume\n",
						pg.tty ? "\n" : "", PROG, pg.index, pg.total, ex.results, PROG);
					ret = 128 + launch_interrupted();
					goto out;
				}
				if (st < 0 || r.status) {
					failed++;
					fprintf(stderr, "%s%s: sweep: run %u of %u (%u threads, %s, repeat %u) failed: %s; output in %s\n",
						pg.tty ? "\n" : "", PROG, pg.index, pg.total, o->counts[j], name,
						rep, st < 0 ? err : r.signal ? strsignal(r.signal) : "nonzero exit",
						log);
					if (st < 0 && r.status >= 126)
						goto out;
				}
			}
	if (!o->quiet) {
		char el[32];

		clock_text(now_s() - pg.start, el, sizeof(el));
		fprintf(stderr, "%s%s: sweep done: %u runs, %u failed, %u skipped (already in %s); %s; rows in %s, output in %s\n",
			pg.tty ? "\n" : "", PROG, pg.total - skipped - busy, failed, skipped, ex.results,
			el, ex.results, log);
	}
	if (busy)
		fprintf(stderr, "%s: sweep: %u run(s) not made: another live sweep was measuring them; --resume again once it ends\n",
			PROG, busy);
	ret = failed || busy ? 1 : 0;
out:
	pl_plan_destroy(plan);
	execute_finish(&ex);
	if (ex.output_fd >= 0)
		close(ex.output_fd);
	if (lockfd >= 0)
		close(lockfd);
	free(log);
	free(lockpath);
	free(done.runs);
	return ret;
}
