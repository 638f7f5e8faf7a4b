/*
 * Fuzz target: threadreport's outputs on whatever a results file holds —
 * the USL fits, cutoffs, speedups and every format (text, markdown, csv,
 * tsv, raw, json, --cutoffs).  The first byte picks the format and flags;
 * the rest is the file.
 * threadreport.c is compiled in with its main renamed; its output goes to
 * /dev/null.
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

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int null = open("/dev/null", O_WRONLY);

	(void)argc;
	(void)argv;
	/* stdout to /dev/null; stderr is closed by libFuzzer (-close_fd_mask=2),
	 * which keeps its own and the sanitizers' reports. */
	if (null >= 0) {
		dup2(null, 1);
		close(null);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const fmts[] = { "text", "markdown", "csv", "tsv", "json" };
	char path[] = "/tmp/fuzz_report_XXXXXX";
	char *argv[8];
	int fd, argc = 0;

	if (size < 1)
		return 0;
	fd = mkstemp(path);
	if (fd < 0)
		return 0;
	if (write(fd, data + 1, size - 1) == (ssize_t)(size - 1)) {
		argv[argc++] = "threadreport";
		argv[argc++] = "-f";
		argv[argc++] = (char *)fmts[data[0] % 5];
		if (data[0] & 0x80)
			argv[argc++] = "--raw";
		if (data[0] & 0x40)
			argv[argc++] = "--cutoffs";
		argv[argc++] = path;
		argv[argc] = NULL;
		threadreport_main(argc, argv);
		fflush(stdout);
	}
	close(fd);
	unlink(path);
	return 0;
}
