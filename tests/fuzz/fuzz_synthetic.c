/*
 * Fuzz target: hwloc synthetic topology strings through the placement
 * library, and plans on whatever loads (placement/topology.c, plan.c).
 * Inputs that would name a file (a '/', ".xml") are left out: they would
 * read the machine's files, not exercise the parser.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan_all.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (size > 200)
		return 0;
	text = strndup((const char *)data, size);
	if (text && *text && !strchr(text, '/') && !strstr(text, ".xml"))
		plan_all(text);
	free(text);
	return 0;
}
