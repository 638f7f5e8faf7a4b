/*
 * One option table drives both parsing and --help.  Each row holds its
 * option's type, range and destination (git's OPT_* rows are the model), so
 * opt_parse() stores and checks every value itself and every program words
 * its errors the same way:
 *   threadrun: per-core: 0 is out of range, allowed 1..4096
 */
#ifndef OPT_H
#define OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * What a row does with its value when opt_parse() meets it.  The value goes
 * to DEST, an offsetof() into the program's options struct; numbers are
 * checked against the row's range, choices against the row's table, and a
 * refused value is one line naming it and what is allowed.
 */
enum opt_type {
	OPT_TYPE_ACTION,        /* opt_parse() stops and returns the row's id */
	OPT_TYPE_FLAG,          /* bool: true */
	OPT_TYPE_UNSIGNED,      /* unsigned in MIN..MAX */
	OPT_TYPE_U64,           /* uint64_t in MIN..MAX */
	OPT_TYPE_DOUBLE,        /* double in DMIN..DMAX; IMPLIED when "[=X]" is absent */
	OPT_TYPE_STRING,        /* const char *, the argv word itself */
	OPT_TYPE_LIST,          /* comma list of numbers in MIN..MAX: a new uint64_t
	                         * array (the program frees it), its int count at COUNT */
	OPT_TYPE_CHOICE,        /* const void *: the row of CHOICES named by the value */
	OPT_TYPE_CALLBACK,      /* CALL does it: the genuinely special cases */
};

struct opt_spec {
	int id;                 /* 0: opt_init() picks one; what an ACTION row returns */
	char short_name;        /* 0 when there is only a long form */
	const char *long_name;  /* also the value's name in messages */
	const char *arg;        /* NULL for a flag; "X" for a value; "[=X]" optional */
	const char *help;
	enum opt_type type;
	size_t dest;
	size_t seen;            /* offsetof() + 1 of a bool set when given; 0: none */
	bool output_only;       /* changes only the output: left out of the config */
	uint64_t min, max;
	double dmin, dmax, implied;
	size_t count;           /* LIST: offsetof() the int count */
	/* CHOICE: a table of *NCHOICES rows of STRIDE bytes, each starting with
	 * its name (INDIRECT: each a pointer to a struct starting with it). */
	const void *choices;
	size_t stride;
	const size_t *nchoices;
	bool indirect;
	/* CALLBACK: 0, or -1 with the message in ERR. */
	int (*call)(const char *arg, void *opts, char *err, size_t errlen);
	/* Help text made from a table at run time, instead of HELP. */
	void (*help_fn)(char *buf, size_t len);
	/* Rules opt_check() holds the row to when it is given: it NEEDS one
	 * of the rows named (long names, space-separated) and EXCLUDES all of
	 * them.  A broken rule's message is a format given the row's value and
	 * the other row's, as typed ("" for a flag). */
	const char *needs, *needs_msg;
	const char *excludes, *excludes_msg;
};

/* Rows, git's OPT_* style: { OPT_UNSIGNED(...) } or, with more fields,
 * { OPT_UNSIGNED(...), .seen = OPT_SEEN(struct opts, nb_set) }. */
#define OPT_ROW_(s, l, a, h) .short_name = (s), .long_name = (l), .arg = (a), .help = (h)
#define OPT_ACTION(i, s, l, h) .id = (i), OPT_ROW_(s, l, NULL, h), .type = OPT_TYPE_ACTION
#define OPT_FLAG(s, l, d, h) OPT_ROW_(s, l, NULL, h), .type = OPT_TYPE_FLAG, .dest = (d)
#define OPT_STRING(s, l, a, d, h) OPT_ROW_(s, l, a, h), .type = OPT_TYPE_STRING, .dest = (d)
#define OPT_UNSIGNED(s, l, a, d, lo, hi, h) \
	OPT_ROW_(s, l, a, h), .type = OPT_TYPE_UNSIGNED, .dest = (d), .min = (lo), .max = (hi)
#define OPT_U64(s, l, a, d, lo, hi, h) \
	OPT_ROW_(s, l, a, h), .type = OPT_TYPE_U64, .dest = (d), .min = (lo), .max = (hi)
#define OPT_DOUBLE(s, l, a, d, lo, hi, h) \
	OPT_ROW_(s, l, a, h), .type = OPT_TYPE_DOUBLE, .dest = (d), .dmin = (lo), .dmax = (hi)
#define OPT_LIST(s, l, a, d, n, lo, hi, h) OPT_ROW_(s, l, a, h), .type = OPT_TYPE_LIST, \
	.dest = (d), .count = (n), .min = (lo), .max = (hi)
#define OPT_CHOICE(s, l, a, d, table, n, h) OPT_ROW_(s, l, a, h), .type = OPT_TYPE_CHOICE, \
	.dest = (d), .choices = (table), .stride = sizeof((table)[0]), .nchoices = (n)
#define OPT_CALLBACK(s, l, a, fn, h) OPT_ROW_(s, l, a, h), .type = OPT_TYPE_CALLBACK, .call = (fn)
/* The shared row of every workload: print the run's config and exit
 * (threadrun asks the project's own programs for it, and for the results
 * file they were given: opt_print_config()). */
#define OPT_PRINT_CONFIG(i) OPT_ACTION(i, 0, "print-config", \
	"print the run's canonical configuration (the rows' config column) on one line, then the file -o names and a NUL, and exit")
/* The shared row of every program: the version and the libraries it runs
 * with (version_print()), then exit. */
#define OPT_VERSION(i) OPT_ACTION(i, 0, "version", \
	"print the version and the libraries it runs with, and exit")
#define OPT_SEEN(type, field) (offsetof(type, field) + 1)

/* What opt_next() returns besides an option's id. */
enum { OPT_END = -1, OPT_ERROR = -2 };

struct opt_parser {
	const char *prog;
	const struct opt_spec *specs;
	size_t nspecs;
	char shorts[128];
	void *longs;            /* struct option[], built from specs */
	const char **given;     /* per row: its last value ("" for a flag), NULL: not given */
};

/* Prepare to parse argv.  A launcher stops at the first operand (so the
 * launched program's options are left alone, OPT_STOP_AT_OPERAND); other
 * programs take options anywhere. */
#define OPT_STOP_AT_OPERAND 1u
int opt_init(struct opt_parser *p, const char *prog, const struct opt_spec *specs,
	     size_t nspecs, unsigned flags);
void opt_fini(struct opt_parser *p);

/* The next option's id, with its value in *ARG; OPT_END when the options
 * end (optind then indexes the first operand), OPT_ERROR after printing one
 * line naming the bad option. */
int opt_next(struct opt_parser *p, int argc, char **argv, const char **arg);
/* The row opt_next()'s id names; NULL for none. */
const struct opt_spec *opt_spec_of(const struct opt_parser *p, int id);

/*
 * Parse every option into OPTS by the rows' types: OPT_END when the options
 * end (optind then indexes the first operand), an ACTION row's id, or
 * OPT_ERROR after printing one line naming the bad option or value.
 */
int opt_parse(struct opt_parser *p, int argc, char **argv, void *opts);
/* After opt_parse(): the rows' needs and excludes rules, in row order.  0,
 * or -1 after printing the first broken rule's message. */
int opt_check(const struct opt_parser *p);

/*
 * The canonical configuration of a run (the results' `config` column): the
 * program's name, then every option given, in order, as --LONG or
 * --LONG=VALUE (short and long forms alike), output-only rows and actions
 * left out, then the operands; each word quoted by opt_quote().  Call after
 * a successful parse of the same ARGV; optind is left where it was.  A new
 * string, or NULL when out of memory.
 */
char *opt_config(struct opt_parser *p, int argc, char **argv);
/* --print-config's answer, on stdout: opt_config() and a newline, then,
 * when the option named RESULTS was given (the program's own -o, read as
 * its parser reads it: bundled, long or short; the last one), its value
 * and a NUL.  0, or -1 when out of memory. */
int opt_print_config(struct opt_parser *p, int argc, char **argv, const char *results);
/* Write WORD to F as it reads plainly, or quoted: '...' when it holds
 * spaces, quotes or shell characters, $'...' with \n, \t, \xHH escapes
 * when it holds control bytes; never truncated. */
void opt_quote(FILE *f, const char *word);

/* The names of a CHOICE row's table, separated by SEP, into BUF. */
void opt_choice_names(const struct opt_spec *s, const char *sep, char *buf, size_t len);

/* Print "Usage: ..." then one line per option, from the same table. */
void opt_help(const struct opt_parser *p, FILE *out, const char *usage,
	      const char *after);

/*
 * The one way numbers are written: decimal digits only, no sign, space,
 * base prefix or fraction.  Scan one at *P (advancing it past the digits):
 * 0 with *OUT set, -1 when *P does not start with a digit, -2 when the
 * number is above MAX (however long it is: no wrap-around).
 */
int num_scan_u64(const char **p, uint64_t max, uint64_t *out);

/* Numbers with ranges.  On failure *ERR gets "what: 'x' is not a number,
 * allowed MIN..MAX" or "what: x is out of range, allowed MIN..MAX". */
int num_parse_u64(const char *what, const char *text, uint64_t min, uint64_t max,
		  uint64_t *out, char *err, size_t errlen);
int num_parse_unsigned(const char *what, const char *text, unsigned min,
		       unsigned max, unsigned *out, char *err, size_t errlen);
/* Numbers with a fraction ("0.25", "1e-3"): digits, '.', an exponent; no
 * sign, space, hex, inf or nan. */
int num_parse_double(const char *what, const char *text, double min, double max,
		     double *out, char *err, size_t errlen);

/*
 * The one way lists are written: items separated by commas, no empty item.
 * Split TEXT into a new array of new strings; the count, or -1 with a
 * message naming WHAT, the empty element and what is ACCEPTED.  Release
 * with list_free().
 */
int list_split(const char *what, const char *text, const char *accepted, char ***out,
	       char *err, size_t errlen);
void list_free(char **items, int n);

/* Digits with an optional fraction and exponent ("0.25", "1e-3", ".5"):
 * no sign, space, hex, inf or nan, which strtod() would also take.  The one
 * test of what a decimal number is, for options and for files. */
bool num_is_decimal(const char *s);

/* Parse a comma list of numbers in range into a new array; returns the
 * count or -1 with a message. */
int num_parse_list(const char *what, const char *text, uint64_t min, uint64_t max,
		   uint64_t **out, char *err, size_t errlen);

/* Print "PROG: message" on stderr: the one diagnostic form. */
void msg_error(const char *prog, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
