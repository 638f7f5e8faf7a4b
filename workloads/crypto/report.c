/* Tables like openssl speed's, on wall-clock rates, and per-worker lines. */
#include <stdlib.h>
#include <string.h>

#include "report.h"

void report_init(struct report *rep, const uint64_t *sizes, int nsizes, unsigned bits,
		 unsigned nworkers)
{
	unsigned i;

	memset(rep, 0, sizeof(*rep));
	rep->sizes = sizes;
	rep->nsizes = nsizes;
	rep->bits = bits;
	rep->nworkers = nworkers;
	rep->workers = calloc(nworkers, sizeof(*rep->workers));
	for (i = 0; rep->workers && i < nworkers; i++)
		cpu_track_init(&rep->workers[i].seen, -1);
}

void report_fini(struct report *rep)
{
	unsigned i;

	for (i = 0; i < rep->nlines; i++)
		free(rep->lines[i].rate);
	for (size_t k = 0; k < rep->nlat; k++)
		free(rep->lat[k].wp);
	free(rep->lat);
	free(rep->workers);
}

double report_rate(const struct job *job, const struct run_result *r)
{
	double ops = (double)r->ops;

	if (r->wall_s <= 0)
		return 0;
	return algo_per_op(job->algo) ? ops / r->wall_s : ops * (double)job->size / r->wall_s;
}

const char *report_size_text(const struct job *job, char *buf, size_t len)
{
	if (algo_per_op(job->algo))
		snprintf(buf, len, "%u bits", job->bits);
	else
		snprintf(buf, len, "%zu bytes", job->size);
	return buf;
}

void report_header(FILE *out, const struct run_env *env, const char *backend, const char *impl,
		   uint64_t reps, double seconds)
{
	char plan[256];

	if (run_env_format_plan(env, env->nthreads, plan, sizeof(plan)) < 0)
		snprintf(plan, sizeof(plan), "(long list)");
	fprintf(out, "t2accel: %u worker%s, policy %s, planned CPUs %s\n", env->nthreads,
		env->nthreads == 1 ? "" : "s", env->policy, plan);
	fprintf(out, "backend %s: %s\n", backend, impl);
	if (reps)
		fprintf(out, "%llu operations per measurement, shared among the workers\n",
			(unsigned long long)reps);
	else
		fprintf(out, "%g s per measurement; rates are wall-clock\n", seconds);
}

static struct report_line *line_for(struct report *rep, const struct algo *a)
{
	unsigned i;

	for (i = 0; i < rep->nlines; i++)
		if (rep->lines[i].algo == a)
			return &rep->lines[i];
	if (rep->nlines == sizeof(rep->lines) / sizeof(rep->lines[0]))
		return NULL;
	rep->lines[rep->nlines] = (struct report_line){ .algo = a };
	rep->lines[rep->nlines].rate = calloc((size_t)rep->nsizes, sizeof(double));
	return &rep->lines[rep->nlines++];
}

static void add_latency(struct report *rep, const struct job *job, const struct run_result *r);

void report_add(struct report *rep, const struct job *job, const struct run_result *r)
{
	struct report_line *l = line_for(rep, job->algo);
	unsigned i, cpu;
	int j;

	if (l && (job->mode == MODE_SIGN || job->mode == MODE_DERIVE))
		l->sign = report_rate(job, r);
	else if (l && job->mode == MODE_VERIFY)
		l->verify = report_rate(job, r);
	else if (l && l->rate)
		for (j = 0; j < rep->nsizes; j++)
			if (rep->sizes[j] == job->size)
				l->rate[j] = report_rate(job, r);
	if (r->lat && r->started)
		add_latency(rep, job, r);
	for (i = 0; rep->workers && r->wr.tracks && i < r->nworkers && i < rep->nworkers; i++) {
		struct report_worker *w = &rep->workers[i];

		w->planned = r->wr.tracks[i].planned;
		w->ops += r->w[i].ops;
		w->migrations += r->wr.tracks[i].migrations;
		for (cpu = 0; cpu < CPUTRACK_MAX / 64; cpu++)
			w->seen.seen[cpu] |= r->wr.tracks[i].seen[cpu];
		w->seen.off_plan += r->wr.tracks[i].off_plan;
		w->seen.samples += r->wr.tracks[i].samples;
	}
}

/* The latency figures of a measurement that kept them. */
static void add_latency(struct report *rep, const struct job *job, const struct run_result *r)
{
	static const double ps[REPORT_LAT_P] = { 50, 90, 99, 99.9, 100 };
	struct report_latency *l, *grown;
	const double per = 1e-9 / (double)(r->lat_batch ? r->lat_batch : 1);
	char size[32];
	unsigned i;

	grown = realloc(rep->lat, (rep->nlat + 1) * sizeof(*rep->lat));
	if (!grown)
		return;
	rep->lat = grown;
	l = &rep->lat[rep->nlat++];
	memset(l, 0, sizeof(*l));
	snprintf(l->label, sizeof(l->label), "%s %s", algo_mode_label(job->algo, job->mode),
		 report_size_text(job, size, sizeof(size)));
	l->batch = r->lat_batch ? r->lat_batch : 1;
	l->n = r->lat->count;
	for (i = 0; i < REPORT_LAT_P; i++)
		l->p[i] = histogram_percentile(r->lat, ps[i]) * per;
	l->wp = calloc(3 * (size_t)(r->nworkers ? r->nworkers : 1), sizeof(*l->wp));
	if (!l->wp)
		return;
	l->nworkers = r->nworkers;
	for (i = 0; i < r->nworkers; i++) {
		const struct histogram *h = r->w[i].lat;

		if (!h || !h->count)
			continue;
		l->wp[3 * i] = histogram_percentile(h, 50) * per;
		l->wp[3 * i + 1] = histogram_percentile(h, 99) * per;
		l->wp[3 * i + 2] = histogram_max(h) * per;
	}
}

void report_skip(struct report *rep, const struct algo *a, const char *why)
{
	struct report_line *l = line_for(rep, a);

	if (l && rep->nskips < sizeof(rep->skips) / sizeof(rep->skips[0])) {
		snprintf(rep->skips[rep->nskips], sizeof(rep->skips[0]), "%s", why);
		l->skipped = rep->skips[rep->nskips++];
	}
}

void report_progress(FILE *out, const struct job *job, const struct run_result *r)
{
	char size[32];

	fprintf(out, "t2accel: %s %s: %llu ops by %u worker%s in %.2f s wall (%.2f s user, %.2f s sys)%s%s\n",
		algo_mode_label(job->algo, job->mode), report_size_text(job, size, sizeof(size)),
		(unsigned long long)r->ops, r->nworkers, r->nworkers == 1 ? "" : "s", r->wall_s, r->user_s, r->sys_s,
		!r->verified ? ", NOT VERIFIED" : r->unchecked ? ", UNCHECKED" : ", verified",
		r->interrupted ? ", interrupted" : "");
}

static void print_ciphers(FILE *out, const struct report *rep)
{
	unsigned i;
	int j;
	bool any = false;
	char head[32];

	for (i = 0; i < rep->nlines; i++)
		any |= !algo_per_op(rep->lines[i].algo);
	if (!any)
		return;
	fprintf(out, "The 'numbers' are in 1000s of bytes per second processed (wall-clock, all workers).\n");
	fprintf(out, "%-16s", "type");
	for (j = 0; j < rep->nsizes; j++) {
		snprintf(head, sizeof(head), "%llu bytes", (unsigned long long)rep->sizes[j]);
		fprintf(out, " %13s", head);
	}
	fputc('\n', out);
	for (i = 0; i < rep->nlines; i++) {
		const struct report_line *l = &rep->lines[i];

		if (algo_per_op(l->algo))
			continue;
		fprintf(out, "%-16s", l->algo->label);
		if (l->skipped) {
			fprintf(out, " skipped: %s\n", l->skipped);
			continue;
		}
		for (j = 0; j < rep->nsizes; j++)
			if (l->rate[j] > 0)
				fprintf(out, " %12.2fk", l->rate[j] / 1000.0);
			else
				fprintf(out, " %13s", "-");
		fputc('\n', out);
	}
}

/* Signatures and key agreement, in operations per second; a heading where
 * the kind changes (a derive line has its one figure in the sign columns). */
static void print_per_op(FILE *out, const struct report *rep)
{
	int shown = -1;
	unsigned i;

	for (i = 0; i < rep->nlines; i++) {
		const struct report_line *l = &rep->lines[i];
		bool derive = l->algo->kind == ALGO_DERIVE;
		char name[40];

		if (!algo_per_op(l->algo))
			continue;
		if (shown != (int)l->algo->kind)
			fprintf(out, "%-18s %11s %11s %11s %11s\n", "", derive ? "derive" : "sign",
				derive ? "" : "verify", derive ? "derive/s" : "sign/s",
				derive ? "" : "verify/s");
		shown = (int)l->algo->kind;
		snprintf(name, sizeof(name), "%s %u bits", l->algo->label,
			 l->algo->key_len ? l->algo->key_len : rep->bits);
		if (l->skipped)
			fprintf(out, "%-18s skipped: %s\n", name, l->skipped);
		else if (derive)
			fprintf(out, "%-19s%10.6fs %11s %11.1f\n", name, l->sign > 0 ? 1.0 / l->sign : 0.0,
				"", l->sign);
		else
			fprintf(out, "%-19s%10.6fs %10.6fs %11.1f %11.1f\n", name,
				l->sign > 0 ? 1.0 / l->sign : 0.0, l->verify > 0 ? 1.0 / l->verify : 0.0,
				l->sign, l->verify);
	}
}

static void print_workers(FILE *out, const struct report *rep)
{
	uint64_t total = 0;
	char seen[256], planned[16];
	unsigned i;

	for (i = 0; i < rep->nworkers; i++)
		total += rep->workers[i].ops;
	fprintf(out, "\n%-7s %8s %10s %11s %8s %8s\n", "worker", "planned", "seen", "migrations",
		"on plan", "share");
	for (i = 0; i < rep->nworkers; i++) {
		const struct report_worker *w = &rep->workers[i];

		cpu_track_format_seen(&w->seen, seen, sizeof(seen));
		if (w->planned >= 0)
			snprintf(planned, sizeof(planned), "%d", w->planned);
		else
			snprintf(planned, sizeof(planned), "-");
		fprintf(out, "%-7u %8s %10s %11lu %8s %7.1f%%\n", i, planned, seen, w->migrations,
			w->planned < 0 ? "-" : w->seen.off_plan ? "NO" : "yes",
			total ? 100.0 * (double)w->ops / (double)total : 0.0);
	}
}

/* "31.2ns", "2.35us", "1.20ms", "1.50s": 3 significant digits. */
static const char *lat_text(double s, char *buf, size_t len)
{
	static const struct { double scale; const char *unit; } units[] = {
		{ 1, "s" }, { 1e-3, "ms" }, { 1e-6, "us" }, { 1e-9, "ns" },
	};
	size_t i;

	for (i = 0; i + 1 < sizeof(units) / sizeof(units[0]) && s < units[i].scale; i++)
		;
	snprintf(buf, len, "%.3g%s", s / units[i].scale, units[i].unit);
	return buf;
}

static void print_latency(FILE *out, const struct report *rep, bool quiet)
{
	static const char *const head[REPORT_LAT_P] = { "p50", "p90", "p99", "p99.9", "max" };
	char v[32];
	size_t k;
	unsigned i, j;

	if (!rep->nlat)
		return;
	fprintf(out, "\nLatency per operation (batch > 1: each batch's time / batch; all workers merged).\n");
	fprintf(out, "%-24s %7s %10s", "measurement", "batch", "n");
	for (j = 0; j < REPORT_LAT_P; j++)
		fprintf(out, " %9s", head[j]);
	fputc('\n', out);
	for (k = 0; k < rep->nlat; k++) {
		const struct report_latency *l = &rep->lat[k];

		fprintf(out, "%-24s %7llu %10llu", l->label, (unsigned long long)l->batch,
			(unsigned long long)l->n);
		for (j = 0; j < REPORT_LAT_P; j++)
			fprintf(out, " %9s", l->n ? lat_text(l->p[j], v, sizeof(v)) : "-");
		fputc('\n', out);
		for (i = 0; !quiet && l->wp && l->nworkers > 1 && i < l->nworkers; i++) {
			fprintf(out, "  worker %-15u %7s %10s %9s", i, "", "", l->wp[3 * i] > 0 ?
				lat_text(l->wp[3 * i], v, sizeof(v)) : "-");
			fprintf(out, " %9s", "");
			fprintf(out, " %9s", l->wp[3 * i + 1] > 0 ? lat_text(l->wp[3 * i + 1], v, sizeof(v)) : "-");
			fprintf(out, " %9s", "");
			fprintf(out, " %9s\n", l->wp[3 * i + 2] > 0 ? lat_text(l->wp[3 * i + 2], v, sizeof(v)) : "-");
		}
	}
}

void report_print(FILE *out, const struct report *rep, bool quiet)
{
	print_ciphers(out, rep);
	print_per_op(out, rep);
	print_latency(out, rep, quiet);
	if (!quiet && rep->workers)
		print_workers(out, rep);
}
