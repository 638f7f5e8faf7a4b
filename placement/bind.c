/* Binding threads and processes, and asking where a thread runs now. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>

#include "placement.h"

/* CPU masks sized for the PU indices at hand, not glibc's fixed 1024. */
static cpu_set_t *mask_alloc(unsigned max_index, size_t *size)
{
	cpu_set_t *set = CPU_ALLOC(max_index + 1);

	if (!set)
		return NULL;
	*size = CPU_ALLOC_SIZE(max_index + 1);
	CPU_ZERO_S(*size, set);
	return set;
}

int pl_thread_bind(unsigned pu)
{
	size_t size;
	cpu_set_t *set = mask_alloc(pu, &size);
	int ret;

	if (!set)
		return -1;
	CPU_SET_S(pu, size, set);
	ret = sched_setaffinity(0, size, set);
	CPU_FREE(set);
	return ret;
}

cpu_set_t *pl_plan_cpuset(const struct pl_plan *plan, size_t *size)
{
	unsigned i, max = 0;
	cpu_set_t *set;

	*size = 0;
	if (!plan->bound) {
		errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < plan->nworkers; i++)
		if ((unsigned)plan->pu[i] > max)
			max = (unsigned)plan->pu[i];
	set = mask_alloc(max, size);
	for (i = 0; set && i < plan->nworkers; i++)
		CPU_SET_S((unsigned)plan->pu[i], *size, set);
	return set;
}

int pl_thread_get_cpu(void)
{
	return sched_getcpu();
}
