/* Reading threadrun's variables inside a workload. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "escape.h"
#include "opt.h"
#include "cputrack.h"
#include "placement.h"
#include "results.h"
#include "runenv.h"

/* The most cores or PUs a machine description may claim. */
#define MAX_MACHINE_PUS (1u << 20)

static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

/* A machine description as threadrun writes it: hwloc's synthetic form
 * ("Package:1 [NUMANode] Core:2 PU:1") or counts ("2 packages, 8 cores,
 * 16 PUs"), nothing else. */
static bool valid_topology(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n <= 4096 &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 :[](),_-") == n;
}

/*
 * The machine columns of every row (topology, cores, pus) come from
 * THREADRUN_TOPOLOGY/_CORES/_PUS, which threadrun sets; the row writer
 * copies them.  Check them here, before any thread starts: a bad or partial
 * set is ignored with one line, and without them this machine is read once
 * (HWLOC_ variables ignored: a run measures this machine) and exported.
 */
static void machine_env(void)
{
	const char *topo = getenv(ENV_TOPOLOGY), *cores = getenv(ENV_CORES);
	const char *pus = getenv(ENV_PUS), *bad = NULL, *val = NULL, *why = NULL;
	pl_topology_t t = NULL;
	char num[32], desc[4096], err[256];
	unsigned v;

	if (!topo && !cores && !pus)
		goto load;
	if (!topo || !valid_topology(topo))
		bad = ENV_TOPOLOGY, val = topo, why = "not a machine description";
	else if (!cores || num_parse_unsigned(ENV_CORES, cores, 1, MAX_MACHINE_PUS, &v, err,
					      sizeof(err)) < 0)
		bad = ENV_CORES, val = cores, why = "not a number 1..1048576";
	else if (!pus || num_parse_unsigned(ENV_PUS, pus, 1, MAX_MACHINE_PUS, &v, err,
					    sizeof(err)) < 0)
		bad = ENV_PUS, val = pus, why = "not a number 1..1048576";
	if (!bad)
		return;
	fprintf(stderr, "%s: warning: ignoring %s%s%.40s%s (%s): rows describe this machine\n",
		program_invocation_short_name, bad, val ? "=" : "", ESC(val ? val : ""),
		val && strlen(val) > 40 ? "..." : "",
		val ? why : "not set");
load:
	unsetenv(ENV_TOPOLOGY);
	unsetenv(ENV_CORES);
	unsetenv(ENV_PUS);
	if (pl_topology_init(&t) < 0 || pl_topology_load(t) < 0)
		goto out;
	if (pl_topology_get_ignored_env(t))
		fprintf(stderr, "%s: warning: ignoring %s: a run measures this machine\n",
			program_invocation_short_name, pl_topology_get_ignored_env(t));
	if (pl_topology_describe(t, desc, sizeof(desc)) < 0)
		goto out;
	setenv(ENV_TOPOLOGY, desc, 1);
	snprintf(num, sizeof(num), "%u", pl_topology_get_nbcores(t));
	setenv(ENV_CORES, num, 1);
	snprintf(num, sizeof(num), "%u", pl_topology_get_nbusable(t));
	setenv(ENV_PUS, num, 1);
out:
	pl_topology_destroy(t);
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* N PU indices (sorted here, duplicates dropped) as "0-3,8": a new string. */
static char *compact_list(unsigned *pu, size_t n)
{
	char *buf = NULL;
	size_t len = 0, i, j;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	qsort(pu, n, sizeof(*pu), cmp_unsigned);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && pu[j] <= pu[j - 1] + 1; j++)
			;
		fprintf(f, "%s%u", i ? "," : "", pu[i]);
		if (pu[j - 1] != pu[i])
			fprintf(f, "-%u", pu[j - 1]);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *run_env_affinity(void)
{
	cpu_set_t *set = NULL;
	unsigned *pu = NULL;
	size_t size, n = 0, ncpus;
	char *list = NULL;
	unsigned i;

	/* The kernel's mask may be wider than cpu_set_t: grow until it fits. */
	for (ncpus = 1024; ncpus <= (1u << 20); ncpus *= 2) {
		set = CPU_ALLOC(ncpus);
		if (!set)
			return NULL;
		size = CPU_ALLOC_SIZE(ncpus);
		if (sched_getaffinity(0, size, set) == 0)
			break;
		CPU_FREE(set);
		set = NULL;
		if (errno != EINVAL)
			return NULL;
	}
	if (!set)
		return NULL;
	n = (size_t)CPU_COUNT_S(size, set);
	pu = calloc(n ? n : 1, sizeof(*pu));
	if (pu && n) {
		for (i = 0, n = 0; i < ncpus; i++)
			if (CPU_ISSET_S(i, size, set))
				pu[n++] = i;
		list = compact_list(pu, n);
	}
	free(pu);
	CPU_FREE(set);
	return list;
}

/* THREADRUN_CPUSET when it is a CPU list, compacted; else NULL, and a
 * warning when it is set to anything else. */
static char *inherited_cpuset(bool *oom)
{
	const char *v = getenv(ENV_CPUSET);
	unsigned *pu = NULL;
	char err[256], *list;
	int n;

	*oom = false;
	if (!v || !*v)
		return NULL;
	n = pl_cpulist_parse(v, &pu, err, sizeof(err));
	if (n <= 0 || !printable(v)) {
		fprintf(stderr, "%s: warning: ignoring %s='%s': %s; rows give this process's own CPUs\n",
			program_invocation_short_name, ENV_CPUSET, ESC(v),
			n < 0 ? err : "not a CPU list such as 0-3,8");
		free(pu);
		return NULL;
	}
	list = compact_list(pu, (size_t)n);
	*oom = !list;
	free(pu);
	return list;
}

static const char *get_env(const char *name)
{
	return getenv(name);
}

int run_env_identify(struct launcher_id *id, char **cpuset, bool inherit)
{
	char warn[512];
	bool oom = false;
	int rc = launcher_detect(get_env, id, warn, sizeof(warn));

	*cpuset = NULL;
	if (rc == -2)
		return -1;
	/* threadrun said it already for the programs it starts. */
	if (rc == -1 && !(getenv(ENV_RUN) && *getenv(ENV_RUN)))
		fprintf(stderr, "%s: warning: ignoring the launcher's environment: %s; a single-machine run\n",
			program_invocation_short_name, warn);
	if (inherit)
		*cpuset = inherited_cpuset(&oom);
	if (!*cpuset && !oom)
		*cpuset = run_env_affinity();
	return oom ? -1 : 0;
}

void run_env_identity_free(struct launcher_id *id, char **cpuset)
{
	launcher_id_clear(id);
	free(*cpuset);
	*cpuset = NULL;
}

/* The largest config read from THREADRUN_CONFIG_FD: ask_config's bound
 * on a program's answer, with room for a foreign program's arguments
 * (the kernel takes at most a quarter of the stack limit for them all). */
#define CONFIG_FILE_MAX (64u << 20)
/* A config threadrun wrote cannot change after it (a memfd, sealed). */
#define CONFIG_SEALS (F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK)

/* Whether FD is a memfd sealed as threadrun seals its config (a plain
 * file has no seals: F_GET_SEALS fails). */
static bool sealed(int fd)
{
	int seals = fcntl(fd, F_GET_SEALS);

	return seals >= 0 && (seals & CONFIG_SEALS) == CONFIG_SEALS;
}

/* The config in the file descriptor FD names: a new string, or NULL with
 * *WHY when it is not one threadrun wrote (one warning names it). */
static char *config_from_fd(const char *text, const char **why)
{
	char err[256], *buf = NULL;
	struct stat st;
	unsigned fd;
	size_t len = 0;
	ssize_t got;

	*why = "not an open file threadrun wrote";
	if (num_parse_unsigned(ENV_CONFIG_FD, text, 3, 1u << 20, &fd, err, sizeof(err)) < 0 ||
	    fstat((int)fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    !sealed((int)fd))
		return NULL;
	*why = "larger than 64 MiB";
	if ((uint64_t)st.st_size > CONFIG_FILE_MAX)
		return NULL;
	*why = "out of memory";
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return NULL;
	/* pread: the offset is shared with every process that inherited it. */
	while (len < (size_t)st.st_size &&
	       ((got = pread((int)fd, buf + len, (size_t)st.st_size - len, (off_t)len)) > 0 ||
		(got < 0 && errno == EINTR)))
		len += got > 0 ? (size_t)got : 0;
	buf[len] = '\0';
	*why = "not one line of text";
	if (!len || len != (size_t)st.st_size || strlen(buf) != len || strchr(buf, '\n')) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* THREADRUN_CONFIG, else THREADRUN_CONFIG_FD's file, into ENV->config
 * (left NULL when neither: the program sets its own).  -1: no memory. */
static int load_config(struct run_env *env)
{
	const char *v = getenv(ENV_CONFIG), *why;

	if (v && *v)
		return (env->config = strdup(v)) ? 0 : -1;
	v = getenv(ENV_CONFIG_FD);
	if (!v || !*v)
		return 0;
	env->config = config_from_fd(v, &why);
	if (!env->config)
		fprintf(stderr, "%s: warning: ignoring %s=%s: %s; rows give this program's own config\n",
			program_invocation_short_name, ENV_CONFIG_FD, ESC(v), why);
	return 0;
}

int run_env_export_config(const char *config, int *fd)
{
	size_t len = strlen(config), done = 0;
	char num[16];
	ssize_t n;

	*fd = -1;
	if (len <= RUN_ENV_CONFIG_MAX)
		return unsetenv(ENV_CONFIG_FD) < 0 ? -1 : setenv(ENV_CONFIG, config, 1);
	/* Inheritable (no MFD_CLOEXEC): the program reads it. */
	*fd = memfd_create("threadrun-config", MFD_ALLOW_SEALING);
	if (*fd < 0)
		return -1;
	while (done < len && ((n = write(*fd, config + done, len - done)) > 0 ||
			      (n < 0 && errno == EINTR)))
		done += n > 0 ? (size_t)n : 0;
	snprintf(num, sizeof(num), "%d", *fd);
	if (done < len || fcntl(*fd, F_ADD_SEALS, CONFIG_SEALS) < 0 || unsetenv(ENV_CONFIG) < 0 ||
	    setenv(ENV_CONFIG_FD, num, 1) < 0) {
		close(*fd);
		*fd = -1;
		return -1;
	}
	return 0;
}

/* THREADRUN_THREADS (else OMP_NUM_THREADS), _REPEAT and _ROWS_FD: 0, or -1
 * (with the message in ERR when a value is bad). */
static int load_numbers(struct run_env *env, char *err, size_t errlen)
{
	const char *threads = getenv(ENV_THREADS), *repeat = getenv(ENV_REPEAT);
	const char *rows_fd = getenv(ENV_ROWS_FD), *omp_env = getenv("OMP_NUM_THREADS");
	char *omp = NULL;
	unsigned fd;
	int ret = -1;

	if (!threads && omp_env) {
		/* OMP_NUM_THREADS may be a nesting list "4,2": the first level counts. */
		omp = strndup(omp_env, strcspn(omp_env, ","));
		if (!omp)
			return -1;
		threads = omp;
	}
	if (threads && num_parse_unsigned(omp ? "OMP_NUM_THREADS" : ENV_THREADS, threads, 1,
					  PL_MAX_WORKERS, &env->nthreads, err, errlen) < 0)
		goto out;
	if (repeat && num_parse_unsigned(ENV_REPEAT, repeat, 0, 1000000, &env->repeat, err,
					 errlen) < 0)
		goto out;
	if (rows_fd && *rows_fd) {
		if (num_parse_unsigned(ENV_ROWS_FD, rows_fd, 0, 1u << 20, &fd, err, errlen) < 0)
			goto out;
		/* Only a descriptor threadrun left open counts rows. */
		if (fcntl((int)fd, F_GETFD) >= 0)
			env->rows_fd = (int)fd;
	}
	ret = 0;
out:
	free(omp);
	return ret;
}

/* THREADRUN_POLICY and _PLAN: 0, or -1 (with the message in ERR when a
 * value is bad). */
static int load_placement(struct run_env *env, char *err, size_t errlen)
{
	const char *policy = getenv(ENV_POLICY), *plan = getenv(ENV_PLAN);
	struct pl_policy pol;
	unsigned *pus = NULL;
	int n;

	/* The policy goes into rows as written: it must be one threadrun names. */
	if (policy && pl_policy_parse(policy, &pol, err, errlen) < 0) {
		n = (int)strlen(err);
		snprintf(err + n, errlen - (size_t)n, " (in %s)", ENV_POLICY);
		return -1;
	}
	if (policy) {
		env->policy = pl_policy_strdup(&pol);
		pl_policy_clear(&pol);
	} else {
		env->policy = strdup("none");
	}
	if (!env->policy)
		return -1;
	if (!plan || !*plan || strcmp(plan, "none") == 0)
		return 0;
	n = pl_cpulist_parse(plan, &pus, err, errlen);
	if (n < 0)
		return -1;
	env->plan = calloc((size_t)n, sizeof(*env->plan));
	for (env->nplan = 0; env->plan && env->nplan < (unsigned)n; env->nplan++)
		env->plan[env->nplan] = (int)pus[env->nplan];
	free(pus);
	return env->plan ? 0 : -1;
}

/* THREADRUN_RUN, else a new run id: 0, or -1 (with the message in ERR when
 * the value is bad). */
static int load_run(struct run_env *env, char *err, size_t errlen)
{
	const char *run = getenv(ENV_RUN);

	/* A run id from threadrun is copied, never interpreted: only its size
	 * and bytes are checked, so a hostile value cannot damage a row. */
	if (run && *run && (strlen(run) > 256 || !printable(run))) {
		snprintf(err, errlen, "%s: '%.40s' is not a run id, allowed 1..256 printable characters",
			 ENV_RUN, ESC(run));
		return -1;
	}
	env->run = run && *run ? strdup(run) : run_env_make_run();
	return env->run ? 0 : -1;
}

int run_env_load(struct run_env *env, unsigned default_threads, char *err,
		 size_t errlen)
{
	memset(env, 0, sizeof(*env));
	env->nthreads = default_threads;
	env->rows_fd = -1;
	if (load_numbers(env, err, errlen) < 0 || load_placement(env, err, errlen) < 0 ||
	    load_run(env, err, errlen) < 0)
		goto fail;
	if (load_config(env) < 0)
		goto nomem;
	env->results = getenv(ENV_RESULTS);
	if (env->results && !*env->results)
		env->results = NULL;
	machine_env();
	if (run_env_identify(&env->id, &env->cpuset, true) < 0)
		goto nomem;
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
fail:
	run_env_free(env);
	return -1;
}

char *run_env_make_run(void)
{
	char host[256] = "unknown", *id;
	struct timespec ts;

	gethostname(host, sizeof(host) - 1);
	clock_gettime(CLOCK_REALTIME, &ts);
	if (asprintf(&id, "%s:%ld:%lld", host, (long)getpid(),
		     (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000) < 0)
		return NULL;
	return id;
}

int run_env_set_config(struct run_env *env, char *own)
{
	if (env->config) {
		free(own);
		return 0;
	}
	env->config = own;
	return own ? 0 : -1;
}

void run_env_free(struct run_env *env)
{
	run_env_identity_free(&env->id, &env->cpuset);
	free(env->run);
	env->run = NULL;
	free(env->config);
	env->config = NULL;
	free(env->policy);
	env->policy = NULL;
	free(env->plan);
	env->plan = NULL;
	env->nplan = 0;
}

int run_env_planned(const struct run_env *env, unsigned worker)
{
	return env->nplan ? env->plan[worker % env->nplan] : -1;
}

int run_env_format_plan(const struct run_env *env, unsigned n, char *buf, size_t len)
{
	size_t used = 0;
	unsigned i;
	int w;

	if (!env->nplan)
		return snprintf(buf, len, "-") < (int)len ? 0 : -1;
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		w = snprintf(buf + used, len - used, "%s%d", i ? "," : "", run_env_planned(env, i));
		if (w < 0 || (size_t)w >= len - used) {
			errno = ENOSPC;
			return -1;
		}
		used += (size_t)w;
	}
	return 0;
}

void run_env_set_placement(const struct run_env *env, unsigned n,
			   const struct cpu_track *const *tracks, struct results_row *row)
{
	size_t len = (size_t)n * 24 + 16;
	char *buf = malloc(len);
	unsigned long migrations = 0;
	bool honoured = true;

	results_row_set(row, RC_THREADS, "%u", n);
	results_row_set(row, RC_POLICY, "%s", env->policy);
	results_row_set(row, RC_REPEAT, "%u", env->repeat);
	if (buf && env->nplan && run_env_format_plan(env, n, buf, len) == 0)
		results_row_set(row, RC_CPUS, "%s", buf);
	if (!tracks)
		goto out;
	if (buf) {
		cpu_track_summarise(tracks, n, buf, len, &honoured, &migrations);
		results_row_set(row, RC_CPUS_SEEN, "%s", buf);
	}
	if (env->nplan)
		results_row_set(row, RC_PLACEMENT_OK, "%s", honoured ? "yes" : "no");
	results_row_set(row, RC_MIGRATIONS, "%lu", migrations);
out:
	free(buf);
}
