/* Option table parsing, --help from the same table, and checked numbers. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "opt.h"

void msg_error(const char *prog, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	/* One line whatever a value held (escape.h; its escapes are printable,
	 * so a value escaped already passes unchanged). */
	fprintf(stderr, "%s: ", prog);
	esc_line(stderr, n < 0 ? "out of memory" : text);
	fputc('\n', stderr);
	free(text);
}

/* The id getopt returns for row I: its own, its short name, or 256 + I. */
static int spec_id(const struct opt_spec *s, size_t i)
{
	return s->id ? s->id : s->short_name ? s->short_name : 256 + (int)i;
}

int opt_init(struct opt_parser *p, const char *prog, const struct opt_spec *specs,
	     size_t nspecs, unsigned flags)
{
	struct option *longs = calloc(nspecs + 1, sizeof(*longs));
	const char **given = calloc(nspecs ? nspecs : 1, sizeof(*given));
	size_t i, n = 0;

	if (!longs || !given) {
		free(longs);
		free(given);
		return -1;
	}
	p->prog = prog;
	p->specs = specs;
	p->nspecs = nspecs;
	p->longs = longs;
	p->given = given;
	/* '+': stop at the first operand; ':': report a missing value ourselves. */
	n += (size_t)snprintf(p->shorts, sizeof(p->shorts), "%s:",
			      flags & OPT_STOP_AT_OPERAND ? "+" : "");
	for (i = 0; i < nspecs; i++) {
		const struct opt_spec *s = &specs[i];
		bool optional = s->arg && s->arg[0] == '[';
		int has = !s->arg ? no_argument : optional ? optional_argument : required_argument;

		longs[i].name = s->long_name;
		longs[i].has_arg = has;
		longs[i].val = spec_id(s, i);
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
	free(p->given);
	p->given = NULL;
}

const struct opt_spec *opt_spec_of(const struct opt_parser *p, int id)
{
	size_t i;

	for (i = 0; i < p->nspecs; i++)
		if (spec_id(&p->specs[i], i) == id)
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
		s = opt_spec_of(p, optopt);
		msg_error(p->prog, "option '%s' needs a value (%s), see '%s --help'",
			  ESC(argv[optind - 1]), s && s->arg ? s->arg : "a value", p->prog);
		return OPT_ERROR;
	}
	if (c == '?') {
		bad = argv[optind - 1];
		if (optopt && opt_spec_of(p, optopt) && strncmp(bad, "--", 2) == 0)
			msg_error(p->prog, "option '%s' takes no value, see '%s --help'", ESC(bad),
				  p->prog);
		else if (optopt)
			msg_error(p->prog, "option '-%c' not known, see '%s --help'", optopt,
				  p->prog);
		else
			msg_error(p->prog, "option '%s' not known, see '%s --help'", ESC(bad), p->prog);
		return OPT_ERROR;
	}
	return c;
}

void opt_quote(FILE *f, const char *word)
{
	static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				    "0123456789_-./:=,+@%^";
	const unsigned char *c;
	bool control = false;

	if (*word && strspn(word, plain) == strlen(word)) {
		fputs(word, f);
		return;
	}
	for (c = (const unsigned char *)word; *c; c++)
		control |= *c < 0x20 || *c == 0x7f;
	if (!control) {
		fputc('\'', f);
		for (c = (const unsigned char *)word; *c; c++)
			if (*c == '\'')
				fputs("'\\''", f);
			else
				fputc(*c, f);
		fputc('\'', f);
		return;
	}
	/* Control bytes: one line, every byte still there, as a shell reads it. */
	fputs("$'", f);
	for (c = (const unsigned char *)word; *c; c++) {
		if (*c == '\n')
			fputs("\\n", f);
		else if (*c == '\t')
			fputs("\\t", f);
		else if (*c == '\\' || *c == '\'')
			fprintf(f, "\\%c", *c);
		else if (*c < 0x20 || *c == 0x7f)
			fprintf(f, "\\x%02x", *c);
		else
			fputc(*c, f);
	}
	fputc('\'', f);
}

/* opt_config()'s walk, which also keeps the last value of the option
 * named NAME in *VALUE (NULL: none). */
static char *config_walk(struct opt_parser *p, int argc, char **argv, const char *name,
			 const char **value)
{
	const struct opt_spec *s;
	const char *arg;
	char *buf = NULL, *word;
	size_t len = 0;
	int c, saved = optind, i;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	opt_quote(f, p->prog);
	optind = 0;
	while ((c = opt_next(p, argc, argv, &arg)) != OPT_END) {
		s = c == OPT_ERROR ? NULL : opt_spec_of(p, c);
		if (s && name && strcmp(s->long_name, name) == 0)
			*value = arg;
		if (!s || s->output_only || s->type == OPT_TYPE_ACTION)
			continue;
		fputc(' ', f);
		if (!arg) {
			fprintf(f, "--%s", s->long_name);
		} else if (asprintf(&word, "--%s=%s", s->long_name, arg) >= 0) {
			opt_quote(f, word);
			free(word);
		}
	}
	for (i = optind; i < argc; i++) {
		fputc(' ', f);
		opt_quote(f, argv[i]);
	}
	optind = saved;
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *opt_config(struct opt_parser *p, int argc, char **argv)
{
	return config_walk(p, argc, argv, NULL, NULL);
}

int opt_print_config(struct opt_parser *p, int argc, char **argv, const char *results)
{
	const char *file = NULL;
	char *config = config_walk(p, argc, argv, results, &file);

	if (!config)
		return -1;
	printf("%s\n", config);
	/* A NUL ends it: no file name holds one, any may hold a newline. */
	if (file && *file)
		fwrite(file, 1, strlen(file) + 1, stdout);
	free(config);
	return 0;
}

void opt_help(const struct opt_parser *p, FILE *out, const char *usage,
	      const char *after)
{
	char left[64], made[512];
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
		if (s->help_fn)
			s->help_fn(made, sizeof(made));
		fprintf(out, "  %-26s %s\n", left, s->help_fn ? made : s->help);
	}
	if (after)
		fprintf(out, "\n%s", after);
}

static const char *choice_name(const struct opt_spec *s, size_t i)
{
	const char *row = (const char *)s->choices + i * s->stride;

	if (s->indirect)
		row = *(const char *const *)row;
	return *(const char *const *)row;
}

void opt_choice_names(const struct opt_spec *s, const char *sep, char *buf, size_t len)
{
	size_t i, used = 0;
	int n;

	buf[0] = '\0';
	for (i = 0; i < *s->nchoices; i++) {
		n = snprintf(buf + used, len - used, "%s%s", i ? sep : "", choice_name(s, i));
		if (n < 0 || (size_t)n >= len - used)
			return;
		used += (size_t)n;
	}
}

/* Store ARG by the row's type; 0, or -1 with the message in ERR. */
static int store(const struct opt_spec *s, const char *arg, char *opts, char *err,
		 size_t errlen)
{
	const char *what = s->long_name ? s->long_name : s->arg;
	char names[256];
	uint64_t *list;
	size_t i;
	int n;

	switch (s->type) {
	case OPT_TYPE_ACTION:
		break;
	case OPT_TYPE_FLAG:
		*(bool *)(opts + s->dest) = true;
		break;
	case OPT_TYPE_STRING:
		*(const char **)(opts + s->dest) = arg;
		break;
	case OPT_TYPE_UNSIGNED:
		return num_parse_unsigned(what, arg, (unsigned)s->min, (unsigned)s->max,
					  (unsigned *)(opts + s->dest), err, errlen);
	case OPT_TYPE_U64:
		return num_parse_u64(what, arg, s->min, s->max, (uint64_t *)(opts + s->dest), err,
				     errlen);
	case OPT_TYPE_DOUBLE:
		if (!arg) {
			*(double *)(opts + s->dest) = s->implied;
			break;
		}
		return num_parse_double(what, arg, s->dmin, s->dmax, (double *)(opts + s->dest),
					err, errlen);
	case OPT_TYPE_LIST:
		n = num_parse_list(what, arg, s->min, s->max, &list, err, errlen);
		if (n < 0)
			return -1;
		free(*(uint64_t **)(opts + s->dest));
		*(uint64_t **)(opts + s->dest) = list;
		*(int *)(opts + s->count) = n;
		break;
	case OPT_TYPE_CHOICE:
		for (i = 0; i < *s->nchoices; i++)
			if (strcmp(choice_name(s, i), arg) == 0) {
				const char *row = (const char *)s->choices + i * s->stride;

				*(const void **)(opts + s->dest) =
					s->indirect ? *(const void *const *)row : row;
				return 0;
			}
		opt_choice_names(s, " ", names, sizeof(names));
		snprintf(err, errlen, "%s '%s' not known, choices are: %s", what, ESC(arg), names);
		return -1;
	case OPT_TYPE_CALLBACK:
		return s->call(arg, opts, err, errlen);
	}
	return 0;
}

int opt_parse(struct opt_parser *p, int argc, char **argv, void *opts)
{
	const struct opt_spec *s;
	const char *arg;
	char err[512];
	int c;

	while ((c = opt_next(p, argc, argv, &arg)) != OPT_END) {
		if (c == OPT_ERROR)
			return OPT_ERROR;
		s = opt_spec_of(p, c);
		if (!s)
			return OPT_ERROR;
		if (s->type == OPT_TYPE_ACTION)
			return s->id;
		if (store(s, arg, opts, err, sizeof(err)) < 0) {
			msg_error(p->prog, "%s", err);
			return OPT_ERROR;
		}
		if (s->seen)
			*(bool *)((char *)opts + s->seen - 1) = true;
		p->given[s - p->specs] = arg ? arg : "";
	}
	return OPT_END;
}

/* The value of the first row of NAMES (long names, space-separated) given,
 * or NULL when none is. */
static const char *given_of(const struct opt_parser *p, const char *names)
{
	size_t i, len;

	for (; *names; names += len + (names[len] == ' ')) {
		len = strcspn(names, " ");
		for (i = 0; i < p->nspecs; i++)
			if (p->given[i] && p->specs[i].long_name &&
			    strncmp(p->specs[i].long_name, names, len) == 0 &&
			    !p->specs[i].long_name[len])
				return p->given[i];
	}
	return NULL;
}

int opt_check(const struct opt_parser *p)
{
	const struct opt_spec *s;
	const char *other;
	size_t i;

	for (i = 0; i < p->nspecs; i++) {
		s = &p->specs[i];
		if (!p->given[i])
			continue;
		if (s->needs && !given_of(p, s->needs)) {
			msg_error(p->prog, s->needs_msg, p->given[i]);
			return -1;
		}
		other = s->excludes ? given_of(p, s->excludes) : NULL;
		if (other) {
			msg_error(p->prog, s->excludes_msg, p->given[i], other);
			return -1;
		}
	}
	return 0;
}

int num_scan_u64(const char **p, uint64_t max, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	bool over = false;
	unsigned d;

	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++) {
		d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			over = true;
		else
			v = v * 10 + d;
	}
	*p = s;
	if (over || v > max)
		return -2;
	*out = v;
	return 0;
}

static void out_of_range(const char *what, const char *text, uint64_t min, uint64_t max,
			 char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: %s is out of range, allowed %llu..%llu", what, ESC(text),
		 (unsigned long long)min, (unsigned long long)max);
}

int num_parse_u64(const char *what, const char *text, uint64_t min, uint64_t max,
		  uint64_t *out, char *err, size_t errlen)
{
	const char *p = text;
	uint64_t v = 0;
	int rc;

	/* "-1" is a number, just not one we take: say so, not "not a number". */
	if (*p == '-' && isdigit((unsigned char)p[1])) {
		out_of_range(what, text, min, max, err, errlen);
		return -1;
	}
	rc = num_scan_u64(&p, UINT64_MAX, &v);
	if (rc == -1 || *p)
		goto nan;
	if (rc == -2 || v < min || v > max) {
		out_of_range(what, text, min, max, err, errlen);
		return -1;
	}
	*out = v;
	return 0;
nan:
	snprintf(err, errlen, "%s: '%s' is not a number, allowed %llu..%llu", what, ESC(text),
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

bool num_is_decimal(const char *s)
{
	bool digits = false;

	for (; isdigit((unsigned char)*s); s++)
		digits = true;
	if (*s == '.')
		for (s++; isdigit((unsigned char)*s); s++)
			digits = true;
	if (!digits)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!isdigit((unsigned char)*s))
			return false;
		while (isdigit((unsigned char)*s))
			s++;
	}
	return *s == '\0';
}

int num_parse_double(const char *what, const char *text, double min, double max,
		     double *out, char *err, size_t errlen)
{
	char *end;
	double v;

	/* "-1" is a number, just not one we take: say so. */
	if (text[0] == '-' && num_is_decimal(text + 1))
		goto range;
	errno = 0;
	v = strtod(text, &end);
	if (!num_is_decimal(text) || end == text || *end) {
		snprintf(err, errlen, "%s: '%s' is not a number, allowed %g..%g", what, ESC(text),
			 min, max);
		return -1;
	}
	if (errno != ERANGE && v >= min && v <= max) {
		*out = v;
		return 0;
	}
range:
	snprintf(err, errlen, "%s: %s is out of range, allowed %g..%g", what, ESC(text), min, max);
	return -1;
}

int list_split(const char *what, const char *text, const char *accepted, char ***out,
	       char *err, size_t errlen)
{
	char **items = NULL, **grown;
	const char *p = text, *comma;
	size_t len;
	int n = 0;

	*out = NULL;
	if (!*text) {
		snprintf(err, errlen, "%s: the list is empty, accepted: %s", what, accepted);
		errno = EINVAL;
		return -1;
	}
	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == 0) {
			snprintf(err, errlen, "%s: '%s' has an empty element at character %zu, accepted: %s",
				 what, ESC(text), (size_t)(p - text) + 1, accepted);
			errno = EINVAL;
			goto fail;
		}
		grown = realloc(items, (size_t)(n + 1) * sizeof(*items));
		if (!grown)
			goto nomem;
		items = grown;
		items[n] = strndup(p, len);
		if (!items[n])
			goto nomem;
		n++;
		if (!comma)
			break;
		p = comma + 1;
	}
	*out = items;
	return n;
nomem:
	snprintf(err, errlen, "%s: out of memory", what);
fail:
	list_free(items, n);
	return -1;
}

void list_free(char **items, int n)
{
	while (items && n > 0)
		free(items[--n]);
	free(items);
}

int num_parse_list(const char *what, const char *text, uint64_t min, uint64_t max,
		   uint64_t **out, char *err, size_t errlen)
{
	char **items = NULL, accepted[96];
	uint64_t *vals = NULL;
	int n, i, ret = -1;

	*out = NULL;
	snprintf(accepted, sizeof(accepted), "a comma list of numbers %llu..%llu",
		 (unsigned long long)min, (unsigned long long)max);
	n = list_split(what, text, accepted, &items, err, errlen);
	if (n < 0)
		return -1;
	if (n > 4096) {
		snprintf(err, errlen, "%s: %d values, allowed at most 4096", what, n);
		goto out;
	}
	vals = calloc((size_t)n, sizeof(*vals));
	if (!vals) {
		snprintf(err, errlen, "%s: out of memory", what);
		goto out;
	}
	for (i = 0; i < n; i++)
		if (num_parse_u64(what, items[i], min, max, &vals[i], err, errlen) < 0)
			goto out;
	*out = vals;
	vals = NULL;
	ret = n;
out:
	free(vals);
	list_free(items, n);
	return ret;
}
