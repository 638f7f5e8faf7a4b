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
	[RC_OPS] = "ops",             [RC_BYTES] = "bytes",
	[RC_WALL_S] = "wall_s",       [RC_USER_S] = "user_s",
	[RC_SYS_S] = "sys_s",         [RC_RATE] = "rate",
	[RC_UNIT] = "unit",           [RC_VERIFIED] = "verified",
	[RC_PLACEMENT_OK] = "placement_ok", [RC_MIGRATIONS] = "migrations",
	[RC_OFF_PLAN] = "off_plan",   [RC_STEAL_PCT] = "steal_pct",
	[RC_SYS_SHARE] = "sys_share",
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

/* Names other tables give our columns (the published figures in
 * shared/reference use these), so they read as results files too. */
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

double results_row_num(const struct results_row *row, enum results_col col)
{
	const char *s = row->val[col];
	char *end;
	double v;

	if (!s || !*s)
		return NAN;
	v = strtod(s, &end);
	return *end ? NAN : v;
}

long results_row_count(const struct results_row *row, enum results_col col, long max)
{
	double v = results_row_num(row, col);

	if (!(v >= 0 && v <= (double)max) || v != (double)(long)v)
		return -1;
	return (long)v;
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

/* Append one CSV field, quoted when it needs to be; newlines become spaces so
 * a row is always one line. */
static int put_field(FILE *f, const char *s)
{
	bool quote = strpbrk(s, ",\"\n\r") || (*s && (s[0] == ' ' || s[strlen(s) - 1] == ' '));
	const char *p;

	if (!quote)
		return fputs(s, f);
	fputc('"', f);
	for (p = s; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
	}
	return fputc('"', f);
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
			put_field(f, results_row_get(row, (enum results_col)i));
		else
			fputs(col_names[i], f);
	}
	fputc('\n', f);
	fclose(f);
	return buf;
}

/* Compare the first line of FD with our header: 1 same, 0 different. */
static int header_matches(int fd, const char *header)
{
	size_t len = strlen(header);
	char *buf = malloc(len + 1);
	ssize_t n;
	int same;

	if (!buf)
		return -1;
	n = pread(fd, buf, len, 0);
	same = n == (ssize_t)len && memcmp(buf, header, len) == 0;
	free(buf);
	return same;
}

int results_check(const char *path, char *err, size_t errlen)
{
	char *copy = strdup(path), *dir;
	char *header = format_line(NULL);
	struct stat st;
	int fd = -1, ret = -1;

	if (!copy || !header)
		goto out;
	if (!*path) {
		snprintf(err, errlen, "results: '' is not a file name");
		goto out;
	}
	if (strlen(path) >= PATH_MAX) {
		snprintf(err, errlen, "results: '%.32s...' (%zu characters): %s, at most %d", path,
			 strlen(path), strerror(ENAMETOOLONG), PATH_MAX - 1);
		goto out;
	}
	dir = dirname(copy);
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "results: directory '%s' of '%s' does not exist", dir, path);
		goto out;
	}
	fd = datafile_open("results", path, O_RDWR | O_APPEND, err, errlen);
	if (fd >= 0) {
		if (fstat(fd, &st) == 0 && st.st_size > 0 && header_matches(fd, header) != 1) {
			snprintf(err, errlen,
				 "results: '%s' is not a threadrun results file of this version (header differs); give a new file",
				 path);
			goto out;
		}
	} else if (errno != ENOENT) {
		goto out;
	} else if (access(dir, W_OK) < 0) {
		snprintf(err, errlen, "results: cannot create '%s' in '%s': %s", path, dir,
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

int results_append(const char *path, const struct results_row *row, char *err,
		   size_t errlen)
{
	char *header = format_line(NULL), *line = format_line(row), *text = NULL;
	sigset_t all, old;
	struct stat st;
	char last;
	int fd = -1, ret = -1, saved;
	bool blocked = false;

	sigfillset(&all);
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
		snprintf(err, errlen, "results: %s while waiting for the lock on '%s'",
			 errno == EINTR ? "interrupted" : strerror(errno), path);
		goto out;
	}
	/* Held off from here to the end: the row goes in whole or not at all. */
	sigprocmask(SIG_BLOCK, &all, &old);
	blocked = true;
	if (fstat(fd, &st) < 0) {
		snprintf(err, errlen, "results: cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	if (st.st_size > 0 && header_matches(fd, header) != 1) {
		snprintf(err, errlen, "results: '%s' has another header; not appending", path);
		goto out;
	}
	/* A file cut short by someone else's crash still gets our row on a line
	 * of its own, so the reader names the damaged line and keeps ours. */
	last = '\n';
	if (st.st_size > 0 && pread(fd, &last, 1, st.st_size - 1) != 1)
		last = '\n';
	if (asprintf(&text, "%s%s%s", st.st_size == 0 ? header : "",
		     last == '\n' ? "" : "\n", line) < 0) {
		text = NULL;
		goto out;
	}
	if (datafile_write_all(fd, text, strlen(text)) < 0 || fsync(fd) < 0) {
		saved = errno;
		/* Cut back a part-written row. */
		if (ftruncate(fd, st.st_size) < 0)
			snprintf(err, errlen, "results: cannot append to '%s': %s, and cutting back failed: %s",
				 path, strerror(saved), strerror(errno));
		else
			snprintf(err, errlen, "results: cannot append to '%s': %s (earlier rows kept)",
				 path, strerror(saved));
		goto out;
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	if (blocked)
		sigprocmask(SIG_SETMASK, &old, NULL);
	free(header);
	free(line);
	free(text);
	return ret;
}

/* Split one CSV line into fields (quotes honoured).  Returns the count, or
 * -1 for an unterminated quote. */
static int split_csv(char *line, char **fields, int max)
{
	char *r = line, *w;
	int n = 0;

	for (;;) {
		if (n == max)
			return -1;
		fields[n++] = w = r;
		if (*r == '"') {
			r++;
			for (;;) {
				if (!*r)
					return -1;
				if (*r == '"' && r[1] == '"') {
					*w++ = '"';
					r += 2;
				} else if (*r == '"') {
					r++;
					break;
				} else {
					*w++ = *r++;
				}
			}
			if (*r && *r != ',')
				return -1;
		} else {
			while (*r && *r != ',')
				*w++ = *r++;
		}
		if (!*r) {
			*w = '\0';
			return n;
		}
		*w = '\0';
		r++;
	}
}

static char *slurp(const char *path, size_t *len, char *err, size_t errlen)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	char *buf = NULL, *grown;
	size_t cap = 0, n = 0, got;

	if (!f) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	do {
		if (n + 65536 > cap) {
			cap = cap ? cap * 2 : 65536;
			grown = realloc(buf, cap + 1);
			if (!grown) {
				snprintf(err, errlen, "'%s': out of memory", path);
				free(buf);
				buf = NULL;
				goto out;
			}
			buf = grown;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	if (ferror(f)) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		free(buf);
		buf = NULL;
		goto out;
	}
	buf[n] = '\0';
	*len = n;
out:
	if (f != stdin)
		fclose(f);
	return buf;
}

#define MAX_FIELDS 256

int results_read(const char *path, results_cb cb, void *arg, FILE *errf,
		 struct results_info *info, char *err, size_t errlen)
{
	char *fields[MAX_FIELDS], *buf, *line, *next;
	int map[MAX_FIELDS], nhead = 0, n, i, ret = -1;
	bool have[RC_COUNT] = { false };
	struct results_row row;
	unsigned lineno = 0;
	size_t len = 0, used;

	memset(info, 0, sizeof(*info));
	buf = slurp(path, &len, err, errlen);
	if (!buf)
		return -1;
	if (len == 0) {
		snprintf(err, errlen, "'%s' is empty, expected a results file with a header line", path);
		goto out;
	}
	if (memchr(buf, '\0', len)) {
		snprintf(err, errlen, "'%s' is binary, expected a CSV results file", path);
		goto out;
	}
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		line[strcspn(line, "\r")] = '\0';
		if (!*line)
			continue;
		n = split_csv(line, fields, MAX_FIELDS);
		if (nhead == 0) {
			for (i = 0; i < n; i++) {
				map[i] = col_find_or_alias(fields[i]);
				if (map[i] >= 0)
					have[map[i]] = true;
			}
			if (n < 0 || !have[RC_WORKLOAD] || !have[RC_RATE] || !have[RC_THREADS]) {
				snprintf(err, errlen,
					 "'%s' line %u: not a results header (needs at least workload, threads, rate columns)",
					 path, lineno);
				goto out;
			}
			nhead = n;
			continue;
		}
		if (n != nhead) {
			if (n < 0)
				fprintf(errf, "%s:%u: malformed row (unterminated quote), skipped\n",
					path, lineno);
			else
				fprintf(errf, "%s:%u: malformed row (%d fields, header has %d), skipped\n",
					path, lineno, n, nhead);
			info->bad_lines++;
			continue;
		}
		results_row_init(&row);
		for (i = 0; i < n; i++)
			if (map[i] >= 0 && *fields[i]) {
				free(row.val[map[i]]);
				row.val[map[i]] = strdup(fields[i]);
			}
		info->rows++;
		i = cb ? cb(&row, lineno, arg) : 0;
		results_row_clear(&row);
		if (i)
			break;
	}
	if (nhead == 0) {
		snprintf(err, errlen, "'%s' has no header line", path);
		goto out;
	}
	memcpy(info->has, have, sizeof(have));
	for (i = 0, used = 0; i < RC_COUNT; i++)
		if (!have[i] && used < sizeof(info->missing))
			used += (size_t)snprintf(info->missing + used, sizeof(info->missing) - used,
						 "%s%s", used ? " " : "", col_names[i]);
	ret = 0;
out:
	free(buf);
	return ret;
}
