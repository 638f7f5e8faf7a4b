/* Fuzz target: numbers with ranges and number lists (src/lib/opt.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = strndup((const char *)data, size), err[512];
	uint64_t v, *list = NULL;
	double d;

	if (!text)
		return 0;
	num_parse_u64("n", text, 1, UINT64_MAX, &v, err, sizeof(err));
	num_parse_u64("n", text, 0, 4096, &v, err, sizeof(err));
	num_parse_double("s", text, 0.001, 1e6, &d, err, sizeof(err));
	if (num_parse_list("size", text, 1, 1u << 26, &list, err, sizeof(err)) >= 0)
		free(list);
	free(text);
	return 0;
}
