/*
 * One option table drives both parsing and --help, and one number parser
 * checks ranges, so every program words its errors the same way:
 *   threadrun: threads: 0 is out of range, allowed 1..4096
 */
#ifndef OPT_H
#define OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct opt_spec {
	int id;                 /* returned by opt_next(); a char for short options */
	char short_name;        /* 0 when there is only a long form */
	const char *long_name;
	const char *arg;        /* NULL for a flag; "X" for a value; "[=X]" optional */
	const char *help;
};

/* What opt_next() returns besides an option's id. */
enum { OPT_END = -1, OPT_ERROR = -2 };

struct opt_parser {
	const char *prog;
	const struct opt_spec *specs;
	size_t nspecs;
	char shorts[128];
	void *longs;            /* struct option[], built from specs */
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
