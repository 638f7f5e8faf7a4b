/* Option table parsing, --help from the same table, and checked numbers. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"

void msg_error(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int opt_init(struct opt_parser *p, const char *prog, const struct opt_spec *specs,
	     size_t nspecs, unsigned flags)
{
	struct option *longs = calloc(nspecs + 1, sizeof(*longs));
	size_t i, n = 0;

	if (!longs)
		return -1;
	p->prog = prog;
	p->specs = specs;
	p->nspecs = nspecs;
	p->longs = longs;
	/* '+': stop at the first operand; ':': report a missing value ourselves. */
	n += (size_t)snprintf(p->shorts, sizeof(p->shorts), "%s:",
			      flags & OPT_STOP_AT_OPERAND ? "+" : "");
	for (i = 0; i < nspecs; i++) {
		const struct opt_spec *s = &specs[i];
		bool optional = s->arg && s->arg[0] == '[';
		int has = !s->arg ? no_argument : optional ? optional_argument : required_argument;

		longs[i].name = s->long_name;
		longs[i].has_arg = has;
		longs[i].val = s->id;
		if (s->short_name && n + 3 < sizeof(p->shorts)) {
			p->shorts[n++] = s->short_name;
			if (has == required_argument)
				p->shorts[n++] = ':';
			p->shorts[n] = '\0';
		}
	}
	/* 0, not 1: glibc then forgets a cluster of short options left half
	 * read by an earlier parse (a pointer into an argv that may be gone). */
	optind = 0;
	opterr = 0;
	return 0;
}

void opt_fini(struct opt_parser *p)
{
	free(p->longs);
	p->longs = NULL;
}

static const struct opt_spec *find_spec(const struct opt_parser *p, int id)
{
	size_t i;

	for (i = 0; i < p->nspecs; i++)
		if (p->specs[i].id == id)
			return &p->specs[i];
	return NULL;
}

int opt_next(struct opt_parser *p, int argc, char **argv, const char **arg)
{
	int c = getopt_long(argc, argv, p->shorts, p->longs, NULL);
	const struct opt_spec *s;
	const char *bad;

	*arg = optarg;
	if (c == -1)
		return OPT_END;
	if (c == ':') {
		s = find_spec(p, optopt);
		msg_error(p->prog, "option '%s' needs a value (%s), see '%s --help'",
			  argv[optind - 1], s && s->arg ? s->arg : "a value", p->prog);
		return OPT_ERROR;
	}
	if (c == '?') {
		bad = argv[optind - 1];
		if (optopt && find_spec(p, optopt) && strncmp(bad, "--", 2) == 0)
			msg_error(p->prog, "option '%s' takes no value, see '%s --help'", bad,
				  p->prog);
		else if (optopt)
			msg_error(p->prog, "option '-%c' not known, see '%s --help'", optopt,
				  p->prog);
		else
			msg_error(p->prog, "option '%s' not known, see '%s --help'", bad, p->prog);
		return OPT_ERROR;
	}
	return c;
}

void opt_help(const struct opt_parser *p, FILE *out, const char *usage,
	      const char *after)
{
	char left[64];
	size_t i;

	fprintf(out, "Usage: %s %s\n\nOptions:\n", p->prog, usage);
	for (i = 0; i < p->nspecs; i++) {
		const struct opt_spec *s = &p->specs[i];
		const char *arg = s->arg ? s->arg : "";
		bool optional = arg[0] == '[';

		if (s->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", s->short_name,
				 s->long_name, *arg && !optional ? " " : "", arg);
		else
			snprintf(left, sizeof(left), "    --%s%s%s", s->long_name,
				 *arg && !optional ? " " : "", arg);
		fprintf(out, "  %-26s %s\n", left, s->help);
	}
	if (after)
		fprintf(out, "\n%s", after);
}

int num_parse_u64(const char *what, const char *text, uint64_t min, uint64_t max,
		  uint64_t *out, char *err, size_t errlen)
{
	const char *p = text;
	unsigned long long v;
	char *end;

	if (*p == '-' && isdigit((unsigned char)p[1])) {
		snprintf(err, errlen, "%s: %s is out of range, allowed %llu..%llu", what,
			 text, (unsigned long long)min, (unsigned long long)max);
		return -1;
	}
	if (!isdigit((unsigned char)*p))
		goto nan;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (*end)
		goto nan;
	if (errno == ERANGE || v < min || v > max) {
		snprintf(err, errlen, "%s: %s is out of range, allowed %llu..%llu", what,
			 text, (unsigned long long)min, (unsigned long long)max);
		return -1;
	}
	*out = v;
	return 0;
nan:
	snprintf(err, errlen, "%s: '%s' is not a number, allowed %llu..%llu", what, text,
		 (unsigned long long)min, (unsigned long long)max);
	return -1;
}

int num_parse_unsigned(const char *what, const char *text, unsigned min,
		       unsigned max, unsigned *out, char *err, size_t errlen)
{
	uint64_t v;

	if (num_parse_u64(what, text, min, max, &v, err, errlen) < 0)
		return -1;
	*out = (unsigned)v;
	return 0;
}

int num_parse_double(const char *what, const char *text, double min, double max,
		     double *out, char *err, size_t errlen)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (end == text || *end || isnan(v) || isspace((unsigned char)*text)) {
		snprintf(err, errlen, "%s: '%s' is not a number, allowed %g..%g", what, text,
			 min, max);
		return -1;
	}
	if (errno == ERANGE || v < min || v > max) {
		snprintf(err, errlen, "%s: %s is out of range, allowed %g..%g", what, text,
			 min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int num_parse_list(const char *what, const char *text, uint64_t min, uint64_t max,
		   uint64_t **out, char *err, size_t errlen)
{
	char *copy = strdup(text), *save = NULL, *tok;
	uint64_t *vals = NULL, *grown;
	int n = 0;

	*out = NULL;
	if (!copy)
		return -1;
	if (!*copy || copy[strlen(copy) - 1] == ',' || copy[0] == ',' || strstr(copy, ",,")) {
		snprintf(err, errlen, "%s: '%s' is not a comma list of numbers %llu..%llu",
			 what, text, (unsigned long long)min, (unsigned long long)max);
		goto fail;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n >= 4096) {
			snprintf(err, errlen, "%s: more than 4096 values in '%.40s...'", what, text);
			goto fail;
		}
		grown = realloc(vals, (size_t)(n + 1) * sizeof(*vals));
		if (!grown)
			goto fail;
		vals = grown;
		if (num_parse_u64(what, tok, min, max, &vals[n], err, errlen) < 0)
			goto fail;
		n++;
	}
	free(copy);
	*out = vals;
	return n;
fail:
	free(copy);
	free(vals);
	return -1;
}
