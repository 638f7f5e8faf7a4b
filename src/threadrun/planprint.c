/* threadrun -n: the plan as text for people, CSV, TSV or JSON for programs. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "escape.h"
#include "planprint.h"
#include "results.h"

static const struct { const char *name; enum plan_format fmt; } formats[] = {
	{ "text", PLAN_TEXT }, { "csv", PLAN_CSV }, { "tsv", PLAN_TSV }, { "json", PLAN_JSON },
};

int plan_format_parse(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(formats[i].name, name))
			return (int)formats[i].fmt;
	return -1;
}

/* What every format says about the machine and the plan as a whole. */
struct facts {
	char desc[256];
	bool thissystem;
	const char *cache;      /* the topology cache it was read from, or NULL */
	unsigned cores, pus, usable;
};

static void get_facts(pl_topology_t topo, struct facts *f)
{
	pl_topology_describe(topo, f->desc, sizeof(f->desc));
	f->thissystem = pl_topology_is_thissystem(topo);
	f->cache = pl_topology_get_cache_used(topo);
	f->cores = pl_topology_get_nbcores(topo);
	f->pus = pl_topology_get_nbpus(topo);
	f->usable = pl_topology_get_nbusable(topo);
}

/* Worker I's PU, core, package and NUMA node; -1 where unbound or the
 * topology lacks the level. */
static void worker_place(pl_topology_t topo, const struct pl_plan *plan, unsigned i, int v[4])
{
	struct pl_pu_info info;

	v[0] = v[1] = v[2] = v[3] = -1;
	if (plan->pu[i] < 0 || pl_topology_get_pu_info(topo, (unsigned)plan->pu[i], &info) < 0)
		return;
	v[0] = plan->pu[i];
	v[1] = info.core;
	v[2] = info.package;
	v[3] = info.numa;
}

/* "rank 1 of 2 (openmpi, job X, local rank 1); the launcher gave PUs 1: 1
 * usable", or the PUs alone without a launcher; the PUs only for this
 * machine (-t plans for another). */
static void print_who(FILE *out, const struct plan_who *who, const struct facts *f)
{
	const struct launcher_id *id = who->id;
	bool pus = f->thissystem && who->cpuset;

	if (id && id->launcher) {
		fprintf(out, "# rank %ld", id->rank);
		if (id->ranks >= 0)
			fprintf(out, " of %ld", id->ranks);
		fprintf(out, " (%s", id->launcher);
		if (id->job)
			fprintf(out, ", job %s", id->job);
		if (id->local_rank >= 0)
			fprintf(out, ", local rank %ld", id->local_rank);
		fprintf(out, ")%s", pus ? "; the launcher gave PUs " : "\n");
	} else if (pus) {
		fputs("# given PUs ", out);
	}
	if (pus)
		fprintf(out, "%s: %u usable\n", who->cpuset, f->usable);
}

static void print_text(FILE *out, pl_topology_t topo, const struct pl_plan *plan,
		       const char *policy, const struct facts *f, const struct plan_who *who)
{
	unsigned i;
	int v[4];

	fprintf(out, "# topology: %s (%u core%s, %u PU%s, %u usable)%s", f->desc, f->cores,
		f->cores == 1 ? "" : "s", f->pus, f->pus == 1 ? "" : "s", f->usable, f->thissystem ? "" : " -- not this machine, plan only");
	if (f->cache) {
		fputs(" -- read from the cache ", out);
		esc_line(out, f->cache);
	}
	fputc('\n', out);
	print_who(out, who, f);
	fprintf(out, "# policy: %s, %u worker%s on %u PU%s%s\n", policy, plan->nworkers,
		plan->nworkers == 1 ? "" : "s", plan->distinct, plan->distinct == 1 ? "" : "s", plan->wrapped ? " (wrapped round-robin)" : "");
	fprintf(out, "%-6s %5s %5s %7s %5s\n", "worker", "pu", "core", "package", "numa");
	for (i = 0; i < plan->nworkers; i++) {
		if (plan->pu[i] < 0) {
			fprintf(out, "%-6u %5s %5s %7s %5s\n", i, "-", "-", "-", "-");
			continue;
		}
		worker_place(topo, plan, i, v);
		fprintf(out, "%-6u %5d %5d %7d %5d\n", i, v[0], v[1], v[2], v[3]);
	}
}

static void put_text(FILE *out, bool tsv, const char *s)
{
	if (tsv)
		esc_tsv(out, s, 0);
	else
		esc_csv(out, s, 0);
}

/* One row per worker; the plan-wide columns repeat on every row so that a
 * reader needs no second table.  Absent numbers are empty fields. */
/* A count column: empty when not known. */
static void put_count(FILE *out, char sep, long v)
{
	fputc(sep, out);
	if (v >= 0)
		fprintf(out, "%ld", v);
}

static void print_table(FILE *out, bool tsv, pl_topology_t topo, const struct pl_plan *plan,
			const char *policy, const struct facts *f, const char *const *warnings,
			unsigned nwarn, const struct plan_who *who)
{
	static const char *const head[] = { "worker", "pu", "core", "package", "numa", "policy",
		"topology", "this_system", "cores", "pus", "usable", "distinct", "wrapped", "warnings",
		"launcher", "job", "rank", "ranks", "local_rank", "cpuset" };
	const struct launcher_id *id = who->id && who->id->launcher ? who->id : NULL;
	const char sep = tsv ? '\t' : ',';
	unsigned i, j, w;
	int v[4];

	for (i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		fprintf(out, "%s%s", i ? (tsv ? "\t" : ",") : "", head[i]);
	fputc('\n', out);
	for (i = 0; i < plan->nworkers; i++) {
		worker_place(topo, plan, i, v);
		fprintf(out, "%u", i);
		for (j = 0; j < 4; j++) {
			fputc(sep, out);
			if (v[j] >= 0)
				fprintf(out, "%d", v[j]);
		}
		fputc(sep, out);
		put_text(out, tsv, policy);
		fputc(sep, out);
		put_text(out, tsv, f->desc);
		fprintf(out, "%c%s%c%u%c%u%c%u%c%u%c%s%c", sep, f->thissystem ? "yes" : "no", sep,
			f->cores, sep, f->pus, sep, f->usable, sep, plan->distinct, sep,
			plan->wrapped ? "yes" : "no", sep);
		/* Several warnings share the field, joined by "; ". */
		if (tsv) {
			for (w = 0; w < nwarn; w++) {
				if (w)
					fputs("; ", out);
				esc_tsv(out, warnings[w], 0);
			}
		} else {
			char *all = NULL;
			size_t len = 0;
			FILE *m = open_memstream(&all, &len);

			for (w = 0; m && w < nwarn; w++)
				fprintf(m, "%s%s", w ? "; " : "", warnings[w]);
			if (m && fclose(m) == 0)
				esc_csv(out, all, 0);
			free(all);
		}
		fputc(sep, out);
		put_text(out, tsv, id ? id->launcher : "");
		fputc(sep, out);
		put_text(out, tsv, id && id->job ? id->job : "");
		put_count(out, sep, id ? id->rank : -1);
		put_count(out, sep, id ? id->ranks : -1);
		put_count(out, sep, id ? id->local_rank : -1);
		fputc(sep, out);
		put_text(out, tsv, who->cpuset ? who->cpuset : "");
		fputc('\n', out);
	}
}

static void json_int(FILE *out, const char *key, long v)
{
	if (v >= 0)
		fprintf(out, ", \"%s\": %ld", key, v);
	else
		fprintf(out, ", \"%s\": null", key);
}

static void json_text(FILE *out, const char *key, const char *s)
{
	fprintf(out, ", \"%s\": ", key);
	if (s)
		esc_json(out, s);
	else
		fputs("null", out);
}

static void print_json(FILE *out, pl_topology_t topo, const struct pl_plan *plan,
		       const char *policy, const struct facts *f, const char *const *warnings,
		       unsigned nwarn, const struct plan_who *who)
{
	const struct launcher_id *id = who->id && who->id->launcher ? who->id : NULL;
	unsigned i;
	int v[4];

	fputs("{\"topology\": ", out);
	esc_json(out, f->desc);
	fprintf(out, ", \"this_system\": %s, \"cores\": %u, \"pus\": %u, \"usable\": %u,\n \"policy\": ",
		f->thissystem ? "true" : "false", f->cores, f->pus, f->usable);
	esc_json(out, policy);
	fprintf(out, ", \"workers\": %u, \"distinct\": %u, \"wrapped\": %s, \"bound\": %s,\n \"warnings\": [",
		plan->nworkers, plan->distinct, plan->wrapped ? "true" : "false",
		plan->bound ? "true" : "false");
	for (i = 0; i < nwarn; i++) {
		if (i)
			fputs(", ", out);
		esc_json(out, warnings[i]);
	}
	fputs("],\n \"launcher\": ", out);
	if (id)
		esc_json(out, id->launcher);
	else
		fputs("null", out);
	json_text(out, "job", id ? id->job : NULL);
	json_int(out, "rank", id ? id->rank : -1);
	json_int(out, "ranks", id ? id->ranks : -1);
	json_int(out, "local_rank", id ? id->local_rank : -1);
	json_text(out, "cpuset", who->cpuset);
	fputs(",\n \"plan\": [", out);
	for (i = 0; i < plan->nworkers; i++) {
		worker_place(topo, plan, i, v);
		fprintf(out, "%s\n  {\"worker\": %u", i ? "," : "", i);
		json_int(out, "pu", v[0]);
		json_int(out, "core", v[1]);
		json_int(out, "package", v[2]);
		json_int(out, "numa", v[3]);
		fputc('}', out);
	}
	fputs("\n ]}\n", out);
}

void plan_print(FILE *out, enum plan_format fmt, pl_topology_t topo, const struct pl_plan *plan,
		const char *policy, const char *const *warnings, unsigned nwarn,
		const struct plan_who *who)
{
	struct facts f;

	get_facts(topo, &f);
	switch (fmt) {
	case PLAN_TEXT: print_text(out, topo, plan, policy, &f, who); break;
	case PLAN_CSV: print_table(out, false, topo, plan, policy, &f, warnings, nwarn, who); break;
	case PLAN_TSV: print_table(out, true, topo, plan, policy, &f, warnings, nwarn, who); break;
	case PLAN_JSON: print_json(out, topo, plan, policy, &f, warnings, nwarn, who); break;
	}
}
