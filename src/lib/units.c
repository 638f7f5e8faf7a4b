/* The rates' units (units.h). */
#include <string.h>

#include "units.h"

const struct unit_props units[UNIT_COUNT] = {
	[UNIT_BYTES_S] = { "bytes/s", COUNTED_BYTES, RC_BYTES, 1, "bytes processed per second",
			   "cycles per byte", "cyc/B" },
	[UNIT_OPS_S] = { "ops/s", COUNTED_OPS, RC_OPS, 1, "operations (a signature, a verification) per second",
			 "cycles per op", "cyc/op" },
	[UNIT_MFLOPS] = { "MFLOPS", COUNTED_FLOPS, RC_OPS, 1e6,
			  "millions of floating-point operations per second", "FLOPs per cycle", "FLOP/cyc" },
	[UNIT_RUNS_S] = { "runs/s", COUNTED_RUNS, RC_OPS, 1, "whole runs of a program per second (threadrun's own row)",
			  NULL, NULL },
	[UNIT_SIGN_S] = { "sign/s", COUNTED_OPS, RC_OPS, 1, "signatures made per second",
			  "cycles per op", "cyc/op" },
	[UNIT_VERIFY_S] = { "verify/s", COUNTED_OPS, RC_OPS, 1, "signatures verified per second",
			    "cycles per op", "cyc/op" },
	[UNIT_DERIVE_S] = { "derive/s", COUNTED_OPS, RC_OPS, 1, "shared secrets derived per second",
			    "cycles per op", "cyc/op" },
};

const struct unit_props *unit_find(const char *name)
{
	size_t i;

	for (i = 0; name && i < UNIT_COUNT; i++)
		if (!strcmp(name, units[i].name))
			return &units[i];
	return NULL;
}
