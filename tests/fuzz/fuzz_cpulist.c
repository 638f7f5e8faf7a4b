/* Fuzz target: CPU lists and policy names (placement/policy.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "placement.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = strndup((const char *)data, size), err[512], name[256];
	struct pl_policy policy;
	unsigned *list = NULL;

	if (!text)
		return 0;
	if (pl_cpulist_parse(text, &list, err, sizeof(err)) >= 0)
		free(list);
	if (pl_policy_parse(text, &policy, err, sizeof(err)) == 0) {
		pl_policy_name(&policy, name, sizeof(name));
		pl_policy_clear(&policy);
	}
	free(text);
	return 0;
}
