/*
 * Fuzz target: the option parser (src/lib/opt.c) on any command line, through
 * threadreport's real option table (its main, renamed) and a table of every
 * kind of option (flag, value, optional value, short only, long only) whose
 * values go through every number parser.  The input is the command line,
 * words separated by NUL bytes; operands are replaced by a small valid
 * results file so that the whole program runs.
 */
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

static const struct opt_spec kinds[] = {
	{ 'a', 'a', "alpha", NULL, "a flag" },
	{ 'n', 'n', "number", "N", "a value" },
	{ 'm', 0, "maybe", "[=X]", "an optional value" },
	{ 'l', 0, "list", "LIST", "a list" },
	{ 'd', 'd', "double", "S", "a fraction" },
	{ 's', 's', NULL, "X", "short only" },
};

static void parse_kinds(int argc, char **argv)
{
	struct opt_parser p;
	const char *arg;
	uint64_t u, *list = NULL;
	unsigned v;
	double d;
	char err[512];
	int c;

	if (opt_init(&p, "fuzz", kinds, sizeof(kinds) / sizeof(kinds[0]), (unsigned)argc & 1) < 0)
		return;
	while ((c = opt_next(&p, argc, argv, &arg)) != OPT_END && c != OPT_ERROR) {
		if (!arg)
			continue;
		num_parse_u64("n", arg, 0, UINT64_MAX, &u, err, sizeof(err));
		num_parse_unsigned("n", arg, 1, 4096, &v, err, sizeof(err));
		num_parse_double("d", arg, 0.001, 1e6, &d, err, sizeof(err));
		if (num_parse_list("l", arg, 1, 1u << 20, &list, err, sizeof(err)) >= 0)
			free(list);
		list = NULL;
	}
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
