/* linpack: OpenMP LU factorisation + solve, MFLOPS, verified by residual. */
#define _GNU_SOURCE
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gemm.h"
#include "lu.h"
#include "version.h"
#include "workload.h"

#define PROG "linpack"
#define MAX_N 1000000u
#define RESIDUAL_LIMIT 16.0

struct matrix_kind {
	const char *name;
	bool singular;
};

static const struct matrix_kind matrix_kinds[] = { { "random", false }, { "singular", true } };
static const size_t nmatrix_kinds = sizeof(matrix_kinds) / sizeof(matrix_kinds[0]);

struct opts {
	unsigned n, nb, reps, variant;
	uint64_t seed;
	const char *results;
	bool quiet, peak, singular, nb_set, latency;
	const struct matrix_kind *matrix;
	const struct lu_flop_count *flops;
};

static struct opts opts = {
	.variant = 2, .reps = 1, .seed = 1, .matrix = &matrix_kinds[0], .flops = &lu_flop_counts[0],
};

#define O(field) offsetof(struct opts, field)

/* "0 classic, 1 region, 2 blocked": the variants as -v takes them. */
static void variant_names(char *buf, size_t len)
{
	size_t used = 0;
	int i, n;

	buf[0] = '\0';
	for (i = 0; i < lu_nvariants; i++) {
		n = snprintf(buf + used, len - used, "%s%d %s", i ? ", " : "", lu_variants[i].id,
			     lu_variants[i].name);
		if (n < 0 || (size_t)n >= len - used)
			return;
		used += (size_t)n;
	}
}

static void variant_help(char *buf, size_t len)
{
	char names[128];

	variant_names(names, sizeof(names));
	snprintf(buf, len, "%s (default 2); --list says what each does", names);
}

static int parse_variant(const char *arg, void *opts, char *err, size_t errlen)
{
	char names[128];

	if (num_parse_unsigned("variant", arg, 0, (unsigned)lu_nvariants - 1,
			       &((struct opts *)opts)->variant, err, errlen) == 0)
		return 0;
	variant_names(names, sizeof(names));
	snprintf(err, errlen, "variant '%s' not known, choices are: %s", arg, names);
	return -1;
}

static const struct opt_spec options[] = {
	{ OPT_CALLBACK('v', "variant", "V", parse_variant, NULL), .help_fn = variant_help },
	{ OPT_UNSIGNED('b', "block", "NB", O(nb), 1, MAX_N,
		       "block size of variant 2 (default 256; 384 on one thread for N >= 2000)"),
	  .seen = OPT_SEEN(struct opts, nb_set) },
	{ OPT_UNSIGNED('r', "reps", "R", O(reps), 1, 100000,
		       "factorisations to run; best and median are reported (default 1)") },
	{ OPT_FLAG(0, "latency", O(latency),
		   "the percentiles of the reps' times (factorisation + solve): p50, p90, p99, p99.9 and max, in the row and the summary") },
	{ OPT_U64('s', "seed", "SEED", O(seed), 0, UINT64_MAX, "seed of the random matrix (default 1)") },
	{ OPT_RESULTS(O(results), "append a result row to FILE (default: threadrun's file)") },
	{ OPT_CHOICE(0, "matrix", "KIND", O(matrix), matrix_kinds, &nmatrix_kinds,
		     "random (default) or singular (a zero column: tests the check)") },
	{ OPT_CHOICE(0, "flops", "RULE", O(flops), lu_flop_counts, &lu_nflop_counts,
		     "flops credited per run: hpl (2/3 N^3 + 3/2 N^2, default) or linpack100 (2/3 N^3 + 2 N^2)") },
	{ OPT_FLAG(0, "peak", O(peak), "measure one core's FMA peak (GFLOPS), name the kernel chosen and its cache blocks, and exit") },
	{ OPT_QUIET(O(quiet), "results only: the result lines, without per-repetition lines and the per-thread table; warnings stay") },
	{ OPT_PRINT_CONFIG(WORKLOAD_CONFIG) },
	{ OPT_LIST_ACTION("print the variant table, one tab-separated line each, and exit") },
	{ OPT_VERSION(WORKLOAD_VERSION) },
	{ OPT_HELP },
};

/* linpack --list: "ID\tNAME\tWHAT" per variant, for scripts. */
static int list_variants(FILE *out)
{
	int i;

	for (i = 0; i < lu_nvariants; i++)
		fprintf(out, "%d\t%s\t%s\n", lu_variants[i].id, lu_variants[i].name,
			lu_variants[i].what);
	return 0;
}

static const char help_after[] =
	"Threads: THREADRUN_THREADS or OMP_NUM_THREADS; each binds itself to its\n"
	"planned PU (THREADRUN_PLAN).  Flops credited per run: HPL's\n"
	"2/3 N^3 + 3/2 N^2 (--flops linpack100: 2/3 N^3 + 2 N^2); rows name the rule.\n"
	"Variant 2's multiply kernel is chosen at start-up: of those compiled in\n"
	"that the CPU runs (cpuid), the fastest on a short timed multiply; its cache\n"
	"blocks are made for the cache sizes hwloc reports; --peak and the rows' note\n"
	"name both.\n"
	"A run is verified when HPL's scaled residual\n"
	"  ||Ax-b||_inf / (eps (||A||_inf ||x||_inf + ||b||_inf) N)  is below 16.\n"
	"\n"
	"  threadrun -p scatter 2 linpack 2000\n"
	"  threadrun -c 1 16 linpack -v 0 500\n"
	"\n"
	"--list prints one line per variant, tab-separated: ID (what -v takes), NAME\n"
	"(in rows: lu-NAME) and what it does.\n"
	"\n"
	"Exit status: 0 verified; 1 residual too large, singular matrix or an allocation\n"
	"failed; 2 usage error, or an order N whose matrices do not fit in memory.\n";

static void print_peak(void)
{
	const struct gemm_choice *k = gemm_choice();
	struct fma_peak peak;

	fma_peak_measure(0.7, &peak);
	printf("FMA peak of one core: %.1f GFLOPS (independent FMA chains, %s vectors); kernel: %s; blocks kc %d mc %d nc %d for %s\n",
	       peak.gflops, peak.width, k->why, k->blk.kc, k->blk.mc, k->blk.nc, k->caches);
	fma_peak_print(stdout, &peak);
}

/* N, the checks the table cannot make, --peak. */
static int prepare(void *opts_, int argc, char **argv, char *err, size_t errlen)
{
	struct opts *o = opts_;

	o->singular = o->matrix->singular;
	if (o->peak) {
		print_peak();
		return WORKLOAD_DONE;
	}
	if (argc < 1) {
		snprintf(err, errlen, "N: missing, usage: %s [options] N", PROG);
		return -1;
	}
	if (num_parse_unsigned("N", argv[0], 1, MAX_N, &o->n, err, errlen) < 0)
		return -1;
	if (o->nb_set && o->nb > o->n) {
		snprintf(err, errlen, "block: %u is larger than N = %u, allowed 1..%u", o->nb, o->n, o->n);
		return -1;
	}
	if (!o->nb_set)
		o->nb = (unsigned)lu_default_block((int)o->n, 0);
	/* Before any thread: reading the caches loads a topology. */
	gemm_read_caches();
	return 0;
}

static void version_openmp(FILE *out)
{
	version_print_openmp(out, _OPENMP, (const void *)omp_get_max_threads);
}

static unsigned default_workers(void)
{
	return (unsigned)omp_get_max_threads();
}

/* The OpenMP team are the workers: each is named, bound to its planned PU
 * and sampled by the worker API. */
static void team_enter(struct worker_team *t)
{
#pragma omp parallel
	worker_team_enter(t, (unsigned)omp_get_thread_num());
}

static void team_sample(struct worker_team *t)
{
#pragma omp parallel
	worker_team_sample(t, (unsigned)omp_get_thread_num());
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct outcome {
	double *secs;           /* per rep: factor + solve */
	struct histogram *lat;  /* with --latency: the reps' times */
	double best_mflops, median_mflops, residual;
	double median_secs;     /* the median rep's time (two middle ones: their mean); 0: none */
	int singular_at;        /* 1-based column of a zero pivot, 0 when none */
	unsigned checks;        /* solutions whose residual was checked */
	bool verified;
};

/* The measurement's columns; the worker API fills the rest. */
static int append_row(const char *path, const struct opts *o, const struct run_env *env,
		      const struct outcome *r, struct worker_team *t)
{
	char versions[64];
	/* The row is the median rep (a singular matrix: every rep, no flops):
	 * its time, its flops, and the CPU time and counts of all reps scaled
	 * to it. */
	struct worker_row wr = worker_row_of_team(t, env, r->median_secs > 0 ? r->median_secs : t->wall_s);
	struct results_row row;

	wr.versions = versions;
	wr.status = r->verified ? 0 : 1;
	results_row_init(&row);
	snprintf(versions, sizeof(versions), "OpenMP %d, gcc %s", _OPENMP, __VERSION__);
	results_row_set(&row, RC_ALGORITHM, "lu-%s", lu_variants[o->variant].name);
	results_row_set(&row, RC_BACKEND, "openmp");
	/* NB stays out of impl: it follows the thread count, and impl keeps
	 * one series together across thread counts. */
	results_row_set(&row, RC_IMPL, "variant %u (%s)", o->variant, lu_variants[o->variant].name);
	results_row_set(&row, RC_SIZE, "%u", o->n);
	results_row_set(&row, RC_SIZE_UNIT, "n");
	results_row_set(&row, RC_OPS, "%.0f", r->median_secs > 0 ? o->flops->flops((int)o->n) : 0.0);
	results_row_set(&row, RC_RATE, "%.6g", r->median_mflops);
	results_row_set(&row, RC_UNIT, "%s", unit_name(UNIT_MFLOPS));
	results_row_set(&row, RC_VERIFIED, "%s", r->verified ? "yes" : "no");
	results_row_set(&row, RC_CHECKS, "%u", r->checks);
	if (r->singular_at)
		results_row_set(&row, RC_NOTE, "singular: zero pivot in column %d", r->singular_at);
	else if (lu_variants[o->variant].factor == lu_factor_blocked) {
		const struct gemm_choice *k = gemm_choice();

		results_row_set(&row, RC_NOTE, "NB %u; kernel %s, kc %d mc %d nc %d for %s; median of %u rep%s; best %.1f MFLOPS; residual %.3g; flops %s",
				o->nb, k->why, k->blk.kc, k->blk.mc, k->blk.nc, k->caches, o->reps,
				o->reps == 1 ? "" : "s", r->best_mflops, r->residual, o->flops->formula);
	} else
		results_row_set(&row, RC_NOTE, "NB %u; median of %u rep%s; best %.1f MFLOPS; residual %.3g; flops %s",
				o->nb, o->reps, o->reps == 1 ? "" : "s", r->best_mflops, r->residual,
				o->flops->formula);
	if (r->lat && r->lat->count && worker_row_latency(&row, r->lat, NULL, 0, 1) < 0) {
		msg_error(PROG, "out of memory for the latency columns");
		results_row_clear(&row);
		return -1;
	}
	return workload_append_row(path, &row, &wr);
}

/* Refuse a matrix this machine cannot hold, saying how much it needs. */
static int check_memory(unsigned n)
{
	double need, have;

	if (lu_fits((int)n, &need, &have) < 0) {
		msg_error(PROG, "N: %u needs %.1f GiB for the matrix and its copy, this machine has %.1f GiB",
			  n, need / (1 << 30), have / (1 << 30));
		return -1;
	}
	return 0;
}

/* The system of a run: A0 and B0 kept, A and X factored and solved. */
struct lsystem {
	size_t lda;
	double *a0, *a, *b0, *x, *mf;   /* mf: each rep's MFLOPS */
	int *ipiv;
};

static void system_free(struct lsystem *sy)
{
	free(sy->a0);
	free(sy->a);
	free(sy->b0);
	free(sy->x);
	free(sy->ipiv);
	free(sy->mf);
}

/* Allocate the system, R's per-rep times, and make the matrix. */
static int system_make(struct lsystem *sy, const struct opts *o, struct outcome *r)
{
	size_t lda = (size_t)lu_leading_dim((int)o->n);

	sy->lda = lda;
	sy->a0 = big_alloc(sizeof(double) * lda * o->n);
	sy->a = big_alloc(sizeof(double) * lda * o->n);
	sy->b0 = malloc(sizeof(double) * o->n);
	sy->x = malloc(sizeof(double) * o->n);
	sy->ipiv = malloc(sizeof(int) * o->n);
	sy->mf = calloc(o->reps, sizeof(double));
	r->secs = calloc(o->reps, sizeof(double));
	if (o->latency && (r->lat = malloc(sizeof(*r->lat))))
		histogram_init(r->lat);
	if (!sy->a0 || !sy->a || !sy->b0 || !sy->x || !sy->ipiv || !r->secs || !sy->mf ||
	    (o->latency && !r->lat)) {
		msg_error(PROG, "N: cannot allocate %.1f MiB for N = %u",
			  2.0 * sizeof(double) * lda * o->n / (1 << 20), o->n);
		return -1;
	}
	matrix_random((int)o->n, sy->a0, (int)lda, sy->b0, o->seed);
	if (o->singular)
		memset(sy->a0 + (size_t)(o->n / 2) * lda, 0, sizeof(double) * o->n);
	return 0;
}

/* Rep REP: factor and solve, timed, then checked.  0, or -1 (out of
 * memory, a singular matrix: said). */
static int one_rep(const struct opts *o, struct worker_team *t, struct lsystem *sy,
		   struct outcome *r, unsigned rep)
{
	const struct lu_variant *v = &lu_variants[o->variant];
	/* Test-only fault switch: LINPACK_FAULT=N perturbs rep N's solution
	 * only (a check of the first rep alone must not pass), any other
	 * value every rep's. */
	const char *fault = getenv("LINPACK_FAULT");
	const long fault_rep = fault ? strtol(fault, NULL, 10) : 0;
	int n = (int)o->n, lda = (int)sy->lda, info;
	double res;

	memcpy(sy->a, sy->a0, sizeof(double) * sy->lda * o->n);
	memcpy(sy->x, sy->b0, sizeof(double) * o->n);
	worker_team_begin(t);
	info = v->factor(n, sy->a, lda, sy->ipiv, (int)o->nb);
	if (info == 0)
		lu_solve(n, sy->a, lda, sy->ipiv, sy->x);
	r->secs[rep] = worker_team_end(t);
	team_sample(t);
	if (info < 0) {
		msg_error(PROG, "out of memory for the packing buffers");
		return -1;
	}
	if (info > 0) {
		r->singular_at = info;
		r->verified = false;
		msg_error(PROG, "the matrix is singular: column %d has no nonzero pivot, so there is no solution to check (variant %u, N = %u)",
			  info, o->variant, o->n);
		return -1;
	}
	/* A perturbed solution must fail the check. */
	if (fault && (fault_rep <= 0 || (unsigned long)fault_rep == rep + 1UL))
		sy->x[o->n / 2] += 1e-6 * (1 + fabs(sy->x[o->n / 2]));
	sy->mf[rep] = o->flops->flops(n) / r->secs[rep] / 1e6;
	if (r->lat)
		histogram_record(r->lat, (uint64_t)llround(r->secs[rep] * 1e9));
	res = lu_scaled_residual(n, sy->a0, lda, sy->x, sy->b0);
	r->residual = fmax(r->residual, res);
	r->checks++;
	if (!o->quiet)
		printf("rep %-4u %10.4f s %12.1f MFLOPS   residual %.4g\n", rep + 1, r->secs[rep],
		       sy->mf[rep], res);
	return 0;
}

/* The best rep and the median one (MF sorted here). */
static void summarise(const struct opts *o, struct outcome *r, double *mf)
{
	qsort(mf, o->reps, sizeof(double), cmp_double);
	r->best_mflops = mf[o->reps - 1];
	/* The rate and the row's ops and wall_s come from one time, so that
	 * rate = ops / wall_s / 1e6 holds (results/README.md). */
	memcpy(mf, r->secs, o->reps * sizeof(double));
	qsort(mf, o->reps, sizeof(double), cmp_double);
	r->median_secs = o->reps % 2 ? mf[o->reps / 2] : (mf[o->reps / 2 - 1] + mf[o->reps / 2]) / 2;
	r->median_mflops = o->flops->flops((int)o->n) / r->median_secs / 1e6;
}

/* Run the factorisations and the checks: 0 verified, else 1. */
static int factorise(const struct opts *o, struct worker_team *t, struct outcome *r)
{
	const struct lu_variant *v = &lu_variants[o->variant];
	struct lsystem sy = { 0 };
	unsigned rep;
	int ret = 1;

	memset(r, 0, sizeof(*r));
	if (system_make(&sy, o, r) < 0)
		goto out;
	r->verified = true;
	r->residual = 0;
	/* The kernel is chosen (timed) and the buffers made before the clock
	 * starts. */
	if (v->prepare && v->prepare((int)o->n, (int)o->nb) < 0) {
		msg_error(PROG, "out of memory for the packing buffers");
		goto out;
	}
	for (rep = 0; rep < o->reps; rep++)
		if (one_rep(o, t, &sy, r, rep) < 0)
			goto out;
	ret = 0;
	if (!(r->residual < RESIDUAL_LIMIT)) {
		r->verified = false;
		msg_error(PROG, "verification failed: scaled residual %.4g is not below %g (variant %u, N = %u)",
			  r->residual, RESIDUAL_LIMIT, o->variant, o->n);
		ret = 1;
	}
	summarise(o, r, sy.mf);
out:
	if (v->release)
		v->release();
	system_free(&sy);
	return ret;
}

static void print_summary(const struct opts *o, const struct run_env *env, const struct outcome *r,
			  const struct worker_team *t)
{
	char plan[256], seen[128];
	unsigned i;

	if (run_env_format_plan(env, env->nthreads, plan, sizeof(plan)) < 0)
		snprintf(plan, sizeof(plan), "(long list)");
	printf("linpack: N %u, NB %u, variant %u (%s), %u thread%s, policy %s, planned CPUs %s\n",
	       o->n, o->nb, o->variant, lu_variants[o->variant].name, env->nthreads,
	       env->nthreads == 1 ? "" : "s", env->policy, plan);
	if (!r->singular_at)
		printf("best %.1f MFLOPS, median %.1f MFLOPS over %u rep%s (flops: %s); %.3f s wall, %.3f s user, %.3f s sys; residual %.4g (%s)\n",
		       r->best_mflops, r->median_mflops, o->reps, o->reps == 1 ? "" : "s",
		       o->flops->formula, t->wall_s, t->user_s, t->sys_s, r->residual,
		       r->verified ? "verified" : "NOT VERIFIED");
	if (r->lat && r->lat->count) {
		static const double ps[] = { 50, 90, 99, 99.9, 100 };
		static const char *const names[] = { "p50", "p90", "p99", "p99.9", "max" };

		printf("latency per rep (factorisation + solve), %llu reps:",
		       (unsigned long long)r->lat->count);
		for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
			printf(" %s %.4f s", names[i], histogram_percentile(r->lat, ps[i]) * 1e-9);
		putchar('\n');
	}
	if (o->quiet)
		return;
	printf("%-7s %8s %10s %11s %8s\n", "thread", "planned", "seen", "migrations", "on plan");
	for (i = 0; i < t->n; i++) {
		const struct cpu_track *tracks = t->tracks;

		cpu_track_format_seen(&tracks[i], seen, sizeof(seen));
		if (tracks[i].planned >= 0)
			snprintf(plan, sizeof(plan), "%d", tracks[i].planned);
		else
			snprintf(plan, sizeof(plan), "-");
		printf("%-7u %8s %10s %11lu %8s\n", i, plan, seen, tracks[i].migrations,
		       tracks[i].planned < 0 ? "-" : tracks[i].off_plan ? "NO" : "yes");
	}
}

/* The team set up, the factorisations, the summary and the row: the
 * exit status. */
static int run(void *opts_, const struct run_env *env)
{
	struct opts *o = opts_;
	struct worker_team team = { 0 };
	struct outcome r = { 0 };
	char err[512], label[32];
	int ret = 2;

	if (check_memory(o->n) < 0)
		goto out;
	if (!o->nb_set)
		o->nb = (unsigned)lu_default_block((int)o->n, (int)env->nthreads);
	omp_set_num_threads((int)env->nthreads);
	omp_set_dynamic(0);
	ret = 1;
	if (worker_team_init(&team, PROG, env, env->nthreads, err, sizeof(err)) < 0)
		goto fail;
	snprintf(label, sizeof(label), "lu %u", o->n);
	team.label = label;
	team_enter(&team);
	if (worker_team_check(&team, err, sizeof(err)) < 0)
		goto fail;
	ret = factorise(o, &team, &r);
	if (r.secs && (ret == 0 || r.singular_at || r.residual > 0)) {
		print_summary(o, env, &r, &team);
		if (o->results && append_row(o->results, o, env, &r, &team) < 0)
			ret = 1;
	}
	goto out;
fail:
	msg_error(PROG, "%s", err);
out:
	free(r.secs);
	free(r.lat);
	worker_team_free(&team);
	return ret;
}

static const struct workload linpack = {
	.name = PROG, WORKLOAD_OPTIONS(options), .opts = &opts, .usage = "[options] N",
	.help_after = help_after, .operands = 1, .list = list_variants, .version = version_openmp,
	.prepare = prepare, .default_workers = default_workers, .run = run,
};

int main(int argc, char **argv)
{
	return workload_main(&linpack, argc, argv);
}
