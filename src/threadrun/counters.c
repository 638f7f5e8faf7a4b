/* Per-thread performance counts behind threadrun --counters (counters.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef HAVE_LIBPFM
#include <dlfcn.h>
#include <perfmon/pfmlib_perf_event.h>
#endif

#include "counters.h"
#include "counts.h"
#include "results.h"

#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"

/* The events known by name, in the order of the default set and of the
 * results columns. */
static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
	int col;
	const char *what;
} known[] = {
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, RC_TASK_CLOCK_S,
	  "CPU time the thread ran (the row and table in seconds)" },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, RC_CTX_SWITCHES,
	  "times the thread was switched out (voluntary and not)" },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, RC_CPU_MIGRATIONS,
	  "times the thread moved to another CPU" },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, RC_PAGE_FAULTS,
	  "page faults, minor and major" },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, RC_CYCLES,
	  "CPU cycles (hardware)" },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, RC_INSTRUCTIONS,
	  "instructions retired (hardware)" },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, RC_CACHE_REFS,
	  "last-level cache accesses (hardware)" },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, RC_CACHE_MISSES,
	  "last-level cache misses (hardware)" },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, RC_BRANCH_MISSES,
	  "mispredicted branches (hardware)" },
};
#define NKNOWN (sizeof(known) / sizeof(known[0]))

struct counted {
	pid_t pid, tid;
	int fd[COUNTERS_MAX];
	double value[COUNTERS_MAX];     /* scaled; -1 never ran or not opened */
	double share;
};

struct counters {
	struct counters_spec spec;
	struct counted total;           /* inherited: the software events only */
	struct counted **threads;
	size_t n, cap;
	unsigned failed;        /* threads that could not be counted (but gone ones) */
	int failed_errno;
	bool finished;
};

static long perf_open(struct perf_event_attr *a, pid_t pid)
{
	return syscall(SYS_perf_event_open, a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static void attr_of(const struct counter_ev *e, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = e->type;
	a->config = e->config;
	a->config1 = e->config1;
	a->config2 = e->config2;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
}

static int add_known(struct counters_spec *s, size_t k)
{
	struct counter_ev *e = &s->ev[s->n++];

	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", known[k].name);
	e->type = known[k].type;
	e->config = known[k].config;
	e->col = known[k].col;
	e->hw = known[k].type != PERF_TYPE_SOFTWARE;
	return 0;
}

#ifdef HAVE_LIBPFM
/* libpfm4 is opened when a name needs it, not linked: its tables take
 * some 41,000 relocations and 300 page faults, which every launch paid
 * (0.6 to 1 ms of `threadrun -q 1 true`'s 6) though only a libpfm4 event
 * name or --counters=list uses them. */
#define LIBPFM "libpfm.so.4"
static struct {
	__typeof__(pfm_initialize) *initialize;
	__typeof__(pfm_get_os_event_encoding) *get_os_event_encoding;
	__typeof__(pfm_get_pmu_info) *get_pmu_info;
	__typeof__(pfm_get_event_next) *get_event_next;
	__typeof__(pfm_get_event_info) *get_event_info;
	__typeof__(pfm_get_event_attr_info) *get_event_attr_info;
	__typeof__(pfm_find_event) *find_event;
} pfm;
static const char *pfm_missing;  /* why it is not there, once tried */

#define PFM_LOAD(lib, f) ((*(void **)&pfm.f = dlsym(lib, "pfm_" #f)) != NULL)

static bool pfm_ready(void)
{
	static int state;       /* 0 not tried, 1 ready, -1 failed */
	void *lib;

	if (state)
		return state > 0;
	state = -1;
	lib = dlopen(LIBPFM, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		pfm_missing = LIBPFM " cannot be loaded (Debian's libpfm4)";
		return false;
	}
	if (!PFM_LOAD(lib, initialize) || !PFM_LOAD(lib, get_os_event_encoding) ||
	    !PFM_LOAD(lib, get_pmu_info) || !PFM_LOAD(lib, get_event_next) ||
	    !PFM_LOAD(lib, get_event_info) || !PFM_LOAD(lib, get_event_attr_info) ||
	    !PFM_LOAD(lib, find_event)) {
		pfm_missing = LIBPFM " lacks the functions it should have";
		dlclose(lib);
		return false;
	}
	if (pfm.initialize() != PFM_SUCCESS) {
		pfm_missing = "libpfm4 did not initialise";
		return false;
	}
	state = 1;
	return true;
}

/* NAME as libpfm4 encodes it for perf_event_open into A: 0, or -1. */
static int pfm_encode(const char *name, struct perf_event_attr *a)
{
	pfm_perf_encode_arg_t arg;

	memset(a, 0, sizeof(*a));
	memset(&arg, 0, sizeof(arg));
	arg.attr = a;
	arg.size = sizeof(arg);
	return pfm.get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT, &arg) == PFM_SUCCESS ? 0 : -1;
}

/* NAME as libpfm4 encodes it for perf_event_open: 0, or -1. */
static int add_pfm(struct counters_spec *s, const char *name)
{
	struct perf_event_attr a;
	struct counter_ev *e;

	if (!pfm_ready() || pfm_encode(name, &a) < 0)
		return -1;
	e = &s->ev[s->n++];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->type = a.type;
	e->config = a.config;
	e->config1 = a.config1;
	e->config2 = a.config2;
	e->col = -1;
	e->hw = a.type != PERF_TYPE_SOFTWARE;
	return 0;
}

/* libpfm4 event IDX as PMU::EVENT into FULL, its facts in E: 0, or -1. */
static int pfm_full_name(int idx, pfm_event_info_t *e, char *full, size_t len)
{
	pfm_pmu_info_t p;

	memset(e, 0, sizeof(*e));
	e->size = sizeof(*e);
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	if (pfm.get_event_info(idx, PFM_OS_PERF_EVENT, e) != PFM_SUCCESS ||
	    pfm.get_pmu_info(e->pmu, &p) != PFM_SUCCESS)
		return -1;
	snprintf(full, len, "%s::%s", p.name, e->name);
	return 0;
}

/* Each unit mask M of event IDX (PMU::EVENT in FULL) that makes
 * FULL:M a name libpfm4 encodes, given to EACH; how many. */
static unsigned pfm_each_mask(int idx, const pfm_event_info_t *e, const char *full,
			      void (*each)(const char *name, const char *mask, void *arg), void *arg)
{
	pfm_event_attr_info_t at;
	struct perf_event_attr a;
	char name[sizeof(((struct counter_ev *)0)->name)];
	unsigned n = 0;
	int i;

	for (i = 0; i < e->nattrs; i++) {
		memset(&at, 0, sizeof(at));
		at.size = sizeof(at);
		if (pfm.get_event_attr_info(idx, i, PFM_OS_PERF_EVENT, &at) != PFM_SUCCESS ||
		    at.type != PFM_ATTR_UMASK)
			continue;
		if ((size_t)snprintf(name, sizeof(name), "%s:%s", full, at.name) >= sizeof(name) ||
		    pfm_encode(name, &a) < 0)
			continue;
		each(name, at.name, arg);
		n++;
	}
	return n;
}

struct mask_text { char *buf; size_t len, used; };

static void mask_append(const char *name, const char *mask, void *arg)
{
	struct mask_text *t = arg;
	int w;

	(void)name;
	if (t->used >= t->len)
		return;
	w = snprintf(t->buf + t->used, t->len - t->used, "%s%s", t->used ? ", " : "", mask);
	t->used = w < 0 ? t->len : t->used + (size_t)w;
}

/* An event libpfm4 knows that NAME does not encode as given (no unit
 * mask, or one it does not take): the masks it takes, in ERR.  0, or -1
 * when NAME is no event of its own. */
static int pfm_mask_hint(const char *name, char *err, size_t errlen)
{
	pfm_event_info_t e;
	char full[sizeof(((struct counter_ev *)0)->name)], masks[640], ev[sizeof(full)], *cut;
	struct mask_text t = { masks, sizeof(masks), 0 };
	int idx;

	/* The event without what follows it: PMU::EVENT:MASK:... */
	snprintf(ev, sizeof(ev), "%s", name);
	cut = strstr(ev, "::");
	cut = strchr(cut ? cut + 2 : ev, ':');
	if (cut)
		*cut = '\0';
	if (!pfm_ready() || (idx = pfm.find_event(ev)) < 0 || pfm_full_name(idx, &e, full, sizeof(full)) < 0 ||
	    !pfm_each_mask(idx, &e, full, mask_append, &t))
		return -1;
	snprintf(err, errlen, "counters: event '%s' %s, one of: %s (as %s:MASK); threadrun --counters=list lists them",
		 name, cut ? "has a unit mask it does not take" : "needs a unit mask", masks, full);
	return 0;
}

static void mask_print(const char *name, const char *mask, void *arg)
{
	(void)mask;
	fprintf(arg, "  %s\n", name);
}

/* --counters=list's line for event IDX: PMU::EVENT where it encodes as
 * it is, else PMU::EVENT:MASK for each mask that makes it encode (an
 * event no single mask completes is left out). */
static void pfm_list_event(FILE *out, int idx)
{
	pfm_event_info_t e;
	struct perf_event_attr a;
	char full[sizeof(((struct counter_ev *)0)->name)];

	if (pfm_full_name(idx, &e, full, sizeof(full)) < 0)
		return;
	if (pfm_encode(full, &a) == 0)
		fprintf(out, "  %s\n", full);
	else
		pfm_each_mask(idx, &e, full, mask_print, out);
}
#else
static int add_pfm(struct counters_spec *s, const char *name)
{
	(void)s;
	(void)name;
	return -1;
}

static int pfm_mask_hint(const char *name, char *err, size_t errlen)
{
	(void)name;
	(void)err;
	(void)errlen;
	return -1;
}
#endif

int counters_parse(const char *list, struct counters_spec *s, char *err, size_t errlen)
{
	char *copy = NULL, *save = NULL, *name;
	size_t k;
	int ret = 2;

	memset(s, 0, sizeof(*s));
	if (!list) {
		for (k = 0; k < NKNOWN; k++)
			add_known(s, k);
		return 0;
	}
	s->asked = true;
	copy = strdup(list);
	if (!copy) {
		snprintf(err, errlen, "counters: out of memory");
		goto out;
	}
	for (name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		unsigned i;

		for (i = 0; i < s->n; i++)
			if (!strcmp(s->ev[i].name, name))
				break;
		if (i < s->n)
			continue;       /* named twice: counted once */
		if (s->n == COUNTERS_MAX) {
			snprintf(err, errlen, "counters: more than %d events, allowed 1..%d",
				 COUNTERS_MAX, COUNTERS_MAX);
			goto out;
		}
		for (k = 0; k < NKNOWN && strcmp(known[k].name, name); k++)
			;
		if (k < NKNOWN)
			add_known(s, k);
		else if (add_pfm(s, name) < 0) {
			if (!pfm_mask_hint(name, err, errlen))
				goto out;
			snprintf(err, errlen, "counters: event '%s' not known (%s); threadrun --counters=list lists them",
				 name,
#ifdef HAVE_LIBPFM
				 pfm_missing ? pfm_missing
					     : "neither a generic name nor one libpfm4 knows for this machine's PMUs"
#else
				 "a generic name; this threadrun was built without libpfm4"
#endif
			);
			goto out;
		}
	}
	if (!s->n) {
		snprintf(err, errlen, "counters: '%s' names no event; threadrun --counters=list lists them", list);
		goto out;
	}
	ret = 0;
out:
	free(copy);
	return ret;
}

static int paranoid_level(void)
{
	FILE *f = fopen(PARANOID_PATH, "re");
	int level = -9;

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = -9;
		fclose(f);
	}
	return level;
}

int counters_probe(struct counters_spec *s, char *err, size_t errlen)
{
	struct perf_event_attr a;
	char missing[192] = "";
	size_t used = 0;
	unsigned i, kept = 0;
	int fd, e, first_errno = 0;

	for (i = 0; i < s->n; i++) {
		attr_of(&s->ev[i], &a);
		a.disabled = 1;
		fd = (int)perf_open(&a, 0);
		if (fd >= 0) {
			close(fd);
			s->ev[kept++] = s->ev[i];
			continue;
		}
		e = errno;
		if (e == EACCES || e == EPERM) {
			int level = paranoid_level();

			snprintf(err, errlen,
				 "counters: not allowed to count ('%s': %s): %s is %d; counting another process with its kernel side (context switches, page faults) needs 1 or less for a user without CAP_PERFMON (as root: sysctl kernel.perf_event_paranoid=1)",
				 s->ev[i].name, strerror(e), PARANOID_PATH, level);
			return 3;
		}
		if (s->asked || !s->ev[i].hw) {
			snprintf(err, errlen, "counters: '%s' cannot be counted here (perf_event_open: %s%s)",
				 s->ev[i].name, strerror(e),
				 s->ev[i].hw && (e == ENOENT || e == EOPNOTSUPP || e == ENODEV)
					 ? ": no hardware performance counters, a virtual machine without a PMU? software events (task-clock, context-switches, cpu-migrations, page-faults) count"
					 : "");
			return 3;
		}
		if (!first_errno)
			first_errno = e;
		used += (size_t)snprintf(missing + used, used < sizeof(missing) ? sizeof(missing) - used : 0,
					 "%s%s", used ? ", " : "", s->ev[i].name);
	}
	s->n = kept;
	if (first_errno)
		snprintf(s->note, sizeof(s->note),
			 "no hardware events here (%s: %s; a virtual machine without a PMU?): counting software events only",
			 missing, strerror(first_errno));
	return 0;
}

void counters_list(FILE *out)
{
	size_t k;

	fprintf(out, "Events threadrun --counters=EV1,EV2,... takes (default: all of these the machine has):\n");
	for (k = 0; k < NKNOWN; k++)
		fprintf(out, "  %-18s %s\n", known[k].name, known[k].what);
#ifdef HAVE_LIBPFM
	if (pfm_ready()) {
		pfm_pmu_info_t pinfo;
		int pmu, idx;

		fprintf(out, "and these events libpfm4 knows for this machine's PMUs, each as printed (PMU::EVENT, or PMU::EVENT:MASK for one that needs a unit mask):\n");
		pfm_for_all_pmus(pmu) {
			memset(&pinfo, 0, sizeof(pinfo));
			pinfo.size = sizeof(pinfo);
			if (pfm.get_pmu_info((pfm_pmu_t)pmu, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
				continue;
			for (idx = pinfo.first_event; idx != -1; idx = pfm.get_event_next(idx))
				pfm_list_event(out, idx);
		}
	} else {
		fprintf(out, "(libpfm4's names not available: %s)\n", pfm_missing);
	}
#else
	fprintf(out, "(built without libpfm4: only these names)\n");
#endif
}

static void counted_init(struct counted *t, pid_t pid, pid_t tid)
{
	unsigned i;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	for (i = 0; i < COUNTERS_MAX; i++) {
		t->fd[i] = -1;
		t->value[i] = -1;
	}
	t->share = 1;
}

/* Open T's counters: INHERIT for the run's totals (software events only),
 * ON_EXEC for a process held before its exec.  0, or -1 with errno. */
static int counted_open(const struct counters_spec *s, struct counted *t, bool inherit, bool on_exec)
{
	struct perf_event_attr a;
	unsigned i;

	for (i = 0; i < s->n; i++) {
		if (inherit && s->ev[i].hw)
			continue;
		attr_of(&s->ev[i], &a);
		a.inherit = inherit;
		a.disabled = on_exec;
		a.enable_on_exec = on_exec;
		t->fd[i] = (int)perf_open(&a, t->tid);
		if (t->fd[i] < 0)
			return -1;
	}
	return 0;
}

static void counted_close(struct counted *t)
{
	unsigned i;

	for (i = 0; i < COUNTERS_MAX; i++)
		if (t->fd[i] >= 0) {
			close(t->fd[i]);
			t->fd[i] = -1;
		}
}

static void counted_read(const struct counters_spec *s, struct counted *t)
{
	uint64_t v[3];
	double scaled, share;
	unsigned i;

	t->share = 1;
	for (i = 0; i < s->n; i++) {
		if (t->fd[i] < 0 || read(t->fd[i], v, sizeof(v)) != (ssize_t)sizeof(v))
			continue;
		if (!counts_scale(v[0], v[1], v[2], &scaled, &share)) {
			t->share = 0;
			continue;
		}
		t->value[i] = s->ev[i].col == RC_TASK_CLOCK_S ? scaled * 1e-9 : scaled;
		if (share < t->share)
			t->share = share;
	}
	counted_close(t);
}

struct counters *counters_start(const struct counters_spec *s, pid_t pid, char *err,
				size_t errlen)
{
	struct counters *c = calloc(1, sizeof(*c));
	struct rlimit rl;

	if (!c) {
		snprintf(err, errlen, "counters: out of memory");
		return NULL;
	}
	c->spec = *s;
	counted_init(&c->total, pid, pid);
	/* A descriptor per event and thread: take what the hard limit allows. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (counted_open(&c->spec, &c->total, true, true) < 0) {
		snprintf(err, errlen, "counters: cannot count process %d: %s", (int)pid, strerror(errno));
		goto fail;
	}
	if (!counters_attach(c, pid, pid)) {
		snprintf(err, errlen, "counters: cannot count thread %d: %s", (int)pid, strerror(errno));
		goto fail;
	}
	return c;
fail:
	counters_free(c);
	return NULL;
}

struct counted *counters_attach(struct counters *c, pid_t pid, pid_t tid)
{
	struct counted *t, **grown;
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->threads[i]->tid == tid && c->threads[i]->pid == pid)
			return c->threads[i];
	if (c->finished)
		return NULL;
	if (c->n == c->cap) {
		grown = realloc(c->threads, (c->cap ? c->cap * 2 : 16) * sizeof(*grown));
		if (!grown)
			return NULL;
		c->threads = grown;
		c->cap = c->cap ? c->cap * 2 : 16;
	}
	t = malloc(sizeof(*t));
	if (!t)
		return NULL;
	counted_init(t, pid, tid);
	/* The main thread, held before its exec, counts from the exec on. */
	if (counted_open(&c->spec, t, false, c->n == 0) < 0) {
		/* A thread that ended before it was seen is no failure. */
		if (errno != ESRCH) {
			c->failed++;
			c->failed_errno = errno;
		}
		counted_close(t);
		free(t);
		return NULL;
	}
	c->threads[c->n++] = t;
	return t;
}

void counters_finish(struct counters *c)
{
	size_t i;

	if (!c || c->finished)
		return;
	c->finished = true;
	counted_read(&c->spec, &c->total);
	for (i = 0; i < c->n; i++)
		counted_read(&c->spec, c->threads[i]);
}

double counters_value(const struct counters *c, const struct counted *t, unsigned i)
{
	return i < c->spec.n ? (t ? t : &c->total)->value[i] : -1;
}

double counters_share(const struct counters *c, const struct counted *t)
{
	size_t i;
	double least = 1;

	if (t)
		return t->share;
	for (i = 0; i < c->n; i++)
		if (c->threads[i]->share < least)
			least = c->threads[i]->share;
	return least;
}

double counters_total(const struct counters *c, unsigned i)
{
	double sum = -1;
	size_t k;

	if (i >= c->spec.n)
		return -1;
	if (!c->spec.ev[i].hw && c->total.value[i] >= 0)
		return c->total.value[i];
	for (k = 0; k < c->n; k++)
		if (c->threads[k]->value[i] >= 0)
			sum = (sum < 0 ? 0 : sum) + c->threads[k]->value[i];
	return sum;
}

unsigned counters_failed(const struct counters *c, int *err)
{
	*err = c->failed_errno;
	return c->failed;
}

/* S as the worker API's spec (counts.h): the same events. */
static void to_counts_spec(const struct counters_spec *s, struct counts_spec *cs)
{
	unsigned i;

	memset(cs, 0, sizeof(*cs));
	cs->n = s->n;
	for (i = 0; i < s->n; i++) {
		struct counts_event *e = &cs->ev[i];

		e->type = s->ev[i].type;
		e->config = s->ev[i].config;
		e->config1 = s->ev[i].config1;
		e->config2 = s->ev[i].config2;
		e->col = s->ev[i].col;
		snprintf(e->name, sizeof(e->name), "%s", s->ev[i].name);
	}
}

int counters_export(const struct counters_spec *s, char *buf, size_t len)
{
	struct counts_spec cs;

	to_counts_spec(s, &cs);
	return counts_spec_format(&cs, buf, len);
}

void counters_sum(const struct counters *c, struct counts_sum *sum)
{
	unsigned i;

	memset(sum, 0, sizeof(*sum));
	to_counts_spec(&c->spec, &sum->spec);
	for (i = 0; i < COUNTS_MAX; i++)
		sum->v[i] = i < c->spec.n ? counters_total(c, i) : -1;
	sum->share = counters_share(c, NULL);
	sum->threads = 1;
}

const struct counters_spec *counters_spec_of(const struct counters *c)
{
	return &c->spec;
}

int counters_find(const struct counters_spec *s, int col)
{
	unsigned i;

	for (i = 0; i < s->n; i++)
		if (s->ev[i].col == col)
			return (int)i;
	return -1;
}

void counters_free(struct counters *c)
{
	size_t i;

	if (!c)
		return;
	counted_close(&c->total);
	for (i = 0; i < c->n; i++) {
		counted_close(c->threads[i]);
		free(c->threads[i]);
	}
	free(c->threads);
	free(c);
}
