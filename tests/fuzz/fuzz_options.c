/*
 * Fuzz target: the option parser (src/lib/opt.c) on any command line, through
 * threadreport's real option table (its main, renamed) and a typed table of
 * every kind of row (flag, unsigned, u64, double with an optional value,
 * string, list, choice, choice through pointers, callback, action; short
 * only, long only) parsed by opt_parse(), whose stored values are checked
 * against the rows' ranges.  The input is the command line,
 * words separated by NUL bytes; operands are replaced by a small valid
 * results file so that the whole program runs.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* main runs once per input here: not the once-per-process stdio set-up
 * and its check at exit. */
#include "datafile.h"
#define datafile_stdio_init(prog) ((void)(prog))
#define main threadreport_main
#include "../../src/report/threadreport.c"
#undef main

static char file[] = "/tmp/fuzz_options_XXXXXX";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char rows[] = "workload,algorithm,backend,impl,threads,policy,rate,unit\n"
				   "w,a,b,i,1,compact,10,ops/s\nw,a,b,i,2,compact,19,ops/s\n";
	int null = open("/dev/null", O_WRONLY), fd = mkstemp(file);

	(void)argc;
	(void)argv;
	if (fd >= 0) {
		if (write(fd, rows, sizeof(rows) - 1) < 0)
			abort();
		close(fd);
	}
	/* stdout to /dev/null; stderr is closed by libFuzzer (-close_fd_mask=2),
	 * which keeps its own and the sanitizers' reports. */
	if (null >= 0) {
		dup2(null, 1);
		close(null);
	}
	return 0;
}

/* Every type of row: the values land in this struct, checked by opt.c. */
struct kinds {
	bool flag, seen;
	unsigned u;
	uint64_t big, *list;
	int nlist;
	double d, maybe;
	const char *text;
	const struct named *pick, *ptr;
	unsigned calls;
};

struct named {
	const char *name;
	int value;
};

static const struct named names[] = { { "one", 1 }, { "two", 2 }, { "three", 3 } };
static const struct named *const pointers[] = { &names[2], &names[0] };
static const size_t nnames = sizeof(names) / sizeof(names[0]);
static const size_t npointers = sizeof(pointers) / sizeof(pointers[0]);

static int count_call(const char *arg, void *opts, char *err, size_t errlen)
{
	if (arg && arg[0] == 'x') {
		snprintf(err, errlen, "call: '%s' refused", arg);
		return -1;
	}
	((struct kinds *)opts)->calls++;
	return 0;
}

static void help_made(char *buf, size_t len)
{
	opt_choice_names(&(struct opt_spec){ OPT_CHOICE(0, "c", "C", 0, names, &nnames, NULL) }, "|",
			 buf, len);
}

#define K(field) offsetof(struct kinds, field)
static const struct opt_spec kinds[] = {
	{ OPT_FLAG('a', "alpha", K(flag), "a flag"), .seen = OPT_SEEN(struct kinds, seen) },
	{ OPT_UNSIGNED('n', "number", "N", K(u), 1, 4096, "a value") },
	{ OPT_U64(0, "big", "N", K(big), 0, UINT64_MAX, "a long-only value") },
	{ OPT_DOUBLE('m', "maybe", "[=X]", K(maybe), 0.001, 1e6, "an optional value"),
	  .implied = 0.25 },
	{ OPT_LIST('l', "list", "LIST", K(list), K(nlist), 1, 1u << 20, "a list") },
	{ OPT_DOUBLE('d', "double", "S", K(d), 0.001, 1e6, "a fraction") },
	{ OPT_STRING('s', NULL, "X", K(text), "short only") },
	{ OPT_CHOICE('c', "choice", "C", K(pick), names, &nnames, NULL), .help_fn = help_made },
	{ OPT_CHOICE(0, "pointer", "P", K(ptr), pointers, &npointers, "a choice through pointers"),
	  .indirect = true },
	{ OPT_CALLBACK('k', "call", "V", count_call, "a callback") },
	{ OPT_ACTION('h', 'h', "help", "help") },
};

static void parse_kinds(int argc, char **argv)
{
	struct kinds k = { 0 };
	struct opt_parser p;
	char *config;
	int c;

	if (opt_init(&p, "fuzz", kinds, sizeof(kinds) / sizeof(kinds[0]), (unsigned)argc & 1) < 0)
		return;
	/* An action hands back its id; parsing goes on from there. */
	while ((c = opt_parse(&p, argc, argv, &k)) != OPT_END && c != OPT_ERROR)
		if (c == 'h')
			opt_help(&p, stdout, "[options]", NULL);
	/* What was stored is what the rows allow. */
	if ((k.u && (k.u < 1 || k.u > 4096)) || (k.nlist && !k.list) || k.nlist < 0 ||
	    (k.pick && (k.pick < names || k.pick >= names + nnames)) ||
	    (k.ptr && k.ptr != &names[0] && k.ptr != &names[2]) || (k.seen && !k.flag) ||
	    (k.d && (k.d < 0.001 || k.d > 1e6)))
		abort();
	/* Any command line's config is one line (the results' config column). */
	config = opt_config(&p, argc, argv);
	if (!config || strpbrk(config, "\n\r"))
		abort();
	free(config);
	free(k.list);
	opt_fini(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *argv[18], *w;
	int argc = 1;
	size_t i = 0;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	argv[0] = "fuzz";
	while (i <= size && argc < 17) {
		w = text + i;
		/* An operand is a file: always the valid one. */
		argv[argc++] = *w && *w != '-' ? file : w;
		i += strlen(w) + 1;
	}
	argv[argc] = NULL;
	parse_kinds(argc, argv);
	argv[0] = "threadreport";
	threadreport_main(argc, argv);
	fflush(stdout);
	free(text);
	return 0;
}
