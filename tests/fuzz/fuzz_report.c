/*
 * Fuzz target: threadreport's outputs on whatever a results file holds —
 * the USL fits, cutoffs, speedups, cluster measurements and every format
 * (text, markdown, csv, tsv, raw, json, --cutoffs, --compare, --cluster,
 * --hosts).  The first byte picks the format and flags; the rest is the
 * file.  Bits 0x60: 0x40 --cutoffs, 0x60 --compare-by backend, 0x20
 * --compare, the second file being the same text from its second line on
 * (so its header is the first file's first row); with none of them, the
 * low five bits 5..9 add --cluster, 10..14 --hosts and 15..19 --summary.
 * With bit 0x20 the bytes are also read as cutoff points (5 bytes each) for
 * cutoffs_compute, whose answers must keep its promises: pairs within one
 * family and config, a before b, two sizes or more, in order.
 * threadreport.c is compiled in with its main renamed; its output goes to
 * /dev/null.
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

static void cutoff_points_fuzz(const uint8_t *data, size_t size)
{
	size_t n = size / 5, i, ncut;
	struct cutoff_point *p = calloc(n ? n : 1, sizeof(*p));
	struct cutoff *c = NULL;

	if (!p)
		return;
	for (i = 0; i < n; i++, data += 5)
		p[i] = (struct cutoff_point){ data[0] % 3, data[1] % 3, data[2] % 4, i,
			data[3] == 255 ? NAN : (double)data[3] * 16, (double)data[4] };
	if (cutoffs_compute(p, n, &c, &ncut) == 0)
		for (i = 0; i < ncut; i++) {
			const struct cutoff *x = &c[i];

			if (x->sizes < 2 || x->backend_a >= x->backend_b || !(x->min_size < x->max_size) ||
			    p[x->tag_a].family != x->family || p[x->tag_b].family != x->family ||
			    p[x->tag_a].config != x->config || p[x->tag_b].config != x->config ||
			    p[x->tag_a].backend != x->backend_a || p[x->tag_b].backend != x->backend_b ||
			    (x->found && !(x->cut >= x->min_size && x->cut <= x->max_size)) ||
			    (i && x->family == c[i - 1].family && x->backend_a == c[i - 1].backend_a &&
			     x->backend_b == c[i - 1].backend_b && x->config <= c[i - 1].config))
				abort();
		}
	free(c);
	free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const fmts[] = { "text", "markdown", "csv", "tsv", "json" };
	char path[] = "/tmp/fuzz_report_XXXXXX", path2[] = "/tmp/fuzz_report_XXXXXX";
	const uint8_t *nl;
	char *argv[10];
	int fd, fd2 = -1, argc = 0;

	if (size < 1)
		return 0;
	if (data[0] & 0x20)
		cutoff_points_fuzz(data + 1, size - 1);
	fd = mkstemp(path);
	if (fd < 0)
		return 0;
	if (write(fd, data + 1, size - 1) == (ssize_t)(size - 1)) {
		argv[argc++] = "threadreport";
		argv[argc++] = "-f";
		argv[argc++] = (char *)fmts[data[0] % 5];
		if (data[0] & 0x80)
			argv[argc++] = "--raw";
		if ((data[0] & 0x60) == 0x40)
			argv[argc++] = "--cutoffs";
		if ((data[0] & 0x60) == 0 && (data[0] & 0x1f) / 5 == 1)
			argv[argc++] = "--cluster";
		if ((data[0] & 0x60) == 0 && (data[0] & 0x1f) / 5 == 2)
			argv[argc++] = "--hosts";
		if ((data[0] & 0x60) == 0 && (data[0] & 0x1f) / 5 == 3)
			argv[argc++] = "--summary";
		if ((data[0] & 0x60) == 0x60) {
			argv[argc++] = "--compare-by";
			argv[argc++] = "backend";
		}
		if ((data[0] & 0x60) == 0x20) {
			nl = memchr(data + 1, '\n', size - 1);
			nl = nl ? nl + 1 : data + size;
			fd2 = mkstemp(path2);
			if (fd2 < 0 || write(fd2, nl, (size_t)(data + size - nl)) != data + size - nl)
				goto out;
			argv[argc++] = "--compare";
		}
		argv[argc++] = path;
		if (fd2 >= 0)
			argv[argc++] = path2;
		argv[argc] = NULL;
		threadreport_main(argc, argv);
		fflush(stdout);
	}
out:
	if (fd2 >= 0) {
		close(fd2);
		unlink(path2);
	}
	close(fd);
	unlink(path);
	return 0;
}
