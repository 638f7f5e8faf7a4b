/* Failing an exit main did not make (exitguard.h). */
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "exitguard.h"

static const char *guard_prog;
static atomic_bool planned;
static char during[PATH_MAX + 128];

static void guard(void)
{
	if (atomic_load(&planned))
		return;
	/* What the run printed stays before the line. */
	fflush(stdout);
	fprintf(stderr, "%s: exit() called from inside a library or module%s%s%s, not by %s: the run failed\n",
		guard_prog, during[0] ? " (in " : "", during, during[0] ? ")" : "", guard_prog);
	_exit(1);
}

void exit_guard_arm(const char *prog)
{
	guard_prog = prog;
	atexit(guard);
}

void exit_guard_during(const char *what)
{
	snprintf(during, sizeof(during), "%s", what ? what : "");
}

int exit_guard_done(int status)
{
	atomic_store(&planned, true);
	return status;
}
