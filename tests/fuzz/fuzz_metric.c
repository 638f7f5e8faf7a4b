/*
 * Fuzz target: --metric's output tap (src/threadrun/metric.c) on any bytes
 * a program may print, cut into chunks of any size, on stdout or stderr:
 * line splitting at '\n' and '\r', the line bound, NUL bytes, captures that
 * are no number, lines that take a backtracking regex past the matcher's
 * limits (the last spec): each line's cost is bounded.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metric.h"

static const char *const specs[] = {
	"Triad=Triad: +([0-9.]+)", "^([0-9]*)$", "x=(a|(b))+([0-9])?", "rate ([^ ]*)",
	"b=v ([0-9]+)|^(x+x+)+y",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct metric_set s = { 0 };
	struct metric_tap *t = NULL;
	const char *value;
	char err[512], *why;
	size_t i, off, n, step;
	int out, errfd;

	if (size < 1)
		return 0;
	/* The first byte: the chunk size and which stream. */
	step = (data[0] & 0x7f) + 1;
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		if (metric_add(&s, specs[i], err, sizeof(err)) < 0)
			abort();
	if (metric_finish_setup(&s, NULL, 0, err, sizeof(err)) < 0)
		abort();
	t = metric_tap_open(&s, -1, -1, &out, &errfd, err, sizeof(err));
	if (!t)
		goto out;
	for (off = 1; off < size; off += n) {
		n = size - off < step ? size - off : step;
		if (write(data[0] & 0x80 ? errfd : out, data + off, n) != (ssize_t)n)
			abort();
	}
	metric_tap_close(t);
	for (i = 0; i < s.n; i++) {
		if (metric_value(&s.m[i], &value, &why) == 0) {
			if (!value || strtod(value, NULL) > 1e18)
				abort();
		} else {
			free(why);
		}
	}
out:
	metric_free(&s);
	return 0;
}
