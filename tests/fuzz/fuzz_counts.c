/* Fuzz target: sweep thread-count lists and policy lists (src/threadrun/sweep.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = strndup((const char *)data, size), err[512];
	struct pl_policy *pols = NULL;
	unsigned *counts = NULL;
	int n;

	if (!text)
		return 0;
	if (sweep_parse_counts(text, &counts, err, sizeof(err)) >= 0)
		free(counts);
	n = sweep_parse_policies(text, &pols, err, sizeof(err));
	while (n > 0)
		pl_policy_clear(&pols[--n]);
	free(pols);
	free(text);
	return 0;
}
