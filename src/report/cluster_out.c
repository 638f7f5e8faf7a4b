/* The cluster section of threadreport, in every format. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "cluster.h"

/* "t2accel sha256 / evp, 1024 bytes, bytes/s": one line whatever the
 * files' names hold. */
static void title(const struct cluster *cl, const struct cseries *s, char *buf, size_t len)
{
	const struct obs *k = s->key;
	char size[64], raw[512];

	snprintf(raw, sizeof(raw), "%s %s%s%s, %s, %s%s%s", k->workload, *k->algorithm ? k->algorithm : "-",
		 *k->backend ? " / " : "", k->backend, size_text(k, size, sizeof(size)),
		 *k->unit ? k->unit : "rate", cl->multi_config ? ", config " : "",
		 cl->multi_config ? k->config : "");
	esc_text(raw, buf, len);
}

/* "94%", or "-" where no measurement had windows. */
static void pct(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.0f%%", floor(100 * fmax(v, 0)));
}

/* A rate, "n/a" where there is none. */
static void rate_or_na(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else
		fmt_rate(v, buf, len);
}

/* What a cell's note says: why measurements have no rate, and rows that
 * were not synchronised. */
static void cell_note(const struct ccell *c, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	if (c->na && c->n)
		used = (size_t)snprintf(buf, len, "%zu of %zu n/a: %s", c->na, c->n + c->na, c->reason);
	else if (c->na)
		used = (size_t)snprintf(buf, len, "%s", c->reason);
	if (c->unsynced && used < len)
		snprintf(buf + used, len - used, "%s%zu row%s start_sync no", used ? "; " : "",
			 c->unsynced, c->unsynced == 1 ? "" : "s");
}

/* The warnings of a series for people: incomplete measurements, rows not
 * synchronised (named: host, rank, file and line), no 1-rank point. */
static void warnings(FILE *out, const struct cluster *cl, const struct cseries *s, const char *bullet)
{
	size_t i, x, j, named = 0;

	if (s->incomplete)
		fprintf(out, "%swarning: %zu cluster measurement%s incomplete (ranks missing or out of place): no cluster rate for %s\n",
			bullet, s->incomplete, s->incomplete == 1 ? "" : "s", s->incomplete == 1 ? "it" : "them");
	if (s->apart)
		fprintf(out, "%swarning: %zu cluster measurement%s whose ranks did not run together (overlap under %.0f%%, the least %.0f%%): no cluster rate for %s; run under threadrun-mpi\n",
			bullet, s->apart, s->apart == 1 ? "" : "s", 100 * CLUSTER_MIN_OVERLAP, floor(100 * fmax(s->least_overlap, 0)),
			s->apart == 1 ? "it" : "them");
	if (s->unsynced) {
		fprintf(out, "%swarning: %zu row%s not synchronised (start_sync no: threadrun-mpi could not release %s start with the other ranks'):",
			bullet, s->unsynced, s->unsynced == 1 ? "" : "s", s->unsynced == 1 ? "its" : "their");
		for (i = s->first; i < s->first + s->n; i++)
			for (x = cl->cells[i].mfirst; x < cl->cells[i].mfirst + cl->cells[i].mn; x++)
				for (j = 0; j < cl->m[x].n; j++) {
					const struct obs *o = &cl->ds->obs[cl->rows[cl->m[x].first + j]];

					if (o->sync != 0)
						continue;
					if (named++ < 4)
						fprintf(out, "%s host %s rank %ld, %s %u thread%s (%s:%u)",
							named > 1 ? ";" : "", ESC_MD(o->host, *bullet == '-'), o->rank,
							ESC_MD(o->policy, *bullet == '-'), o->threads, o->threads == 1 ? "" : "s",
							ESC_MD(o->file, *bullet == '-'), o->line);
				}
		fprintf(out, "%s\n", named > 4 ? "; ..." : "");
	}
	if (s->no_one_rank)
		fprintf(out, "%swarning: no 1-rank point for some policy and thread count: no speedup or efficiency for it (n/a)\n",
			bullet);
}

/* The per-host table of a series: per-rank rates at its biggest cell. */
static void hosts_text(FILE *out, const struct cluster *cl, const struct cseries *s, bool md)
{
	const struct ccell *c = &cl->cells[s->big];
	char lo[32], med[32], hi[32];
	size_t h;

	if (md) {
		fputs("Per host, per-rank rates at ", out);
		md_cell(out, c->policy);
		fprintf(out, ", %u thread%s, %ld rank%s (each rank's own rate: never added up):\n\n", c->threads,
			c->threads == 1 ? "" : "s", c->ranks, c->ranks == 1 ? "" : "s");
		fputs("| host | n | min | median | max |\n|---|---:|---:|---:|---:|\n", out);
	} else {
		fprintf(out, "  per host, per-rank rates at %s, %u thread%s, %ld rank%s (each rank's own rate: never added up):\n",
			ESC(c->policy), c->threads, c->threads == 1 ? "" : "s", c->ranks, c->ranks == 1 ? "" : "s");
		fprintf(out, "  %-24s %3s %14s %14s %14s\n", "host", "n", "min", "median", "max");
	}
	for (h = 0; h < c->nhosts; h++) {
		const struct chost *x = &c->hosts[h];

		fmt_rate(x->min, lo, sizeof(lo));
		fmt_rate(x->median, med, sizeof(med));
		fmt_rate(x->max, hi, sizeof(hi));
		if (md) {
			fputs("| ", out);
			md_cell(out, x->host);
			fprintf(out, " | %zu | %s | %s | %s |\n", x->n, lo, med, hi);
		} else {
			fprintf(out, "  %-24s %3zu %14s %14s %14s%s\n", ESC(x->host), x->n, lo, med, hi,
				h == c->slowest ? "  slowest" : "");
		}
	}
	if (md)
		fputc('\n', out);
	if (c->slowest < c->nhosts) {
		const struct chost *x = &c->hosts[c->slowest];
		double best = 0;

		for (h = 0; h < c->nhosts; h++)
			best = fmax(best, c->hosts[h].median);
		fmt_rate(x->median, med, sizeof(med));
		fputs(md ? "- slowest host: " : "  slowest host: ", out);
		if (md)
			md_cell(out, x->host);
		else
			esc_line(out, x->host);
		fprintf(out, " (median per-rank rate %s", med);
		if (best > 0)
			fprintf(out, ", %.2fx the fastest host's", x->median / best);
		fputs(")\n", out);
	}
}

static void emit_text(FILE *out, const struct cluster *cl, bool md)
{
	char t[512], med[32], lo[32], hi[32], ov[16], sp[32], ef[32], note[256];
	size_t i, c;

	for (i = 0; i < cl->nseries; i++) {
		const struct cseries *s = &cl->series[i];

		title(cl, s, t, sizeof(t));
		if (md) {
			fputs("### Cluster: ", out);
			md_cell(out, t);
			fputs("\n\nCluster rate: all ranks' work over the longest rank's wall time, shown where the ranks' measurements overlapped at least 90%.\n\n", out);
			fputs("| policy | threads | ranks | rate | min | max | n | overlap | speedup | efficiency | note |\n", out);
			fputs("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n", out);
		} else {
			fprintf(out, "== cluster: %s\n", t);
			fputs("   rate = all ranks' work / the longest rank's wall time, where the ranks' measurements overlapped >= 90%\n", out);
			fprintf(out, "%-16s %7s %5s %14s %14s %14s %3s %7s %8s %10s  %s\n", "policy", "threads",
				"ranks", "rate", "min", "max", "n", "overlap", "speedup", "efficiency", "note");
		}
		for (c = s->first; c < s->first + s->n; c++) {
			const struct ccell *x = &cl->cells[c];

			rate_or_na(x->median, med, sizeof(med));
			rate_or_na(x->min, lo, sizeof(lo));
			rate_or_na(x->max, hi, sizeof(hi));
			pct(x->overlap_min, ov, sizeof(ov));
			fixed2(x->speedup, sp, sizeof(sp));
			fixed2(x->efficiency, ef, sizeof(ef));
			cell_note(x, note, sizeof(note));
			if (md) {
				fputs("| ", out);
				md_cell(out, x->policy);
				fprintf(out, " | %u | %ld | %s | %s | %s | %zu | %s | %s | %s | %s |\n", x->threads,
					x->ranks, med, lo, hi, x->n, ov, sp, ef, ESC_MD(note, true));
			} else {
				fprintf(out, "%-16s %7u %5ld %14s %14s %14s %3zu %7s %8s %10s  %s\n", ESC(x->policy),
					x->threads, x->ranks, med, lo, hi, x->n, ov, sp, ef, note);
			}
		}
		if (md)
			fputc('\n', out);
		hosts_text(out, cl, s, md);
		warnings(out, cl, s, md ? "- " : "  ");
		fputc('\n', out);
	}
}

/* The columns every csv row of the section starts with. */
static void csv_key(FILE *out, const struct cseries *s, const struct ccell *x, size_t series, char sep,
		    bool raw)
{
	const struct obs *k = s->key;
	const char *const f[] = { k->workload, k->algorithm, k->backend, k->impl };

	fprintf(out, "%zu", series);
	for (size_t j = 0; j < sizeof(f) / sizeof(f[0]); j++) {
		fputc(sep, out);
		csv_field(out, f[j], sep, raw);
	}
	fputc(sep, out);
	if (!isnan(k->size))
		fprintf(out, "%.10g", k->size);
	fputc(sep, out);
	csv_field(out, k->size_unit, sep, raw);
	fputc(sep, out);
	csv_field(out, k->unit, sep, raw);
	fputc(sep, out);
	csv_field(out, x->policy, sep, raw);
	fprintf(out, "%c%u%c%ld", sep, x->threads, sep, x->ranks);
}

static const char *const cell_head[] = { "series", "workload", "algorithm", "backend", "impl", "size",
	"size_unit", "unit", "policy", "threads", "ranks", "n", "na", "rate", "min", "max", "speedup",
	"efficiency", "overlap_min", "unsynced", "reason", "slowest_host" };
static const char *const host_head[] = { "series", "workload", "algorithm", "backend", "impl", "size",
	"size_unit", "unit", "policy", "threads", "ranks", "host", "n", "min", "median", "max",
	"slowest" };

static void emit_csv(FILE *out, const struct cluster *cl, char sep, bool raw, bool hosts)
{
	const char *const *head = hosts ? host_head : cell_head;
	size_t nhead = hosts ? sizeof(host_head) / sizeof(host_head[0]) :
		       sizeof(cell_head) / sizeof(cell_head[0]);
	size_t i, c, h;

	for (i = 0; i < nhead; i++)
		fprintf(out, "%s%s", i ? (sep == '\t' ? "\t" : ",") : "", head[i]);
	fputc('\n', out);
	for (i = 0; i < cl->nseries; i++) {
		const struct cseries *s = &cl->series[i];

		for (c = s->first; c < s->first + s->n; c++) {
			const struct ccell *x = &cl->cells[c];

			if (hosts) {
				for (h = 0; h < x->nhosts; h++) {
					csv_key(out, s, x, i, sep, raw);
					fputc(sep, out);
					csv_field(out, x->hosts[h].host, sep, raw);
					fprintf(out, "%c%zu", sep, x->hosts[h].n);
					csv_num(out, sep, x->hosts[h].min);
					csv_num(out, sep, x->hosts[h].median);
					csv_num(out, sep, x->hosts[h].max);
					fprintf(out, "%c%s\n", sep, h == x->slowest ? "yes" : "no");
				}
				continue;
			}
			csv_key(out, s, x, i, sep, raw);
			fprintf(out, "%c%zu%c%zu", sep, x->n, sep, x->na);
			csv_num(out, sep, x->median);
			csv_num(out, sep, x->min);
			csv_num(out, sep, x->max);
			csv_num(out, sep, x->speedup);
			csv_num(out, sep, x->efficiency);
			csv_num(out, sep, x->overlap_min);
			fprintf(out, "%c%zu%c", sep, x->unsynced, sep);
			csv_field(out, x->reason ? x->reason : "", sep, raw);
			fputc(sep, out);
			csv_field(out, x->slowest < x->nhosts ? x->hosts[x->slowest].host : "", sep, raw);
			fputc('\n', out);
		}
	}
}

static void emit_json(FILE *out, const struct cluster *cl)
{
	char t[512];
	size_t i, c, h;

	for (i = 0; i < cl->nseries; i++) {
		const struct cseries *s = &cl->series[i];
		const struct obs *k = s->key;

		title(cl, s, t, sizeof(t));
		fprintf(out, "%s\n {\"title\": ", i ? "," : "");
		json_str(out, t);
		fputs(", \"workload\": ", out);
		json_str(out, k->workload);
		fputs(", \"algorithm\": ", out);
		json_str(out, k->algorithm);
		fputs(", \"backend\": ", out);
		json_str(out, k->backend);
		fputs(", \"impl\": ", out);
		json_str(out, k->impl);
		fputs(", \"size\": ", out);
		json_num(out, k->size);
		fputs(", \"size_unit\": ", out);
		json_str(out, k->size_unit);
		fputs(", \"unit\": ", out);
		json_str(out, k->unit);
		fprintf(out, ", \"incomplete\": %zu, \"unsynced\": %zu, \"apart\": %zu, \"least_overlap\": ",
			s->incomplete, s->unsynced, s->apart);
		json_num(out, s->least_overlap);
		fputs(", \"cells\": [", out);
		for (c = s->first; c < s->first + s->n; c++) {
			const struct ccell *x = &cl->cells[c];

			fprintf(out, "%s{\"policy\": ", c > s->first ? ", " : "");
			json_str(out, x->policy);
			fprintf(out, ", \"threads\": %u, \"ranks\": %ld, \"n\": %zu, \"na\": %zu, \"rate\": ",
				x->threads, x->ranks, x->n, x->na);
			json_num(out, x->median);
			fputs(", \"min\": ", out);
			json_num(out, x->min);
			fputs(", \"max\": ", out);
			json_num(out, x->max);
			fputs(", \"speedup\": ", out);
			json_num(out, x->speedup);
			fputs(", \"efficiency\": ", out);
			json_num(out, x->efficiency);
			fputs(", \"overlap_min\": ", out);
			json_num(out, x->overlap_min);
			fprintf(out, ", \"unsynced\": %zu, \"reason\": ", x->unsynced);
			if (x->reason)
				json_str(out, x->reason);
			else
				fputs("null", out);
			fputs(", \"slowest_host\": ", out);
			if (x->slowest < x->nhosts)
				json_str(out, x->hosts[x->slowest].host);
			else
				fputs("null", out);
			fputs(", \"hosts\": [", out);
			for (h = 0; h < x->nhosts; h++) {
				fprintf(out, "%s{\"host\": ", h ? ", " : "");
				json_str(out, x->hosts[h].host);
				fprintf(out, ", \"n\": %zu, \"min\": ", x->hosts[h].n);
				json_num(out, x->hosts[h].min);
				fputs(", \"median\": ", out);
				json_num(out, x->hosts[h].median);
				fputs(", \"max\": ", out);
				json_num(out, x->hosts[h].max);
				fputc('}', out);
			}
			fputs("]}", out);
		}
		fputs("]}", out);
	}
}

void cluster_emit(FILE *out, const struct cluster *cl, enum format fmt, bool raw, bool hosts)
{
	switch (fmt) {
	case FMT_TEXT:
	case FMT_MARKDOWN:
		emit_text(out, cl, fmt == FMT_MARKDOWN);
		break;
	case FMT_CSV:
	case FMT_TSV:
		emit_csv(out, cl, fmt == FMT_TSV ? '\t' : ',', raw, hosts);
		break;
	case FMT_JSON:
		emit_json(out, cl);
		break;
	}
}
