/* Derived figures from performance counts (counts.h). */
#include <math.h>
#include <stdio.h>

#include "counts.h"

bool counts_scale(uint64_t value, uint64_t enabled, uint64_t running, double *scaled,
		  double *share)
{
	*share = 1.0;
	*scaled = (double)value;
	if (running >= enabled)
		return true;
	if (running == 0) {
		*share = 0.0;
		*scaled = 0.0;
		return false;
	}
	*share = (double)running / (double)enabled;
	*scaled = (double)value * ((double)enabled / (double)running);
	return true;
}

/* NUM / DEN when both are known and DEN is positive. */
static double ratio(double num, double den)
{
	return num >= 0 && den > 0 ? num / den : NAN;
}

void counts_derive(const struct counts_in *in, struct counts_derived *out)
{
	out->cycles_per_byte = ratio(in->cycles, in->bytes);
	out->cycles_per_op = ratio(in->cycles, in->ops);
	out->ipc = ratio(in->instructions, in->cycles);
	out->flops_per_cycle = ratio(in->flops, in->cycles);
}

double counts_change_pct(double a, double b)
{
	if (isnan(a) || isnan(b) || a == 0)
		return NAN;
	return 100.0 * (b - a) / a;
}

const char *counts_format(double v, char *buf, unsigned len)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.4g", v);
	return buf;
}
