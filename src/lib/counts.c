/* Derived figures from performance counts, and counting a measurement
 * from inside a workload (counts.h). */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "counts.h"
#include "units.h"

bool counts_scale(uint64_t value, uint64_t enabled, uint64_t running, double *scaled,
		  double *share)
{
	*share = 1.0;
	*scaled = (double)value;
	if (running >= enabled)
		return true;
	if (running == 0) {
		*share = 0.0;
		*scaled = 0.0;
		return false;
	}
	*share = (double)running / (double)enabled;
	*scaled = (double)value * ((double)enabled / (double)running);
	return true;
}

/* NUM / DEN when both are known and DEN is positive. */
static double ratio(double num, double den)
{
	return num >= 0 && den > 0 ? num / den : NAN;
}

void counts_derive(const struct counts_in *in, struct counts_derived *out)
{
	out->cycles_per_byte = ratio(in->cycles, in->bytes);
	out->cycles_per_op = ratio(in->cycles, in->ops);
	out->ipc = ratio(in->instructions, in->cycles);
	out->flops_per_cycle = ratio(in->flops, in->cycles);
}

double counts_change_pct(double a, double b)
{
	if (isnan(a) || isnan(b) || a == 0)
		return NAN;
	return 100.0 * (b - a) / a;
}

const char *counts_format(double v, char *buf, unsigned len)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.4g", v);
	return buf;
}

int counts_spec_parse(const char *text, struct counts_spec *s)
{
	const char *p = text, *end;
	char colname[32];

	memset(s, 0, sizeof(*s));
	if (!text || !*text)
		return 0;
	while (*p) {
		struct counts_event *e = &s->ev[s->n];
		unsigned long long v[4];
		char *q;
		int i, n;

		if (s->n == COUNTS_MAX)
			goto bad;
		for (i = 0; i < 4; i++) {
			if (!isdigit((unsigned char)*p))
				goto bad;
			errno = 0;
			v[i] = strtoull(p, &q, 10);
			if (errno || *q != ':')
				goto bad;
			p = q + 1;
		}
		if (v[0] > UINT32_MAX)
			goto bad;
		q = strchr(p, ':');
		if (!q || q == p || (size_t)(q - p) >= sizeof(colname))
			goto bad;
		snprintf(colname, sizeof(colname), "%.*s", (int)(q - p), p);
		p = q + 1;
		end = strchr(p, ';');
		n = end ? (int)(end - p) : (int)strlen(p);
		if (n <= 0 || (size_t)n >= sizeof(e->name))
			goto bad;
		e->type = (uint32_t)v[0];
		e->config = v[1];
		e->config1 = v[2];
		e->config2 = v[3];
		e->col = strcmp(colname, "events") ? results_col_find(colname) : -1;
		if (strcmp(colname, "events") && e->col < 0)
			goto bad;
		snprintf(e->name, sizeof(e->name), "%.*s", n, p);
		s->n++;
		p += n;
		if (*p == ';')
			p++;
	}
	return 0;
bad:
	memset(s, 0, sizeof(*s));
	return -1;
}

int counts_spec_format(const struct counts_spec *s, char *buf, size_t len)
{
	size_t used = 0;
	unsigned i;
	int n;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < s->n; i++) {
		const struct counts_event *e = &s->ev[i];

		n = snprintf(buf + used, len - used, "%s%u:%llu:%llu:%llu:%s:%s", i ? ";" : "",
			     (unsigned)e->type, (unsigned long long)e->config,
			     (unsigned long long)e->config1, (unsigned long long)e->config2,
			     e->col >= 0 ? results_col_name((enum results_col)e->col) : "events",
			     e->name);
		if (n < 0 || (size_t)n >= len - used)
			return -1;
		used += (size_t)n;
	}
	return 0;
}

void counts_thread_open(const struct counts_spec *s, struct counts_thread *t)
{
	struct perf_event_attr a;
	unsigned i;

	for (i = 0; i < COUNTS_MAX; i++)
		t->fd[i] = -1;
	for (i = 0; i < s->n; i++) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = s->ev[i].type;
		a.config = s->ev[i].config;
		a.config1 = s->ev[i].config1;
		a.config2 = s->ev[i].config2;
		a.disabled = 1;
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		t->fd[i] = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
}

void counts_thread_enable(struct counts_thread *t, bool on)
{
	unsigned i;

	for (i = 0; i < COUNTS_MAX; i++)
		if (t->fd[i] >= 0)
			ioctl(t->fd[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

/* A sum nothing was added to yet: no event counted, no share lost. */
static void sum_begin(struct counts_sum *sum)
{
	unsigned i;

	if (sum->threads || sum->failed)
		return;
	sum->share = 1;
	for (i = 0; i < COUNTS_MAX; i++)
		sum->v[i] = -1;
}

void counts_thread_take(struct counts_thread *t, struct counts_sum *sum)
{
	uint64_t v[3];
	double scaled, share;
	bool lost = false;
	unsigned i;

	sum_begin(sum);
	for (i = 0; i < sum->spec.n; i++) {
		if (t->fd[i] < 0 || read(t->fd[i], v, sizeof(v)) != (ssize_t)sizeof(v)) {
			lost = true;
			continue;
		}
		if (!counts_scale(v[0], v[1], v[2], &scaled, &share)) {
			sum->share = 0;
			continue;
		}
		if (sum->spec.ev[i].col == RC_TASK_CLOCK_S)
			scaled *= 1e-9;
		sum->v[i] = (sum->v[i] < 0 ? 0 : sum->v[i]) + scaled;
		if (share < sum->share)
			sum->share = share;
	}
	for (i = 0; i < COUNTS_MAX; i++)
		if (t->fd[i] >= 0) {
			close(t->fd[i]);
			t->fd[i] = -1;
		}
	if (lost)
		sum->failed++;
	else
		sum->threads++;
}

void counts_sum_add(struct counts_sum *to, const struct counts_sum *from)
{
	unsigned i;

	if (!from->threads && !from->failed)
		return;
	sum_begin(to);
	for (i = 0; i < to->spec.n; i++)
		if (from->v[i] >= 0)
			to->v[i] = (to->v[i] < 0 ? 0 : to->v[i]) + from->v[i];
	if (from->share < to->share)
		to->share = from->share;
	to->threads += from->threads;
	to->failed += from->failed;
}

void counts_sum_scale(struct counts_sum *sum, double by)
{
	unsigned i;

	for (i = 0; i < sum->spec.n; i++)
		if (sum->v[i] >= 0)
			sum->v[i] *= by;
}

/* The value of the event in column COL in SUM, or -1 (not counted). */
static double sum_col(const struct counts_sum *sum, int col)
{
	unsigned i;

	for (i = 0; i < sum->spec.n; i++)
		if (sum->spec.ev[i].col == col)
			return sum->v[i];
	return -1;
}

/* One figure of a worker's entry: "%.4g", or "-" when it cannot be derived. */
static void entry_figure(FILE *f, double v)
{
	if (isnan(v) || v < 0)
		fputc('-', f);
	else
		fprintf(f, "%.4g", v);
}

int counts_row_workers(const struct counts_sum *workers, const double *work, unsigned n,
		       struct results_row *row)
{
	const char *unit = results_row_get(row, RC_UNIT);
	char *list = NULL;
	size_t len = 0;
	unsigned i;
	FILE *f;
	int ret = -1;

	f = open_memstream(&list, &len);
	if (!f)
		return -1;
	for (i = 0; i < n; i++) {
		const struct counts_sum *w = &workers[i];
		double amount = work ? work[i] : -1;
		struct counts_in in = { sum_col(w, RC_CYCLES), sum_col(w, RC_INSTRUCTIONS), -1, -1, -1 };
		struct counts_derived d;
		double per;

		if (i)
			fputc(',', f);
		if (!w->threads) {
			fputc('-', f);
			continue;
		}
		counts_in_work(&in, unit, amount, amount);
		counts_derive(&in, &d);
		per = !isnan(d.cycles_per_byte) ? d.cycles_per_byte
		      : !isnan(d.cycles_per_op) ? d.cycles_per_op : d.flops_per_cycle;
		entry_figure(f, sum_col(w, RC_TASK_CLOCK_S));
		fputc('/', f);
		entry_figure(f, per);
		fputc('/', f);
		entry_figure(f, d.ipc);
	}
	if (fclose(f) == 0 && list && results_row_set(row, RC_CTR_WORKERS, "%s", list) == 0)
		ret = 0;
	free(list);
	return ret;
}

void counts_in_work(struct counts_in *in, const char *unit, double bytes, double ops)
{
	const struct unit_props *u = unit_find(unit);

	in->bytes = u && u->counted == COUNTED_BYTES && bytes > 0 ? bytes : -1;
	in->ops = u && u->counted == COUNTED_OPS && ops > 0 ? ops : -1;
	in->flops = u && u->counted == COUNTED_FLOPS && ops > 0 ? ops : -1;
}

void counts_row_counts(const struct counts_sum *sum, struct results_row *row, struct counts_in *in)
{
	const struct counts_spec *s = &sum->spec;
	char names[1024] = "", events[1024] = "";
	size_t nu = 0, eu = 0;
	unsigned i;

	in->cycles = in->instructions = -1;
	for (i = 0; i < s->n; i++) {
		const struct counts_event *e = &s->ev[i];
		double v = sum->v[i];

		nu += (size_t)snprintf(names + nu, nu < sizeof(names) ? sizeof(names) - nu : 0, "%s%s",
				       i ? "," : "", e->name);
		if (v < 0)
			continue;
		if (e->col == RC_CYCLES)
			in->cycles = v;
		else if (e->col == RC_INSTRUCTIONS)
			in->instructions = v;
		if (e->col == RC_TASK_CLOCK_S)
			results_row_set(row, RC_TASK_CLOCK_S, "%.6f", v);
		else if (e->col >= 0)
			results_row_set(row, (enum results_col)e->col, "%.0f", v);
		else
			eu += (size_t)snprintf(events + eu, eu < sizeof(events) ? sizeof(events) - eu : 0,
					       "%s%s=%.0f", eu ? ";" : "", e->name, v);
	}
	results_row_set(row, RC_COUNTERS, "%s", names);
	if (eu)
		results_row_set(row, RC_EVENTS, "%s", events);
	results_row_set(row, RC_COUNTED_PCT, "%.1f", 100.0 * (sum->threads ? sum->share : 0));
}

void counts_row_derived(const struct counts_in *in, struct results_row *row)
{
	struct counts_derived d;
	char buf[32];

	counts_derive(in, &d);
	results_row_set(row, RC_CYCLES_PER_BYTE, "%s", counts_format(d.cycles_per_byte, buf, sizeof(buf)));
	results_row_set(row, RC_CYCLES_PER_OP, "%s", counts_format(d.cycles_per_op, buf, sizeof(buf)));
	results_row_set(row, RC_IPC, "%s", counts_format(d.ipc, buf, sizeof(buf)));
	results_row_set(row, RC_FLOPS_PER_CYCLE, "%s", counts_format(d.flops_per_cycle, buf, sizeof(buf)));
}

void counts_row(const struct counts_sum *sum, struct results_row *row)
{
	struct counts_in in;

	counts_row_counts(sum, row, &in);
	counts_in_work(&in, results_row_get(row, RC_UNIT), results_row_num(row, RC_BYTES),
		       results_row_num(row, RC_OPS));
	counts_row_derived(&in, row);
	if (sum->failed) {
		const char *note = results_row_get(row, RC_NOTE);

		results_row_set(row, RC_NOTE, "%s%scounters: %u worker%s not counted", note,
				*note ? "; " : "", sum->failed, sum->failed == 1 ? "" : "s");
	}
}
