/* Running one plan: the environment, the launch, the run row. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "escape.h"
#include "counts.h"
#include "datafile.h"
#include "execute.h"
#include "monitor.h"
#include "opt.h"
#include "pthreads.h"
#include "results.h"
#include "runenv.h"
#include "worker.h"

int execute_plan_env(pl_topology_t topo, const struct pl_plan *plan, const char *policy,
		     const char *results, const char *cpuset, execute_env_fn put, void *arg)
{
	size_t len = (size_t)plan->nworkers * 16 + 16;
	char *list = malloc(len), *places = malloc(len), num[32], cores[32], pus[32], desc[256];
	int ret = -1;

	if (!list || !places)
		goto out;
	snprintf(num, sizeof(num), "%u", plan->nworkers);
	if (plan->bound && (pl_plan_format_places(plan, places, len) < 0 ||
			    pl_plan_format(plan, ",", list, len) < 0))
		goto out;
	pl_topology_describe(topo, desc, sizeof(desc));
	snprintf(cores, sizeof(cores), "%u", pl_topology_get_nbcores(topo));
	snprintf(pus, sizeof(pus), "%u", pl_topology_get_nbusable(topo));
	if (put("OMP_NUM_THREADS", num, arg) < 0 ||
	    put("OMP_PLACES", plan->bound ? places : NULL, arg) < 0 ||
	    put("OMP_PROC_BIND", plan->bound ? "close" : "false", arg) < 0 ||
	    put(ENV_THREADS, num, arg) < 0 ||
	    put(ENV_PLAN, plan->bound ? list : "none", arg) < 0 ||
	    put(ENV_POLICY, policy, arg) < 0 ||
	    put(ENV_RESULTS, results, arg) < 0 ||
	    put(ENV_TOPOLOGY, desc, arg) < 0 ||
	    put(ENV_CORES, cores, arg) < 0 ||
	    put(ENV_PUS, pus, arg) < 0 ||
	    put(ENV_CPUSET, cpuset, arg) < 0)
		goto out;
	ret = 0;
out:
	free(list);
	free(places);
	return ret;
}

static int put_setenv(const char *name, const char *value, void *arg)
{
	(void)arg;
	return value ? setenv(name, value, 1) : unsetenv(name);
}

/* Export the launcher -> program contract (docs/environment.md). */
static int export_env(const struct execute *ex, const struct pl_plan *plan, const char *policy)
{
	return execute_plan_env(ex->topo, plan, policy, ex->unrecorded ? ex->unrecorded : ex->results,
				ex->cpuset, put_setenv, NULL);
}

/* The OpenMP variables the plan sets (or unsets): a user's own are named. */
static const char *const omp_vars[] = { "OMP_NUM_THREADS", "OMP_PLACES", "OMP_PROC_BIND" };
#define NOMP (sizeof(omp_vars) / sizeof(omp_vars[0]))

/* Keep the user's OMP_* values before any run replaces them.  -1: no memory. */
static int omp_save(struct execute *ex)
{
	ex->omp_user = calloc(NOMP, sizeof(*ex->omp_user));
	if (!ex->omp_user)
		return -1;
	for (size_t i = 0; i < NOMP; i++) {
		const char *v = getenv(omp_vars[i]);

		if (v && !(ex->omp_user[i] = strdup(v)))
			return -1;
	}
	return 0;
}

/* After the first export: one line for each user value the plan changed
 * (a user who set OMP_PLACES expects it to hold), then forget them all. */
static void omp_note(const struct execute *ex)
{
	for (size_t i = 0; ex->omp_user && i < NOMP; i++) {
		const char *now = getenv(omp_vars[i]);

		if (ex->omp_user[i] && ex->omp_note && (!now || strcmp(now, ex->omp_user[i]) != 0))
			fprintf(stderr, "threadrun: note: replacing %s=%s (the plan %s it)\n",
				omp_vars[i], ESC(ex->omp_user[i]), now ? "sets" : "unsets");
		free(ex->omp_user[i]);
		ex->omp_user[i] = NULL;
	}
}

#define DEFAULT_RESULTS_DIR "results"

/* Default results file: THREADRUN_RESULTS, else results/runs.csv under the
 * current directory, wherever threadrun is installed; that results/ is made
 * when missing, with one note (not with -q).  The name, or NULL with a
 * message in ERR. */
const char *execute_results_name(void)
{
	const char *env = getenv(ENV_RESULTS);

	return env && *env ? env : DEFAULT_RESULTS_DIR "/runs.csv";
}

static const char *default_results(const struct execute *ex, char *err, size_t errlen)
{
	const char *env = getenv(ENV_RESULTS);

	if (env && *env)
		return env;
	if (mkdir(DEFAULT_RESULTS_DIR, 0777) == 0) {
		if (ex->omp_note)
			fprintf(stderr, "threadrun: note: made directory '%s' for the results (-o FILE or %s names another file)\n",
				DEFAULT_RESULTS_DIR, ENV_RESULTS);
	} else if (errno != EEXIST) {
		snprintf(err, errlen, "results: cannot make directory '%s' for the default file: %s; name another with -o FILE or %s",
			 DEFAULT_RESULTS_DIR, strerror(errno), ENV_RESULTS);
		return NULL;
	}
	return execute_results_name();
}

/* The program's name in its rows: the resolved path's last part. */
static const char *program_name(const struct execute *ex)
{
	const char *base = strrchr(ex->path, '/');

	return base ? base + 1 : ex->path;
}

/* A row threadrun writes itself, completed and appended through the one
 * row builder every workload uses: the program's name, the plan, the run
 * (RUN, and *SEQ, counted on), the run's times and STATUS. */
static int append_own_row(const struct execute *ex, const char *run, unsigned *seq,
			  const struct pl_plan *plan, const char *policy, unsigned repeat,
			  const struct launch_result *r, int status, struct results_row *row,
			  char *err, size_t errlen)
{
	int ret;
	struct run_env env = {
		.nthreads = plan->nworkers, .plan = plan->bound ? plan->pu : NULL,
		.nplan = plan->bound ? plan->nworkers : 0, .policy = (char *)policy,
		.repeat = repeat, .rows_fd = -1, .run = (char *)run, .config = ex->config,
		.id = ex->id, .cpuset = ex->cpuset,
	};
	/* Its window: from the launch to the exit, on the wall clock. */
	struct worker_row wr = {
		.workload = program_name(ex), .env = &env, .nworkers = plan->nworkers,
		.wall_s = r->wall_s, .user_s = r->user_s, .sys_s = r->sys_s, .load = &r->load,
		.status = status, .seq = seq, .t_start_us = r->t_start_us,
		.t_end_us = r->t_start_us + llround(r->wall_s * 1e6),
	};

	results_row_set(row, RC_BACKEND, "threadrun");
	if (ex->seed)
		results_row_set(row, RC_SEED, "%s", ex->seed);
	if (ex->policies)
		results_row_set(row, RC_POLICIES, "%s", ex->policies);
	ret = worker_row_append(ex->results, row, &wr, err, errlen);
	(*seq)++;
	return ret;
}

/* The program's measurements of one run, for the derived figures: the
 * last one's work (a single one is used). */
struct run_rows {
	const char *run;
	unsigned n;
	struct counts_in work;
};

static int run_rows_cb(const struct results_row *row, unsigned line, void *arg)
{
	struct run_rows *a = arg;
	const char *unit = results_row_get(row, RC_UNIT);
	double ops = results_row_num(row, RC_OPS), bytes = results_row_num(row, RC_BYTES);
	double wall = results_row_num(row, RC_WALL_S), span;

	(void)line;
	if (strcmp(results_row_get(row, RC_RUN), a->run) ||
	    !strcmp(results_row_get(row, RC_BACKEND), "threadrun"))
		return 0;
	a->n++;
	/* Its ops and bytes must be those of its whole window: not so for a
	 * median or best of repetitions (linpack -r, stream), whose window
	 * spans them all while the row counts one. */
	span = (results_row_num(row, RC_T_END) - results_row_num(row, RC_T_START)) * 1e-6;
	if (!(wall > 0 && fabs(span - wall) <= 0.01 * wall + 0.002))
		unit = "";
	counts_in_work(&a->work, unit, bytes, ops);
	return 0;
}

/*
 * --counters in the run row: every thread's counts summed (software events
 * from the inherited totals), the least share of time a counter ran, and
 * the derived figures.  Those per byte, operation or flop come from the
 * program's row when the run made one measurement (the counts span the
 * whole run, setup included: the note says so); n/a otherwise, and n/a
 * when cycles were not counted.  Appends to the note in NOTE.
 */
static void counter_columns(const struct execute *ex, const char *run, const struct counters *c,
			    struct results_row *row, char *note, size_t notelen)
{
	const struct counters_spec *s = counters_spec_of(c);
	struct run_rows rr = { .run = run };
	struct results_info info;
	struct counts_sum sum;
	struct counts_in in;
	char rerr[256], lost[96] = "";
	unsigned failed;
	FILE *sink;
	int e;

	counters_sum(c, &sum);
	counts_row_counts(&sum, row, &in);
	/* Damage in the file was reported where it was written or read
	 * before: here it only costs the figures of that row. */
	sink = fopen("/dev/null", "we");
	if (!sink || results_read(ex->results, run_rows_cb, &rr, sink, &info, rerr, sizeof(rerr)) < 0)
		rr.n = 0;
	if (sink)
		fclose(sink);
	if (rr.n != 1)
		counts_in_work(&rr.work, "", -1, -1);
	in.bytes = rr.work.bytes;
	in.ops = rr.work.ops;
	in.flops = rr.work.flops;
	counts_row_derived(&in, row);
	failed = counters_failed(c, &e);
	if (failed)
		snprintf(lost, sizeof(lost), "; %u thread%s not counted on its own (%s)", failed,
			 failed == 1 ? "" : "s", strerror(e));
	snprintf(note, notelen, "; counters: %s%s%s%s%s",
		 in.cycles < 0 ? "no cycles counted, derived figures n/a"
		 : in.bytes > 0 || in.ops > 0 || in.flops > 0
			 ? "over the whole run, setup included"
			 : "derived figures per byte, op or flop n/a (the run made several measurements, or its one counts a repetition of its window)",
		 s->note[0] ? "; " : "", s->note,
		 sum.share < 1 ? "; multiplexed, counts scaled by time enabled / running" : "", lost);
}

void execute_run_identity(const struct execute *ex, struct results_row *row)
{
	results_row_set(row, RC_WORKLOAD, "%s", program_name(ex));
	results_row_set(row, RC_CONFIG, "%s", ex->config);
	results_row_set(row, RC_ALGORITHM, "%s", RESULTS_RUN_ALGORITHM);
	results_row_set(row, RC_BACKEND, "threadrun");
	results_row_set(row, RC_OPS, "1");
	results_row_set(row, RC_UNIT, "runs/s");
}

/* Why a workload of ours that wrote no row failed (its run row's note). */
#define ROWLESS "exited 0 without writing a row: not a measurement (an action such as --list, or a module or library that ended it from inside a call)"

/* The row of the whole run: what threadrun measured of it. */
static int append_run_row(const struct execute *ex, const char *run, unsigned *seq,
			  const struct pl_plan *plan, const char *policy, unsigned repeat,
			  const struct launch_result *r, const struct monitor_summary *ms,
			  const struct counters *ctr, const char *failure, char *err, size_t errlen)
{
	struct results_row row;
	char cnote[640] = "";
	int ret;

	results_row_init(&row);
	if (ctr)
		counter_columns(ex, run, ctr, &row, cnote, sizeof(cnote));
	execute_run_identity(ex, &row);
	if (ms) {
		if (plan->bound)
			results_row_set(&row, RC_PLACEMENT_OK, "%s", ms->off_plan ? "no" : "yes");
		results_row_set(&row, RC_MIGRATIONS, "%lu", ms->migrations);
		results_row_set(&row, RC_OFF_PLAN, "%lu", ms->off_plan);
		results_row_set(&row, RC_SYS_SHARE, "%.2f", ms->sys_share);
	}
	results_row_set(&row, RC_NOTE, "%s%sthe whole run, measured by threadrun%s%s%s%s",
			failure ? failure : "", failure ? "; " : "",
			ex->preloaded ? "; each thread placed by --pthreads" : "",
			ms && ms->warnings[0] ? "; monitor: " : "", ms ? ms->warnings : "", cnote);
	if (ex->stop && !r->status)
		results_row_set(&row, RC_STOP, "%s", ex->stop(ex->stop_arg, run, r->wall_s));
	ret = append_own_row(ex, run, seq, plan, policy, repeat, r, r->status, &row, err, errlen);
	results_row_clear(&row);
	return ret;
}

/*
 * One row per metric: its figure as the rate, or, when it has none or the
 * program failed, an empty rate (not a measurement) and the reason in the
 * note.  0 with *FAILED the metrics without a figure (the first one's
 * reason in *WHY, a new string), or -1 when a row could not be written.
 */
static int append_metric_rows(const struct execute *ex, const char *run, unsigned *seq,
			      const struct pl_plan *plan, const char *policy, unsigned repeat,
			      const struct launch_result *r, unsigned *failed, char **why, char *err,
			      size_t errlen)
{
	const struct metric_set *s = ex->metrics;
	struct results_row row;
	const char *value;
	char *reason;
	unsigned i;
	int ret = 0, status;

	*failed = 0;
	for (i = 0; i < s->n && !ret; i++) {
		const struct metric *m = &s->m[i];

		results_row_init(&row);
		results_row_set(&row, RC_ALGORITHM, "%s", m->name);
		results_row_set(&row, RC_UNIT, "%s", m->unit);
		status = r->status;
		if (metric_value(m, &value, &reason) < 0) {
			if (!status)
				status = 1;
			results_row_set(&row, RC_RATE, "%s", "");
			results_row_set(&row, RC_NOTE, "%s", reason ? reason : "metric: out of memory");
			if (!(*failed)++)
				*why = reason;
			else
				free(reason);
		} else if (status) {
			results_row_set(&row, RC_RATE, "%s", "");
			results_row_set(&row, RC_NOTE, "metric '%s': the program failed (status %d), its figure %s is not a measurement",
					m->name, status, value);
		} else {
			results_row_set(&row, RC_RATE, "%s", value);
			results_row_set(&row, RC_NOTE, "the program's own figure: group 1 of the last line matching '%s', read by threadrun",
					m->regex);
		}
		ret = append_own_row(ex, run, seq, plan, policy, repeat, r, status, &row, err,
				     errlen);
		results_row_clear(&row);
	}
	return ret;
}

/*
 * A file the program counts its rows in (THREADRUN_ROWS_FD): an anonymous
 * memfd, inheritable (the program writes to it), so nothing of it outlives
 * the run and no file system is touched (a temporary file's create and
 * unlink on ext4 were about 30 us of a 2.2 ms launch).  Sealed against exec where the
 * kernel asks for it (vm.memfd_noexec); where no memfd can be made, a file
 * made and unlinked at once in TMPDIR.  -1 when neither can be made; then
 * threadrun writes its run row as it would for a foreign program.
 */
#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif
static int rows_counter(void)
{
	const char *dir = getenv("TMPDIR");
	char *path = NULL;
	int fd = memfd_create("threadrun-rows", MFD_NOEXEC_SEAL);

	if (fd < 0 && errno == EINVAL)   /* a kernel before 6.3 */
		fd = memfd_create("threadrun-rows", 0);
	if (fd >= 0)
		return fd;
	if (asprintf(&path, "%s/threadrun-rows.XXXXXX", dir && *dir ? dir : "/tmp") < 0)
		return -1;
	fd = mkstemp(path);
	if (fd >= 0)
		unlink(path);
	free(path);
	return fd;
}

static off_t fd_size(int fd)
{
	struct stat st;

	return fd >= 0 && fstat(fd, &st) == 0 ? st.st_size : 0;
}

/* Whether NAME is one of the project's workloads (the Makefile's list). */
static bool is_workload(const char *name)
{
	const char *w = THREADRUN_WORKLOADS;
	size_t n = strlen(name);

	while (*w) {
		size_t len = strcspn(w, " ");

		if (len == n && strncmp(w, name, n) == 0)
			return true;
		w += len + (w[len] == ' ');
	}
	return false;
}

/* Whether PATH is one of the project's workloads: named so and beside
 * threadrun (an installed bin/ may hold anyone's programs: never run
 * those with an option they do not know). */
static bool own_program(const char *path)
{
	char self[PATH_MAX], *real = realpath(path, NULL), *dir, *same = NULL;
	bool own = false;

	if (real && launch_self_dir(self, sizeof(self)) == 0 && (dir = strrchr(real, '/')) &&
	    is_workload(dir + 1)) {
		*dir = '\0';
		same = realpath(self, NULL);
		own = same && strcmp(same, real) == 0;
	}
	free(real);
	free(same);
	return own;
}

/* Ask a program of the project's own for its config: PATH --print-config
 * ARGS, its first line of output; in *RESULTS (when not NULL) the file its
 * own -o names, what follows up to a NUL (opt_print_config()), or NULL.
 * NULL when it gives none (bad arguments: the run itself says what is
 * wrong). */
/* PATH --print-config ARGV[1...], its stdout on W, its stderr on
 * /dev/null: its pid, or -1. */
static pid_t spawn_asked(const char *path, char *const argv[], int w)
{
	posix_spawn_file_actions_t fa;
	char **args;
	size_t n = 0;
	pid_t pid = -1;

	while (argv[n])
		n++;
	args = calloc(n + 2, sizeof(*args));
	if (!args)
		return -1;
	args[0] = argv[0];
	args[1] = (char *)"--print-config";
	memcpy(args + 2, argv + 1, (n - 1) * sizeof(*args));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, w, 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawn(&pid, path, &fa, NULL, args, environ) != 0)
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	free(args);
	return pid;
}

/* What FD gives to its end, up to 1 MiB (a config is one line; more is
 * not one): a new string of *LEN bytes and a NUL, or NULL. */
static char *read_answer(int fd, size_t *len)
{
	char *out = NULL, *grown;
	size_t cap = 0;
	ssize_t got;

	*len = 0;
	for (;;) {
		if (*len + 4096 + 1 > cap) {
			grown = cap >= (1u << 20) ? NULL : realloc(out, cap = cap ? cap * 2 : 8192);
			if (!grown)
				break;
			out = grown;
		}
		got = read(fd, out + *len, cap - *len - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		*len += (size_t)got;
	}
	if (out)
		out[*len] = '\0';
	return out;
}

/* The config in OUT (LEN bytes, the program's exit STATUS): one line
 * without a NUL, then nothing or a results file ended by its NUL, a new
 * string in *RESULTS.  OUT cut to the config, or NULL (OUT freed). */
static char *take_answer(char *out, size_t len, int status, char **results)
{
	char *nl = out ? memchr(out, '\n', len) : NULL, *file = nl ? nl + 1 : NULL;
	size_t rest = nl ? len - (size_t)(file - out) : 0;

	if (!nl || nl == out || memchr(out, '\0', (size_t)(nl - out)) ||
	    (rest && (rest < 2 || memchr(file, '\0', rest) != file + rest - 1)) ||
	    !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		free(out);
		return NULL;
	}
	*nl = '\0';
	if (results && rest && !(*results = strdup(file))) {
		free(out);
		return NULL;
	}
	return out;
}

static char *ask_config(const char *path, char *const argv[], char **results)
{
	int fds[2], status = -1;
	char *out = NULL;
	size_t len = 0;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return NULL;
	pid = spawn_asked(path, argv, fds[1]);
	close(fds[1]);
	if (pid >= 0) {
		out = read_answer(fds[0], &len);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	close(fds[0]);
	return take_answer(out, len, status, results);
}

int execute_ask_own(char *const argv[], char **config, char **results)
{
	char path[PATH_MAX], err[PATH_MAX + 128];

	*config = *results = NULL;
	if (!argv[0] || launch_resolve(argv[0], path, sizeof(path), err, sizeof(err)) != 0 ||
	    !own_program(path))
		return 0;
	*config = ask_config(path, argv, results);
	return *config ? 0 : -1;
}

/* Any other program's config: its base name and arguments, quoted. */
static char *plain_config(char *const argv[])
{
	const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	opt_quote(f, base);
	for (i = 1; argv[i]; i++) {
		fputc(' ', f);
		opt_quote(f, argv[i]);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* RESULTS (NULL: the default file), checked, as the run's file: 0, or 2
 * with the message in ERR. */
static int set_results(struct execute *ex, const char *results, char *err, size_t errlen)
{
	if (!results && !(results = default_results(ex, err, errlen)))
		return 2;
	if (strlen(results) >= sizeof(ex->results)) {
		snprintf(err, errlen, "results: '%.32s...' (%zu characters): %s, at most %zu", results,
			 strlen(results), strerror(ENAMETOOLONG), sizeof(ex->results) - 1);
		return 2;
	}
	if (results != ex->results)
		snprintf(ex->results, sizeof(ex->results), "%s", results);
	return results_check(ex->results, err, errlen) < 0 ? 2 : 0;
}

/* How the program's threads are placed: by itself (ours), by the
 * preloaded library (--pthreads), or by its CPU set (a note says so).
 * 0, or the exit status with the message in ERR. */
static int set_thread_placement(struct execute *ex, const char *name, char *err, size_t errlen)
{
	int st;

	/* After ask_config: LD_PRELOAD is for the program's run alone. */
	if (ex->pthreads && ex->own && ex->omp_note)
		fprintf(stderr, "threadrun: note: %s binds each of its workers itself: --pthreads is not needed, no library is preloaded\n",
			ESC(name));
	if (ex->pthreads && !ex->own) {
		st = pthreads_setup(ex->path, name, ex->skip, err, errlen);
		if (st)
			return st;
		ex->preloaded = true;
	}
	if (!ex->pthreads && !ex->own && ex->omp_note)
		ex->process_note = pthreads_note(ex->path, name);
	return 0;
}

/* --monitor's time series, beside the results: 0, or 2 with the message
 * in ERR. */
static int open_series(struct execute *ex, char *err, size_t errlen)
{
	if (asprintf(&ex->series_path, "%s%s.monitor.csv", ex->results, ex->tag ? ex->tag : "") < 0) {
		ex->series_path = NULL;
		snprintf(err, errlen, "out of memory");
		return 2;
	}
	ex->series = datafile_open("monitor", ex->series_path, O_WRONLY | O_CREAT | O_APPEND, err,
				   errlen);
	return ex->series < 0 ? 2 : 0;
}

int execute_prepare(struct execute *ex, char *const argv[], const char *results, char *err,
		    size_t errlen)
{
	int st;

	ex->series = -1;
	if (omp_save(ex) < 0) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	st = launch_resolve(argv[0], ex->path, sizeof(ex->path), err, errlen);
	if (st)
		return st;
	ex->own = own_program(ex->path);
	/* A program of ours that gave no answer (bad arguments) gets the
	 * plain config; its run says what is wrong. */
	ex->config = ex->asked_config ? strdup(ex->asked_config) : plain_config(argv);
	if (!ex->config) {
		snprintf(err, errlen, "out of memory");
		return 2;
	}
	st = set_results(ex, results, err, errlen);
	if (!st)
		st = set_thread_placement(ex, argv[0], err, errlen);
	if (!st && ex->monitor > 0)
		st = open_series(ex, err, errlen);
	if (st)
		return st;
	/* The PUs threadrun was given, before it binds any program: what the
	 * rows of every run say in cpuset (each run exports it). */
	if (!ex->identified && run_env_identify(&ex->id, &ex->cpuset, false) < 0) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	return 0;
}

void execute_finish(struct execute *ex)
{
	run_env_identity_free(&ex->id, &ex->cpuset);
	free(ex->config);
	ex->config = NULL;
	free(ex->process_note);
	ex->process_note = NULL;
	for (size_t i = 0; ex->omp_user && i < NOMP; i++)
		free(ex->omp_user[i]);
	free(ex->omp_user);
	ex->omp_user = NULL;
	free(ex->series_path);
	ex->series_path = NULL;
	if (ex->series >= 0)
		close(ex->series);
	ex->series = -1;
}

/* The line that opens a run's samples in the time series. */
static int series_mark(int fd, unsigned threads, const char *policy, unsigned repeat)
{
	char *text;
	int len, ret;

	len = asprintf(&text, "# run %u thread%s, %s, repeat %u\n", threads,
		       threads == 1 ? "" : "s", policy, repeat);
	if (len < 0)
		return -1;
	ret = datafile_append(fd, monitor_series_header, text, (size_t)len);
	free(text);
	return ret;
}

struct started_arg {
	const struct execute *ex;
	const struct pl_plan *plan;
	struct monitor *m;
	struct counters *ctr;
	struct metric_tap *tap;
	char err[256];
};

/* In the parent, the program just started: the tap's write ends are the
 * program's now; the monitor starts watching it.  With --counters the
 * program is held before its exec: its counters open now, and the
 * monitor's walk gives each thread its own (counters.h). */
static int on_started(pid_t pid, void *arg, char *err, size_t errlen)
{
	struct started_arg *a = arg;

	if (a->tap)
		metric_tap_started(a->tap);
	if (a->ex->counters) {
		a->ctr = counters_start(a->ex->counters, pid, err, errlen);
		if (!a->ctr)
			return 3;
	}
	if (a->ex->monitor > 0 || a->ctr) {
		a->m = monitor_start(pid, a->ex->monitor, a->plan, a->ex->pthreads, a->ex->series,
				     a->ctr, a->err, sizeof(a->err));
		if (!a->m && a->ctr) {
			snprintf(err, errlen, "counters: %s", a->err);
			counters_free(a->ctr);
			a->ctr = NULL;
			return 3;
		}
	}
	return 0;
}

/* The run's environment: its id, config, repeat, counters and the plan's
 * variables (CFG: the config's descriptor, -1 none).  0, or -1 with errno. */
static int set_run_env(struct execute *ex, const struct pl_plan *plan, const char *policy,
		       unsigned repeat, const char *run, int *cfg)
{
	char num[16], spec[4096];

	/* One run id per launch: the program's rows and threadrun's share it. */
	if (!run || setenv(ENV_RUN, run, 1) < 0 || run_env_export_config(ex->config, cfg) < 0)
		return -1;
	snprintf(num, sizeof(num), "%u", repeat);
	setenv(ENV_REPEAT, num, 1);
	/* --counters: the project's workloads count each measurement too. */
	if (ex->counters && counters_export(ex->counters, spec, sizeof(spec)) == 0)
		setenv(ENV_COUNTERS, spec, 1);
	else
		unsetenv(ENV_COUNTERS);
	return export_env(ex, plan, policy);
}

/* The notes said once, before the first run they concern. */
static void run_notes(struct execute *ex, const struct pl_plan *plan)
{
	omp_note(ex);
	/* Once: where the CPU set is not one PU, it is not per thread. */
	if (ex->process_note && plan->bound && plan->distinct > 1) {
		fprintf(stderr, "threadrun: note: %s\n", ex->process_note);
		free(ex->process_note);
		ex->process_note = NULL;
	}
}

/* The counter of the program's rows, exported: its descriptor, or -1. */
static int export_rows_counter(void)
{
	int rows = rows_counter();
	char num[16];

	if (rows >= 0) {
		snprintf(num, sizeof(num), "%d", rows);
		setenv(ENV_ROWS_FD, num, 1);
	} else {
		unsetenv(ENV_ROWS_FD);
	}
	return rows;
}

/* The monitor and counters stopped and printed: whether *MS holds the
 * monitor's summary. */
static bool end_watch(const struct execute *ex, const struct started_arg *sa,
		      struct monitor_summary *ms)
{
	bool monitored = false;

	if (ex->monitor > 0 && !sa->m)
		fprintf(stderr, "threadrun: %s\n", sa->err);
	if (!sa->m)
		return false;
	monitor_stop(sa->m);
	if (ex->monitor > 0) {
		monitor_print(sa->m, stderr, ex->quiet);
		monitor_summarise(sa->m, ms);
		monitored = true;
	}
	if (sa->ctr && !ex->quiet)
		monitor_print_counters(sa->m, stderr);
	return monitored;
}

/*
 * The rows of a run that ended, after the program's own (counted by ROWS):
 * the metrics' rows, then the run row, which a sweep (and a monitored
 * run) always writes: it marks the run done for --resume and carries what
 * the monitor saw, so it comes last, when every row of the run is in the
 * file.  0, or -1 with the message in ERR (a row missing fails the run).
 */
static int record_run(const struct execute *ex, const char *run, int rows,
		      const struct pl_plan *plan, const char *policy, unsigned repeat,
		      struct launch_result *r, const struct monitor_summary *ms,
		      const struct counters *ctr, char *err, size_t errlen)
{
	/* A workload of ours writes a row for each measurement: exiting 0
	 * with none measured nothing (a module that ended it from inside a
	 * call with _exit, or an action such as --list). */
	bool rowless = ex->own && rows >= 0 && fd_size(rows) == 0 && !r->status;
	/* threadrun's rows of a run come after the program's own. */
	unsigned failed = 0, seq = (unsigned)(fd_size(rows) / 2);
	char *why = NULL;
	int ret = 0;

	if (rowless)
		r->status = 1;
	if (ex->metrics && ex->metrics->n &&
	    append_metric_rows(ex, run, &seq, plan, policy, repeat, r, &failed, &why, err,
			       errlen) < 0)
		ret = -1;
	if (failed && !r->status)
		r->status = 1;
	if (!ret && (ex->always_row || fd_size(rows) == 0) &&
	    append_run_row(ex, run, &seq, plan, policy, repeat, r, ms, ctr,
			   rowless ? ROWLESS : NULL, err, errlen) < 0)
		ret = -1;
	if (!ret && rowless) {
		snprintf(err, errlen, "%s: %s", program_name(ex), ROWLESS);
		ret = -1;
	} else if (!ret && failed) {
		if (failed > 1)
			snprintf(err, errlen, "%s; and %u more metric%s without a figure (the rows' notes say why)",
				 why ? why : "metric: out of memory", failed - 1, failed - 1 == 1 ? "" : "s");
		else
			snprintf(err, errlen, "%s", why ? why : "metric: out of memory");
		ret = -1;
	}
	free(why);
	return ret;
}

int execute_run(struct execute *ex, const struct pl_plan *plan, const char *policy,
		char *const argv[], unsigned repeat, struct launch_result *r, char *err,
		size_t errlen)
{
	struct started_arg sa = { .ex = ex, .plan = plan };
	struct launch_hook hook = { on_started, &sa, ex->counters != NULL };
	struct monitor_summary ms;
	bool monitored;
	int out_fd = ex->output_fd, err_fd = ex->output_fd;
	char *run = run_env_make_run();
	int ret = -1, rows = -1, cfg = -1;

	r->status = 1;
	if (set_run_env(ex, plan, policy, repeat, run, &cfg) < 0) {
		snprintf(err, errlen, "cannot set the environment: %s", strerror(errno));
		goto out;
	}
	run_notes(ex, plan);
	/* --metric: the output passes through a tap that reads the figures. */
	if (ex->metrics && ex->metrics->n) {
		sa.tap = metric_tap_open(ex->metrics, out_fd >= 0 ? out_fd : 1,
					 err_fd >= 0 ? err_fd : 2, &out_fd, &err_fd, err, errlen);
		if (!sa.tap)
			goto out;
	}
	rows = export_rows_counter();
	if (ex->series >= 0 && series_mark(ex->series, plan->nworkers, policy, repeat) < 0)
		fprintf(stderr, "threadrun: monitor: cannot write '%s': %s\n", ESC(ex->series_path),
			strerror(errno));
	ret = launch_run(ex->path, argv, plan, out_fd, err_fd, &hook, r, err, errlen);
	/* A signal ends the run: threadrun does not wait for the matcher. */
	if (launch_interrupted())
		metric_tap_stop(sa.tap);
	metric_tap_close(sa.tap);
	monitored = end_watch(ex, &sa, &ms);
	unsetenv(ENV_ROWS_FD);
	/* An interrupted run is not a measurement: no row for it. */
	if (!ret && !launch_interrupted() && !ex->unrecorded)
		ret = record_run(ex, run, rows, plan, policy, repeat, r, monitored ? &ms : NULL,
				 sa.ctr, err, errlen);
out:
	monitor_free(sa.m);
	counters_free(sa.ctr);
	if (rows >= 0)
		close(rows);
	if (cfg >= 0)
		close(cfg);
	free(run);
	return ret;
}
