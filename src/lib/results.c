/* The results file: schema, whole-row appends, tolerant reading. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "placement.h"

#include "datafile.h"

#include "opt.h"
#include "escape.h"
#include "results.h"

static const char *const col_names[RC_COUNT] = {
	[RC_TIME] = "time",           [RC_HOST] = "host",
	[RC_CPU_MODEL] = "cpu_model", [RC_TOPOLOGY] = "topology",
	[RC_CORES] = "cores",         [RC_PUS] = "pus",
	[RC_VERSIONS] = "versions",   [RC_WORKLOAD] = "workload",
	[RC_ALGORITHM] = "algorithm", [RC_BACKEND] = "backend",
	[RC_IMPL] = "impl",           [RC_SIZE] = "size",
	[RC_SIZE_UNIT] = "size_unit", [RC_THREADS] = "threads",
	[RC_POLICY] = "policy",       [RC_CPUS] = "cpus",
	[RC_CPUS_SEEN] = "cpus_seen", [RC_REPEAT] = "repeat",
	[RC_RUN] = "run",             [RC_SEQ] = "seq",
	[RC_CONFIG] = "config",       [RC_JOB] = "job",
	[RC_RANK] = "rank",           [RC_RANKS] = "ranks",
	[RC_LOCAL_RANK] = "local_rank",
	[RC_LAUNCHER] = "launcher",   [RC_CPUSET] = "cpuset",
	[RC_START_SYNC] = "start_sync",
	[RC_OPS] = "ops",             [RC_BYTES] = "bytes",
	[RC_WALL_S] = "wall_s",       [RC_USER_S] = "user_s",
	[RC_SYS_S] = "sys_s",
	[RC_T_START] = "t_start",     [RC_T_END] = "t_end",
	[RC_RATE] = "rate",
	[RC_UNIT] = "unit",           [RC_VERIFIED] = "verified",
	[RC_CHECKS] = "checks",
	[RC_PLACEMENT_OK] = "placement_ok", [RC_MIGRATIONS] = "migrations",
	[RC_OFF_PLAN] = "off_plan",   [RC_STEAL_PCT] = "steal_pct",
	[RC_OTHERS_PCT] = "others_pct", [RC_SYS_SHARE] = "sys_share",
	[RC_LAT_BATCH] = "lat_batch", [RC_LAT_N] = "lat_n",
	[RC_LAT_P50_S] = "lat_p50_s", [RC_LAT_P90_S] = "lat_p90_s",
	[RC_LAT_P99_S] = "lat_p99_s", [RC_LAT_P999_S] = "lat_p999_s",
	[RC_LAT_MAX_S] = "lat_max_s", [RC_LAT_WORKERS] = "lat_workers",
	[RC_COUNTERS] = "counters",   [RC_TASK_CLOCK_S] = "task_clock_s",
	[RC_CTX_SWITCHES] = "ctx_switches", [RC_CPU_MIGRATIONS] = "cpu_migrations",
	[RC_PAGE_FAULTS] = "page_faults", [RC_CYCLES] = "cycles",
	[RC_INSTRUCTIONS] = "instructions", [RC_CACHE_REFS] = "cache_refs",
	[RC_CACHE_MISSES] = "cache_misses", [RC_BRANCH_MISSES] = "branch_misses",
	[RC_EVENTS] = "events",       [RC_COUNTED_PCT] = "counted_pct",
	[RC_CYCLES_PER_BYTE] = "cycles_per_byte", [RC_CYCLES_PER_OP] = "cycles_per_op",
	[RC_IPC] = "ipc",             [RC_FLOPS_PER_CYCLE] = "flops_per_cycle",
	[RC_CTR_WORKERS] = "ctr_workers", [RC_SEED] = "seed",
	[RC_POLICIES] = "policies",   [RC_STOP] = "stop",
	[RC_STATUS] = "status",       [RC_NOTE] = "note",
};

const char *results_col_name(enum results_col col)
{
	return col < RC_COUNT ? col_names[col] : "?";
}

int results_col_find(const char *name)
{
	int i;

	for (i = 0; i < RC_COUNT; i++)
		if (strcmp(col_names[i], name) == 0)
			return i;
	return -1;
}

/* Names other tables give our columns (published scaling figures, such as
 * tests/data/published-scale.csv, use these), so they read as results
 * files too. */
static const struct { const char *name; enum results_col col; } col_aliases[] = {
	{ "tool", RC_WORKLOAD },
	{ "machine", RC_HOST },
	{ "size_bytes", RC_SIZE },
	{ "key_bits", RC_SIZE },
	{ "seconds", RC_WALL_S },
};

static int col_find_or_alias(const char *name)
{
	int c = results_col_find(name);
	size_t i;

	for (i = 0; c < 0 && i < sizeof(col_aliases) / sizeof(col_aliases[0]); i++)
		if (strcmp(col_aliases[i].name, name) == 0)
			c = (int)col_aliases[i].col;
	return c;
}

void results_row_init(struct results_row *row)
{
	memset(row, 0, sizeof(*row));
}

void results_row_clear(struct results_row *row)
{
	int i;

	for (i = 0; i < RC_COUNT; i++)
		free(row->val[i]);
	memset(row, 0, sizeof(*row));
}

int results_row_set(struct results_row *row, enum results_col col, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	free(row->val[col]);
	row->val[col] = s;
	return 0;
}

const char *results_row_get(const struct results_row *row, enum results_col col)
{
	return row->val[col] ? row->val[col] : "";
}

/* What a column holds: readers refuse anything else in it. */
enum col_kind { K_TEXT, K_COUNT, K_REAL };

static const enum col_kind col_kinds[RC_COUNT] = {
	[RC_CORES] = K_COUNT, [RC_PUS] = K_COUNT, [RC_SIZE] = K_COUNT,
	[RC_THREADS] = K_COUNT, [RC_REPEAT] = K_COUNT, [RC_OPS] = K_COUNT,
	[RC_BYTES] = K_COUNT, [RC_MIGRATIONS] = K_COUNT, [RC_OFF_PLAN] = K_COUNT,
	[RC_STATUS] = K_COUNT, [RC_SEQ] = K_COUNT, [RC_RANK] = K_COUNT, [RC_RANKS] = K_COUNT,
	[RC_LOCAL_RANK] = K_COUNT, [RC_T_START] = K_COUNT, [RC_T_END] = K_COUNT,
	[RC_WALL_S] = K_REAL, [RC_USER_S] = K_REAL, [RC_SYS_S] = K_REAL,
	[RC_RATE] = K_REAL, [RC_STEAL_PCT] = K_REAL, [RC_OTHERS_PCT] = K_REAL,
	[RC_SYS_SHARE] = K_REAL,
	[RC_LAT_BATCH] = K_COUNT, [RC_LAT_N] = K_COUNT,
	[RC_LAT_P50_S] = K_REAL, [RC_LAT_P90_S] = K_REAL, [RC_LAT_P99_S] = K_REAL,
	[RC_LAT_P999_S] = K_REAL, [RC_LAT_MAX_S] = K_REAL,
	[RC_CTX_SWITCHES] = K_COUNT, [RC_CPU_MIGRATIONS] = K_COUNT, [RC_PAGE_FAULTS] = K_COUNT,
	[RC_CYCLES] = K_COUNT, [RC_INSTRUCTIONS] = K_COUNT, [RC_CACHE_REFS] = K_COUNT,
	[RC_CACHE_MISSES] = K_COUNT, [RC_BRANCH_MISSES] = K_COUNT,
	[RC_TASK_CLOCK_S] = K_REAL, [RC_COUNTED_PCT] = K_REAL,
};

/* Counts stay exact in a double; measurements stay far from overflow when
 * multiplied by a thread count. */
#define COUNT_MAX 9007199254740992.0    /* 2^53 */
#define REAL_MAX 1e18

/* Plain decimal: digits only for a count; for a real an optional fraction
 * and exponent too.  No sign, hex, inf or nan: a file may hold anything. */
static bool decimal(const char *s, bool real)
{
	return real ? num_is_decimal(s) : *s && s[strspn(s, "0123456789")] == '\0';
}

/* The value of S when it is a valid COL value, else NAN; WHY says why. */
static double col_value(enum results_col col, const char *s, const char **why)
{
	bool real = col_kinds[col] == K_REAL;
	double v;

	if (!decimal(s, real)) {
		*why = real ? "is not a decimal number of 0 or more"
		       : col == RC_THREADS ? "is not a whole decimal number, allowed 1..1048576"
					   : "is not a whole decimal number of 0 or more";
		return NAN;
	}
	v = strtod(s, NULL);
	/* A row is of 1 or more workers, as many as threadrun plans. */
	if (col == RC_THREADS && !(v >= 1 && v <= RESULTS_MAX_THREADS)) {
		*why = "is out of range, allowed 1..1048576";
		return NAN;
	}
	if (!(v <= (real ? REAL_MAX : COUNT_MAX))) {
		*why = real ? "is out of range, allowed 0..1e18" : "is out of range, allowed 0..9007199254740992";
		return NAN;
	}
	return v;
}

double results_row_num(const struct results_row *row, enum results_col col)
{
	const char *why;

	if (!row->val[col] || !*row->val[col])
		return NAN;
	return col_value(col, row->val[col], &why);
}

long results_row_count(const struct results_row *row, enum results_col col, long max)
{
	double v = results_row_num(row, col);

	if (!(v >= 0 && v <= (double)max) || v != (double)(long)v)
		return -1;
	return (long)v;
}

int results_row_check(const struct results_row *row, char *err, size_t errlen)
{
	const char *why = NULL;
	int i;

	for (i = 0; i < RC_COUNT; i++) {
		if (col_kinds[i] == K_TEXT || !row->val[i] || !*row->val[i])
			continue;
		if (isnan(col_value((enum results_col)i, row->val[i], &why))) {
			snprintf(err, errlen, "column '%s': '%.40s%s' %s", col_names[i], ESC(row->val[i]),
				 strlen(row->val[i]) > 40 ? "..." : "", why);
			return -1;
		}
	}
	return 0;
}

/* The identity of a measurement (results.h). */
static const enum results_col series_cols[] = {
	RC_HOST, RC_WORKLOAD, RC_CONFIG, RC_ALGORITHM, RC_BACKEND, RC_IMPL, RC_UNIT,
	RC_SIZE_UNIT, RC_SIZE, RC_JOB,
};
static const enum results_col point_cols[] = { RC_POLICY, RC_THREADS };
static const enum results_col repeat_cols[] = { RC_REPEAT, RC_RANK };
/* The series but host, the point, and the repeat but rank. */
static const enum results_col cluster_cols[] = {
	RC_WORKLOAD, RC_CONFIG, RC_ALGORITHM, RC_BACKEND, RC_IMPL, RC_UNIT, RC_SIZE_UNIT, RC_SIZE,
	RC_JOB, RC_POLICY, RC_THREADS, RC_REPEAT,
};
_Static_assert(sizeof(series_cols) / sizeof(series_cols[0]) == RESULTS_NSERIES_COLS, "series");
_Static_assert(sizeof(cluster_cols) / sizeof(cluster_cols[0]) == RESULTS_NCLUSTER_COLS, "cluster");
_Static_assert(sizeof(point_cols) / sizeof(point_cols[0]) == RESULTS_NPOINT_COLS, "point");
_Static_assert(sizeof(repeat_cols) / sizeof(repeat_cols[0]) == RESULTS_NREPEAT_COLS, "repeat");
const enum results_col *const results_series_cols = series_cols;
const enum results_col *const results_point_cols = point_cols;
const enum results_col *const results_repeat_cols = repeat_cols;
const enum results_col *const results_cluster_cols = cluster_cols;

bool results_same_run(const char *a, const char *b)
{
	return *a && strcmp(a, b) == 0;
}

static bool same_cols(const struct results_row *a, const struct results_row *b,
		      const enum results_col *cols, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(results_row_get(a, cols[i]), results_row_get(b, cols[i])))
			return false;
	return true;
}

bool results_same_series(const struct results_row *a, const struct results_row *b)
{
	return same_cols(a, b, series_cols, RESULTS_NSERIES_COLS);
}

bool results_same_point(const struct results_row *a, const struct results_row *b)
{
	return results_same_series(a, b) &&
	       same_cols(a, b, point_cols, RESULTS_NPOINT_COLS);
}

bool results_same_repeat(const struct results_row *a, const struct results_row *b)
{
	return results_same_point(a, b) &&
	       same_cols(a, b, repeat_cols, RESULTS_NREPEAT_COLS);
}

bool results_same_cluster(const struct results_row *a, const struct results_row *b)
{
	return *results_row_get(a, RC_JOB) && same_cols(a, b, cluster_cols, RESULTS_NCLUSTER_COLS);
}

bool results_rerun_replaces(long earlier_status, const char *earlier_run, const char *later_run)
{
	return earlier_status > 0 && !results_same_run(earlier_run, later_run);
}

bool results_supersedes(const struct results_row *later, const struct results_row *earlier)
{
	return results_same_repeat(later, earlier) &&
	       results_rerun_replaces(results_row_count(earlier, RC_STATUS, 1 << 20),
				      results_row_get(earlier, RC_RUN), results_row_get(later, RC_RUN));
}

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512], *colon;

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10) && strncmp(line, "cpu model", 9) &&
		    strncmp(line, "cpu\t", 4))
			continue;
		colon = strchr(line, ':');
		if (!colon)
			continue;
		colon += strspn(colon, ": \t");
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

/* Topology and counts of this machine, from the placement library. */
static void machine_topology(struct results_row *row)
{
	pl_topology_t topo = NULL;
	char desc[256];

	if (pl_topology_init(&topo) == 0 && pl_topology_load(topo) == 0) {
		if (pl_topology_describe(topo, desc, sizeof(desc)) == 0)
			results_row_set(row, RC_TOPOLOGY, "%s", desc);
		results_row_set(row, RC_CORES, "%u", pl_topology_get_nbcores(topo));
		results_row_set(row, RC_PUS, "%u", pl_topology_get_nbusable(topo));
	}
	pl_topology_destroy(topo);
}

int results_row_provenance(struct results_row *row, const char *versions)
{
	char host[256] = "unknown", model[256], stamp[32];
	const char *topo = getenv("THREADRUN_TOPOLOGY");
	time_t now = time(NULL);
	struct tm tm;

	gethostname(host, sizeof(host) - 1);
	cpu_model(model, sizeof(model));
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	results_row_set(row, RC_TIME, "%s", stamp);
	results_row_set(row, RC_HOST, "%s", host);
	results_row_set(row, RC_CPU_MODEL, "%s", model);
	if (topo && getenv("THREADRUN_CORES") && getenv("THREADRUN_PUS")) {
		results_row_set(row, RC_TOPOLOGY, "%s", topo);
		results_row_set(row, RC_CORES, "%s", getenv("THREADRUN_CORES"));
		results_row_set(row, RC_PUS, "%s", getenv("THREADRUN_PUS"));
	} else {
		machine_topology(row);
	}
	return results_row_set(row, RC_VERSIONS, "hwloc %s%s%s", HWLOC_VERSION,
			       versions ? "; " : "", versions ? versions : "");
}

/* One CSV line: the header (ROW NULL) or a row, always whole. */
static char *format_line(const struct results_row *row)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int i;

	if (!f)
		return NULL;
	for (i = 0; i < RC_COUNT; i++) {
		if (i)
			fputc(',', f);
		if (row)
			esc_csv(f, results_row_get(row, (enum results_col)i), 0);
		else
			fputs(col_names[i], f);
	}
	fputc('\n', f);
	fclose(f);
	return buf;
}

#define UTF8_BOM "\xef\xbb\xbf"

/* Compare the first line of FD with our HEADER (its line end "\n"): 1 the
 * same, 0 different, -1 out of memory.  What other tools write is the
 * same: a UTF-8 BOM before it, CR LF after it (*CRLF, the line end the
 * file's rows take then). */
static int header_matches(int fd, const char *header, bool *crlf)
{
	size_t len = strlen(header), body = len - 1, skip;
	char *buf = malloc(len + 4);
	ssize_t n;
	int same;

	*crlf = false;
	if (!buf)
		return -1;
	n = pread(fd, buf, len + 4, 0);
	skip = n >= 3 && memcmp(buf, UTF8_BOM, 3) == 0 ? 3 : 0;
	/* The header alone, its newline not written yet, is ours too: the
	 * first row appended ends the line first. */
	same = n >= (ssize_t)(skip + body) && memcmp(buf + skip, header, body) == 0 &&
	       (n == (ssize_t)(skip + body) || buf[skip + body] == '\n' ||
		(n > (ssize_t)(skip + body + 1) && memcmp(buf + skip + body, "\r\n", 2) == 0));
	*crlf = same && n > (ssize_t)(skip + body) && buf[skip + body] == '\r';
	free(buf);
	return same;
}

/* Why FD's header is not ours, in words; *OLDER: an older version's,
 * which lacks the identity columns (run ... local_rank) and still reads
 * (readers leave them empty). */
static const char *header_diff(int fd, bool *older)
{
	char buf[4096];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	*older = false;
	if (n <= 0)
		return "unreadable";
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	*older = strstr(buf, ",repeat,ops,") && !strstr(buf, ",run,seq,config,");
	if (*older)
		return "an older version, without the run, seq and config columns";
	return "not this version's columns";
}

int results_check(const char *path, char *err, size_t errlen)
{
	char *copy = strdup(path), *dir;
	char *header = format_line(NULL);
	const char *why;
	struct stat st;
	int fd = -1, ret = -1;
	bool crlf, older;

	if (!copy || !header)
		goto out;
	if (!*path) {
		snprintf(err, errlen, "results: '' is not a file name");
		goto out;
	}
	if (strlen(path) >= PATH_MAX) {
		snprintf(err, errlen, "results: '%.32s...' (%zu characters): %s, at most %d", ESC(path),
			 strlen(path), strerror(ENAMETOOLONG), PATH_MAX - 1);
		goto out;
	}
	dir = dirname(copy);
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "results: directory '%s' of '%s' does not exist", ESC(dir), ESC(path));
		goto out;
	}
	fd = datafile_open("results", path, O_RDWR | O_APPEND, err, errlen);
	if (fd >= 0) {
		if (fstat(fd, &st) == 0 && st.st_size > 0 && header_matches(fd, header, &crlf) != 1) {
			why = header_diff(fd, &older);
			snprintf(err, errlen,
				 "results: '%s' is not a threadrun results file of this version (header differs: %s); give a new file%s",
				 ESC(path), why, older ? ", it still reads with threadreport" : "");
			goto out;
		}
		/* Rows are appended under a lock: a file system without
		 * locks is found now, not after the first measurement.  A
		 * lock someone holds is fine. */
		if (flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == ENOLCK) {
			results_nolock_error(path, path, err, errlen);
			goto out;
		}
	} else if (errno != ENOENT) {
		goto out;
	} else if (access(dir, W_OK) < 0) {
		snprintf(err, errlen, "results: cannot create '%s' in '%s': %s", ESC(path), ESC(dir),
			 strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(copy);
	free(header);
	return ret;
}

/* -o's pattern for one file per host beside RESULTS: DIR/NAME-%h.csv, a
 * % of the name doubled (the pattern expands it). */
static void per_host_pattern(FILE *f, const char *results)
{
	const char *slash = strrchr(results, '/'), *name = slash ? slash + 1 : results;
	size_t n = strlen(name), i;

	if (n > 4 && strcmp(name + n - 4, ".csv") == 0)
		n -= 4;
	for (i = 0; i < (size_t)(name - results) + n; i++) {
		if (results[i] == '%')
			fputc('%', f);
		fputc(results[i], f);
	}
	fputs("-%h.csv", f);
}

void results_nolock_error(const char *locked, const char *results, char *err, size_t errlen)
{
	char *hint = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&hint, &len);

	if (f) {
		per_host_pattern(f, results);
		if (fclose(f) != 0) {
			free(hint);
			hint = NULL;
		}
	}
	snprintf(err, errlen, "results: cannot lock '%s': %s (a network file system without a lock service?); ranks on several hosts cannot share '%s' there: give each host its own file, -o '%s'",
		 ESC(locked), strerror(ENOLCK), ESC(results), ESC(hint ? hint : "DIR/runs-%h.csv"));
	free(hint);
}

/* The row's LINE (after the file's HEADER when it is new) appended to FD,
 * locked: 0, or -1 with the message in ERR, the file as it was. */
static int append_locked(int fd, const char *path, const char *header, const char *line,
			 char *err, size_t errlen)
{
	struct stat st;
	char last = '\n', *text = NULL;
	bool crlf = false, older;
	int ret = -1, saved;

	if (fstat(fd, &st) < 0) {
		snprintf(err, errlen, "results: cannot read '%s': %s", ESC(path), strerror(errno));
		return -1;
	}
	if (st.st_size > 0 && header_matches(fd, header, &crlf) != 1) {
		snprintf(err, errlen, "results: '%s' has another header (%s); not appending: give a new file",
			 ESC(path), header_diff(fd, &older));
		return -1;
	}
	/* A file cut short by someone else's crash still gets our row on a line
	 * of its own, so the reader names the damaged line and keeps ours. */
	if (st.st_size > 0 && pread(fd, &last, 1, st.st_size - 1) != 1)
		last = '\n';
	/* A file with CR LF line ends keeps them (LINE ends in one "\n"). */
	if (asprintf(&text, "%s%s%.*s%s", st.st_size == 0 ? header : "",
		     last == '\n' ? "" : crlf ? "\r\n" : "\n", (int)strlen(line) - 1, line,
		     crlf ? "\r\n" : "\n") < 0)
		return -1;
	if (datafile_write_all(fd, text, strlen(text)) == 0 && fsync(fd) == 0) {
		ret = 0;
	} else {
		saved = errno;
		/* Cut back a part-written row. */
		if (ftruncate(fd, st.st_size) < 0)
			snprintf(err, errlen, "results: cannot append to '%s': %s, and cutting back failed: %s",
				 ESC(path), strerror(saved), strerror(errno));
		else
			snprintf(err, errlen, "results: cannot append to '%s': %s (earlier rows kept)",
				 ESC(path), strerror(saved));
	}
	free(text);
	return ret;
}

int results_append(const char *path, const struct results_row *row, char *err,
		   size_t errlen)
{
	char *header = format_line(NULL), *line = format_line(row);
	sigset_t all, old;
	int fd = -1, ret = -1;

	if (!header || !line) {
		snprintf(err, errlen, "results: out of memory");
		goto out;
	}
	fd = datafile_open("results", path, O_RDWR | O_CREAT | O_APPEND, err, errlen);
	if (fd < 0)
		goto out;
	/* Wait for the lock with signals deliverable: Ctrl-C must end a wait
	 * on someone else's lock.  A handler that returns interrupts the wait. */
	if (flock(fd, LOCK_EX) < 0) {
		if (errno == ENOLCK)
			results_nolock_error(path, path, err, errlen);
		else
			snprintf(err, errlen, "results: %s while waiting for the lock on '%s'",
				 errno == EINTR ? "interrupted" : strerror(errno), ESC(path));
		goto out;
	}
	/* Held off from here to the end: the row goes in whole or not at all. */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	ret = append_locked(fd, path, header, line, err, errlen);
	close(fd);
	fd = -1;
	sigprocmask(SIG_SETMASK, &old, NULL);
out:
	if (fd >= 0)
		close(fd);
	free(header);
	free(line);
	return ret;
}

/*
 * The reader: RFC 4180 records (quoted fields may hold commas, doubled
 * quotes, CR LF and newlines), read through a window of bounded size, so a
 * hostile file costs bounded memory and each damaged record costs itself.
 */
#define RECORD_MAX (1u << 20)   /* bytes of one record */
#define FIELDS_MAX 1024         /* fields of one record */
#define READ_CHUNK 65536

struct reader {
	int fd;
	bool own;               /* fd is ours to close (not stdin) */
	const char *path;
	char *buf;              /* unparsed bytes are buf[pos..len) */
	size_t pos, len;
	bool eof;
	unsigned line;          /* physical line of buf[pos], 1-based */
	char *out;              /* the current record's fields, unescaped, NUL-separated */
	size_t field[FIELDS_MAX];
	unsigned nfields;       /* may exceed FIELDS_MAX: counted, not kept */
	unsigned want;          /* fields a row must have (the header's), 0 any */
	bool begun;             /* a UTF-8 BOM at the file's start is looked for (and skipped) */
};

/* REC_GO: parse_record's steps, the field goes on. */
enum rec { REC_OK, REC_MORE, REC_BAD, REC_GO };

/* Open PATH for reading: regular files only ("-": stdin, a file or a pipe),
 * opened without blocking so a FIFO or device is refused, not waited on. */
static int reader_open(struct reader *r, const char *path, char *err, size_t errlen)
{
	bool in = strcmp(path, "-") == 0;
	struct stat st;

	memset(r, 0, sizeof(*r));
	r->path = path;
	r->line = 1;
	r->fd = in ? 0 : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	r->own = !in && r->fd >= 0;
	if (r->fd < 0 || fstat(r->fd, &st) < 0) {
		snprintf(err, errlen, "cannot read '%s': %s", ESC(path), strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode) && !(in && S_ISFIFO(st.st_mode))) {
		snprintf(err, errlen, "'%s' is not a regular file (%s); give a results file", ESC(path),
			 S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" :
			 S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "a special file");
		return -1;
	}
	r->buf = malloc(RECORD_MAX + READ_CHUNK + 1);
	r->out = malloc(RECORD_MAX + 1);
	if (!r->buf || !r->out) {
		snprintf(err, errlen, "'%s': out of memory", ESC(path));
		return -1;
	}
	return 0;
}

static void reader_close(struct reader *r)
{
	if (r->own)
		close(r->fd);
	free(r->buf);
	free(r->out);
}

/* Move the unparsed bytes to the front and read more.  -1 on a read error. */
static int reader_fill(struct reader *r, char *err, size_t errlen)
{
	const size_t cap = RECORD_MAX + READ_CHUNK;
	ssize_t n;

	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->pos = 0;
	}
	while (!r->eof && r->len < cap) {
		n = read(r->fd, r->buf + r->len, cap - r->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "cannot read '%s': %s", ESC(r->path), strerror(errno));
			return -1;
		}
		if (n == 0)
			r->eof = true;
		r->len += (size_t)n;
		if (n > 0)
			break;
	}
	/* Another tool's BOM is no part of the first column's name. */
	if (!r->begun && (r->pos > 0 || r->len >= 3 || r->eof)) {
		r->begun = true;
		if (r->pos == 0 && r->len >= 3 && memcmp(r->buf, UTF8_BOM, 3) == 0)
			r->pos = 3;
	}
	return 0;
}

static void add_field(struct reader *r, size_t o)
{
	if (r->nfields < FIELDS_MAX)
		r->field[r->nfields] = o;
	r->nfields++;
}

/*
 * Parse the record at buf[pos].  REC_OK: fields in out, *END just past its
 * line end, *LINES the physical lines it covers.  REC_MORE: the window ends
 * first.  REC_BAD: *WHY says why, *SPLIT is the offset after the record's
 * first newline when a quoted field ran over one (0 when none): the damage
 * may be that quote, so reading resumes on the next line.
 */
#define TOO_LONG "record longer than 1 MiB"

/* Where buf[I] stands: REC_GO inside the window, REC_MORE past it with
 * more to read, REC_OK past the end of the data, REC_BAD (*WHY) past the
 * longest record. */
static enum rec window_at(const struct reader *r, size_t i, const char **why)
{
	if (i >= r->pos + RECORD_MAX) {
		*why = TOO_LONG;
		return REC_BAD;
	}
	if (i < r->len)
		return REC_GO;
	return r->eof ? REC_OK : REC_MORE;
}

/* The quoted field at buf[*I] into out[*O]: REC_GO with both just past it,
 * or the record's answer. */
static enum rec parse_quoted(struct reader *r, size_t *pi, size_t *po, unsigned *lines,
			     const char **why, size_t *split)
{
	const char *b = r->buf;
	size_t i = *pi + 1, o = *po;
	enum rec st;

	for (;; i++) {
		st = window_at(r, i, why);
		if (st == REC_OK) {
			*why = "unterminated quote";
			return REC_BAD;
		}
		if (st != REC_GO)
			return st;
		if (b[i] == '"') {
			if (i + 1 >= r->len && !r->eof)
				return REC_MORE;
			if (i + 1 < r->len && b[i + 1] == '"')
				i++;
			else
				break;
		} else if (b[i] == '\0') {
			*why = "NUL byte";
			return REC_BAD;
		} else if (b[i] == '\n') {
			(*lines)++;
			if (!*split)
				*split = i + 1;
		}
		r->out[o++] = b[i];
	}
	i++;
	if (i < r->len && b[i] != ',' && b[i] != '\n' && b[i] != '\r') {
		*why = "text after a closing quote";
		return REC_BAD;
	}
	*pi = i;
	*po = o;
	return REC_GO;
}

/* The field's unquoted rest at buf[*I] into out[*O]: REC_GO with *I at its
 * comma or line end, REC_OK at the end of the data (*END), or REC_MORE or
 * REC_BAD. */
static enum rec parse_plain(struct reader *r, size_t *pi, size_t *po, size_t *end,
			    const char **why)
{
	const char *b = r->buf;
	size_t i = *pi;
	enum rec st;

	for (;; i++) {
		st = window_at(r, i, why);
		if (st == REC_OK) {
			r->out[*po] = '\0';
			*end = i;
			return REC_OK;
		}
		if (st != REC_GO)
			return st;
		if (b[i] == ',' || b[i] == '\n')
			break;
		if (b[i] == '\r') {
			if (i + 1 >= r->len && !r->eof)
				return REC_MORE;
			if (i + 1 < r->len && b[i + 1] == '\n') {
				i++;
				break;
			}
		}
		if (b[i] == '\0') {
			*why = "NUL byte";
			return REC_BAD;
		}
		r->out[(*po)++] = b[i];
	}
	*pi = i;
	return REC_GO;
}

static enum rec parse_record(struct reader *r, size_t *end, unsigned *lines,
			     const char **why, size_t *split)
{
	size_t i = r->pos, o = 0;
	enum rec st;

	*lines = 1;
	*split = 0;
	r->nfields = 0;
	for (;;) {
		add_field(r, o);
		if (i < r->len && r->buf[i] == '"' &&
		    (st = parse_quoted(r, &i, &o, lines, why, split)) != REC_GO)
			return st;
		st = parse_plain(r, &i, &o, end, why);
		if (st != REC_GO)
			return st;
		r->out[o++] = '\0';
		if (r->buf[i] == '\n') {
			*end = i + 1;
			return REC_OK;
		}
		i++;
	}
}

/* Skip to the start of the next physical line (streaming: a line without
 * an end is read through, never held). */
static int skip_line(struct reader *r, char *err, size_t errlen)
{
	char *nl;

	for (;;) {
		nl = memchr(r->buf + r->pos, '\n', r->len - r->pos);
		if (nl) {
			r->pos = (size_t)(nl - r->buf) + 1;
			r->line++;
			return 0;
		}
		r->pos = r->len;
		if (r->eof)
			return 0;
		if (reader_fill(r, err, errlen) < 0)
			return -1;
	}
}

/*
 * The next record: 1 with its fields (r->out, r->field, r->nfields) and
 * *LINE where it starts, 0 at the end of the file, -1 on a read error.
 * Damaged records are reported on ERRF, counted in *BAD and skipped.
 */
static int reader_next(struct reader *r, unsigned *line, FILE *errf, unsigned *bad,
		       char *err, size_t errlen)
{
	const char *why;
	size_t end, split;
	unsigned lines;
	char count[64];

	for (;;) {
		if (r->pos >= r->len && r->eof)
			return 0;
		switch (parse_record(r, &end, &lines, &why, &split)) {
		case REC_MORE:
			if (reader_fill(r, err, errlen) < 0)
				return -1;
			continue;
		case REC_OK:
			/* Blank lines are not records. */
			if (r->nfields == 1 && r->out[0] == '\0' && lines == 1) {
				r->pos = end;
				r->line++;
				continue;
			}
			if (!r->want || r->nfields == r->want) {
				*line = r->line;
				r->pos = end;
				r->line += lines;
				return 1;
			}
			snprintf(count, sizeof(count), "%u%s fields, header has %u",
				 r->nfields > FIELDS_MAX ? FIELDS_MAX : r->nfields,
				 r->nfields > FIELDS_MAX ? "+" : "", r->want);
			why = count;
			/* A record read whole but single-line costs that line. */
			if (!split)
				split = end;
			/* fall through */
		case REC_GO:    /* parse_record's steps only: never */
		case REC_BAD:
			fprintf(errf, "%s: %s:%u: malformed row (%s), skipped\n", program_invocation_short_name,
				ESC(r->path), r->line, why);
			(*bad)++;
			if (split) {
				r->pos = split;
				r->line++;
			} else if (skip_line(r, err, errlen) < 0) {
				return -1;
			}
			continue;
		}
	}
}

static const char *rfield(const struct reader *r, unsigned i)
{
	return r->out + r->field[i];
}

/* The header record: MAP from its fields to columns, HAVE the columns it
 * names.  0, or -1 with the message in ERR when it is not a results header. */
static int read_header(const struct reader *r, const char *path, unsigned line, int *map,
		       bool *have, char *err, size_t errlen)
{
	unsigned f;

	for (f = 0; f < r->nfields && f < FIELDS_MAX; f++) {
		map[f] = col_find_or_alias(rfield(r, f));
		if (map[f] >= 0)
			have[map[f]] = true;
	}
	if (r->nfields > FIELDS_MAX || !have[RC_WORKLOAD] || !have[RC_RATE] || !have[RC_THREADS]) {
		snprintf(err, errlen,
			 "'%s' line %u: not a results header (needs at least workload, threads, rate columns)",
			 path, line);
		return -1;
	}
	return 0;
}

static int by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* RUN into LOST (not ""; sorted and made unique when the read ends, so
 * that a file of many damaged rows costs n log n): 0, or -1 when memory
 * runs out. */
static int lost_add(struct results_lost *lost, const char *run)
{
	char **grown;

	if (!*run)
		return 0;
	if (lost->n == lost->cap) {
		grown = realloc(lost->run, (lost->cap ? lost->cap * 2 : 16) * sizeof(*lost->run));
		if (!grown)
			return -1;
		lost->run = grown;
		lost->cap = lost->cap ? lost->cap * 2 : 16;
	}
	if (!(lost->run[lost->n] = strdup(run)))
		return -1;
	lost->n++;
	return 0;
}

/* LOST sorted, each run once (results_lost_has searches it). */
static void lost_sort(struct results_lost *lost)
{
	size_t i, n = 0;

	if (lost->n < 2)
		return;
	qsort(lost->run, lost->n, sizeof(*lost->run), by_text);
	for (i = 0; i < lost->n; i++) {
		if (n && !strcmp(lost->run[n - 1], lost->run[i]))
			free(lost->run[i]);
		else
			lost->run[n++] = lost->run[i];
	}
	lost->n = n;
}

bool results_lost_has(const struct results_lost *lost, const char *run)
{
	return lost->n && bsearch(&run, lost->run, lost->n, sizeof(*lost->run), by_text);
}

void results_lost_free(struct results_lost *lost)
{
	while (lost->n > 0)
		free(lost->run[--lost->n]);
	free(lost->run);
	memset(lost, 0, sizeof(*lost));
}

/* Whether ROW, a program's row (not threadrun's run row) of a run that did
 * not fail, lacks its threads or its rate, said in WHY: a measurement lost
 * as surely as one with an invalid value. */
static bool lacks_measurement(const struct results_row *row, char *why, size_t len)
{
	const char *status = results_row_get(row, RC_STATUS);
	enum results_col empty = !*results_row_get(row, RC_THREADS) ? RC_THREADS : RC_RATE;

	if (!strcmp(results_row_get(row, RC_ALGORITHM), RESULTS_RUN_ALGORITHM) ||
	    (*status && strcmp(status, "0")) || *results_row_get(row, empty))
		return false;
	snprintf(why, len, "column '%s' is empty in a run that did not fail", col_names[empty]);
	return true;
}

/* A data record as a row, checked, to CB (a bad one, or with LOST one
 * without its measurement, counted in *BAD, said on ERRF and its run added
 * to LOST): CB's answer, non-zero to stop; LOST_FULL when LOST cannot
 * grow. */
#define LOST_FULL INT_MIN
static int take_record(const struct reader *r, const int *map, const char *path,
		       unsigned line, FILE *errf, unsigned *bad, struct results_info *info,
		       results_cb cb, void *arg, struct results_lost *lost)
{
	struct results_row row;
	char why[160];
	unsigned f;
	int c;

	results_row_init(&row);
	for (f = 0; f < r->want; f++)
		if (map[f] >= 0 && *rfield(r, f)) {
			free(row.val[map[f]]);
			row.val[map[f]] = strdup(rfield(r, f));
		}
	if (results_row_check(&row, why, sizeof(why)) < 0 ||
	    (lost && lacks_measurement(&row, why, sizeof(why)))) {
		fprintf(errf, "%s: %s:%u: %s, row skipped\n", program_invocation_short_name, ESC(path),
			line, why);
		(*bad)++;
		/* A run row is no measurement of the program's: damaged, it
		 * is missing from its run, which has none then. */
		c = lost && strcmp(results_row_get(&row, RC_ALGORITHM), RESULTS_RUN_ALGORITHM) &&
				    lost_add(lost, results_row_get(&row, RC_RUN)) < 0
			    ? LOST_FULL
			    : 0;
		results_row_clear(&row);
		return c;
	}
	info->rows++;
	c = cb ? cb(&row, line, arg) : 0;
	results_row_clear(&row);
	return c;
}

/* A file read to its end: 0 with the columns it lacks in INFO, or -1 with
 * the message in ERR when it had no header. */
static int read_summary(const char *path, bool any, bool headed, unsigned bad, const bool *have,
			struct results_info *info, char *err, size_t errlen)
{
	size_t used;
	int i;

	if (!any && bad == 0) {
		snprintf(err, errlen, "'%s' is empty, expected a results file with a header line", ESC(path));
		return -1;
	}
	if (!headed) {
		if (bad)
			snprintf(err, errlen, "'%s' has no header line, only %u damaged line(s); expected a CSV results file",
				 ESC(path), bad);
		else
			snprintf(err, errlen, "'%s' has no header line", ESC(path));
		return -1;
	}
	memcpy(info->has, have, sizeof(info->has));
	for (i = 0, used = 0; i < RC_COUNT; i++)
		if (!have[i] && used < sizeof(info->missing))
			used += (size_t)snprintf(info->missing + used, sizeof(info->missing) - used,
						 "%s%s", used ? " " : "", col_names[i]);
	return 0;
}

int results_read(const char *path, results_cb cb, void *arg, FILE *errf,
		 struct results_info *info, char *err, size_t errlen)
{
	return results_read_lost(path, cb, arg, NULL, errf, info, err, errlen);
}

int results_read_lost(const char *path, results_cb cb, void *arg, struct results_lost *lost,
		      FILE *errf, struct results_info *info, char *err, size_t errlen)
{
	struct reader r;
	int map[FIELDS_MAX], ret = -1, got, stop = 0;
	unsigned line, bad = 0;
	bool have[RC_COUNT] = { false }, any = false;

	memset(info, 0, sizeof(*info));
	if (reader_open(&r, path, err, errlen) < 0)
		goto out;
	while ((got = reader_next(&r, &line, errf, &bad, err, errlen)) > 0) {
		any = true;
		if (r.want == 0) {
			if (read_header(&r, path, line, map, have, err, errlen) < 0)
				goto out;
			r.want = r.nfields;
		} else if ((stop = take_record(&r, map, path, line, errf, &bad, info, cb, arg, lost))) {
			break;
		}
	}
	info->bad_lines = bad;
	if (lost)
		lost_sort(lost);
	if (stop == LOST_FULL)
		snprintf(err, errlen, "'%s': out of memory", ESC(path));
	else if (got >= 0)
		ret = read_summary(path, any, r.want > 0, bad, have, info, err, errlen);
out:
	reader_close(&r);
	return ret;
}
