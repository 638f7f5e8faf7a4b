/* launcher_detect: a table of launcher environments, as Open MPI, Slurm
 * (steps and batch scripts), MPICH's Hydra, srun's PMI plugins, PMIx and
 * threadrun-mpi export them, and broken ones: each is a rank, no launcher,
 * or ignored with one line naming what is wrong. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "launcher.h"
#include "runenv.h"

#define MAXVARS 16

struct env_case {
	const char *name;
	const char *vars[MAXVARS];      /* "NAME=VALUE" */
	int rc;                         /* 1 rank, 0 none, -1 ignored */
	const char *launcher, *job;     /* NULL: none */
	long rank, ranks, local_rank;
	const char *warn;               /* a part of the warning (rc -1) */
};

/* Bigger than any job id may be. */
static char long_job[LAUNCHER_JOB_MAX + 128];
static char long_var[sizeof("PMIX_NAMESPACE=") + sizeof(long_job)];

static const char *const *current;

static const char *table_getenv(const char *name)
{
	size_t n = strlen(name);
	int i;

	for (i = 0; i < MAXVARS && current[i]; i++)
		if (!strncmp(current[i], name, n) && current[i][n] == '=')
			return current[i] + n + 1;
	return NULL;
}

#define OMPI(r, s, l) "OMPI_COMM_WORLD_RANK=" #r, "OMPI_COMM_WORLD_SIZE=" #s, \
	"OMPI_COMM_WORLD_LOCAL_RANK=" #l
#define STEP(r, s, l) "SLURM_JOB_ID=4242", "SLURM_STEP_ID=0", "SLURM_PROCID=" #r, \
	"SLURM_STEP_NUM_TASKS=" #s, "SLURM_LOCALID=" #l
#define BATCH "SLURM_JOB_ID=4242", "SLURM_PROCID=0", "SLURM_LOCALID=0", "SLURM_NODEID=0"

static const struct env_case cases[] = {
	{ "no launcher", { "HOME=/root" }, 0, NULL, NULL, -1, -1, -1, NULL },
	{ "Open MPI 4 mpirun", { OMPI(1, 2, 1), "OMPI_COMM_WORLD_LOCAL_SIZE=2",
				 "PMIX_NAMESPACE=1797259265", "PMIX_RANK=1" },
	  1, "openmpi", "1797259265", 1, 2, 1, NULL },
	{ "Open MPI without PMIx: no job", { OMPI(0, 1, 0) }, 1, "openmpi", NULL, 0, 1, 0, NULL },
	{ "Slurm step", { STEP(3, 4, 1), "SLURM_NODEID=1" }, 1, "slurm", "4242.0", 3, 4, 1, NULL },
	{ "Slurm batch script: not a rank", { BATCH }, -1, NULL, NULL, -1, -1, -1,
	  "a batch script is no rank" },
	{ "Slurm step id without a task count", { "SLURM_JOB_ID=7", "SLURM_STEP_ID=1",
						  "SLURM_PROCID=0" },
	  -1, NULL, NULL, -1, -1, -1, "SLURM_STEP_NUM_TASKS" },
	{ "srun --mpi=pmix", { STEP(1, 2, 0), "PMIX_RANK=1", "PMIX_NAMESPACE=slurm.pmix.4242.0" },
	  1, "slurm", "4242.0", 1, 2, 0, NULL },
	{ "srun --mpi=pmi2", { STEP(1, 2, 1), "PMI_RANK=1", "PMI_SIZE=2", "PMI_FD=5",
			       "PMI_JOBID=4242.0" },
	  1, "slurm", "4242.0", 1, 2, 1, NULL },
	{ "MPICH Hydra", { "PMI_RANK=2", "PMI_SIZE=3", "PMI_FD=6", "MPI_LOCALRANKID=2",
			   "MPI_LOCALNRANKS=3" },
	  1, "mpich", NULL, 2, 3, 2, NULL },
	{ "Hydra inside a Slurm step of its proxies: still mpich", { STEP(1, 2, 0), "PMI_RANK=1",
	  "PMI_SIZE=2", "MPI_LOCALRANKID=0", "MPI_LOCALNRANKS=1" },
	  1, "mpich", NULL, 1, 2, 0, NULL },
	{ "PMIx alone", { "PMIX_RANK=5", "PMIX_NAMESPACE=prterun-h-77@1" },
	  1, "pmix", "prterun-h-77@1", 5, -1, -1, NULL },
	{ "mpirun inside sbatch, the batch node", { OMPI(1, 2, 1), "PMIX_NAMESPACE=99", BATCH },
	  1, "openmpi", "99", 1, 2, 1, NULL },
	/* mpirun's daemons run as a step of one task per node: rank 1 of 2
	 * on node 1 looks like task 1 of 2, but the launcher is mpirun. */
	{ "mpirun inside sbatch, a daemon's step", { OMPI(1, 2, 0), "PMIX_NAMESPACE=99",
						    STEP(1, 2, 0) },
	  1, "openmpi", "99", 1, 2, 0, NULL },
	{ "a PMIx launcher inside sbatch", { BATCH, "PMIX_RANK=0", "PMIX_NAMESPACE=n" },
	  1, "pmix", "n", 0, -1, -1, NULL },
	/* PRRTE's daemons (Open MPI 5's mpirun) in a Slurm allocation. */
	{ "a Slurm step that disagrees stays pmix", { STEP(0, 2, 0), "PMIX_RANK=1",
						      "PMIX_NAMESPACE=n" },
	  1, "pmix", "n", 1, -1, -1, NULL },
	{ "a Slurm step that disagrees stays mpich", { STEP(0, 2, 0), "PMI_RANK=1", "PMI_SIZE=2" },
	  1, "mpich", NULL, 1, 2, -1, NULL },
	{ "srun without an MPI plugin", { STEP(0, 1, 0) }, 1, "slurm", "4242.0", 0, 1, 0, NULL },
	{ "rank = size", { OMPI(2, 2, 0) }, -1, NULL, NULL, -1, -1, -1,
	  "rank 2 is not below its size 2" },
	{ "rank > size (Slurm)", { STEP(9, 4, 0) }, -1, NULL, NULL, -1, -1, -1,
	  "rank 9 is not below its size 4" },
	{ "size 0", { "PMI_RANK=0", "PMI_SIZE=0" }, -1, NULL, NULL, -1, -1, -1,
	  "not below its size 0" },
	{ "local rank = size", { OMPI(0, 2, 2) }, -1, NULL, NULL, -1, -1, -1,
	  "local rank 2 is not below its size 2" },
	{ "local rank = local size", { OMPI(1, 4, 1), "OMPI_COMM_WORLD_LOCAL_SIZE=1" },
	  -1, NULL, NULL, -1, -1, -1, "OMPI_COMM_WORLD_LOCAL_RANK=1 is not below OMPI_COMM_WORLD_LOCAL_SIZE=1" },
	{ "not a number", { "OMPI_COMM_WORLD_RANK=one", "OMPI_COMM_WORLD_SIZE=2" },
	  -1, NULL, NULL, -1, -1, -1, "OMPI_COMM_WORLD_RANK=one is not a number" },
	{ "a sign", { "PMI_RANK=+1", "PMI_SIZE=2" }, -1, NULL, NULL, -1, -1, -1,
	  "PMI_RANK=+1 is not a number" },
	{ "negative", { "PMIX_RANK=-1" }, -1, NULL, NULL, -1, -1, -1, "PMIX_RANK=-1 is not" },
	{ "a space", { "PMI_RANK= 1" }, -1, NULL, NULL, -1, -1, -1, "PMI_RANK= 1 is not" },
	{ "a fraction", { "SLURM_JOB_ID=1", "SLURM_STEP_ID=0", "SLURM_PROCID=0.5",
			  "SLURM_STEP_NUM_TASKS=2" },
	  -1, NULL, NULL, -1, -1, -1, "SLURM_PROCID=0.5 is not a number" },
	{ "huge rank", { "OMPI_COMM_WORLD_RANK=99999999999999999999", "OMPI_COMM_WORLD_SIZE=2" },
	  -1, NULL, NULL, -1, -1, -1, "is not a number 0..16777215" },
	{ "huge size", { "OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=16777217" },
	  -1, NULL, NULL, -1, -1, -1, "OMPI_COMM_WORLD_SIZE=16777217 is not a number 0..16777216" },
	{ "a line break in a number stays on one line", { "PMI_RANK=1\nx" },
	  -1, NULL, NULL, -1, -1, -1, "PMI_RANK=1\\nx is not" },
	{ "a job id with a control character", { OMPI(0, 2, 0), "PMIX_NAMESPACE=a\033[2Jb" },
	  -1, NULL, NULL, -1, -1, -1, "PMIX_NAMESPACE='a\\x1b[2Jb' (6 bytes) is not a job id" },
	{ "a job id with a space", { "PMIX_RANK=0", "PMIX_NAMESPACE=a b" },
	  -1, NULL, NULL, -1, -1, -1, "is not a job id" },
	{ "a job id of 320 bytes", { "PMIX_RANK=0", long_var }, -1, NULL, NULL, -1, -1, -1,
	  "(320 bytes) is not a job id of 1..256" },
	{ "a Slurm job id with a line break", { "SLURM_JOB_ID=1\n2", "SLURM_STEP_ID=0",
						"SLURM_PROCID=0", "SLURM_STEP_NUM_TASKS=1" },
	  -1, NULL, NULL, -1, -1, -1, "SLURM_JOB_ID.SLURM_STEP_ID='1\\n2.0'" },
	{ "empty rank: unset", { "OMPI_COMM_WORLD_RANK=", "OMPI_COMM_WORLD_SIZE=2" },
	  0, NULL, NULL, -1, -1, -1, NULL },
	{ "empty size: unknown", { "OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=" },
	  1, "openmpi", NULL, 1, -1, -1, NULL },
	{ "empty job: none", { OMPI(0, 2, 0), "PMIX_NAMESPACE=" }, 1, "openmpi", NULL, 0, 2, 0, NULL },
	{ "leading zeros", { "PMI_RANK=007", "PMI_SIZE=010" }, 1, "mpich", NULL, 7, 10, -1, NULL },
	/* threadrun-mpi knows the job from MPI itself. */
	{ "threadrun-mpi fills the size and job", { "PMIX_RANK=1", "THREADRUN_RANK=1",
						    "THREADRUN_RANKS=2", "THREADRUN_JOB=j7" },
	  1, "pmix", "j7", 1, 2, -1, NULL },
	{ "threadrun-mpi keeps the launcher's job", { OMPI(1, 2, 1), "PMIX_NAMESPACE=99",
						      "THREADRUN_JOB=other", "THREADRUN_RANK=1" },
	  1, "openmpi", "99", 1, 2, 1, NULL },
	{ "threadrun-mpi alone", { "THREADRUN_RANK=0", "THREADRUN_RANKS=3", "THREADRUN_JOB=h:1" },
	  1, "mpi", "h:1", 0, 3, -1, NULL },
	{ "threadrun-mpi's rank in a batch script", { BATCH, "THREADRUN_RANK=1",
						      "THREADRUN_RANKS=2" },
	  1, "mpi", NULL, 1, 2, -1, NULL },
	{ "threadrun-mpi contradicts the rank", { OMPI(1, 2, 1), "THREADRUN_RANK=0" },
	  -1, NULL, NULL, -1, -1, -1, "THREADRUN_RANK=0 contradicts the openmpi launcher's rank (1)" },
	{ "threadrun-mpi contradicts the size", { STEP(1, 2, 1), "THREADRUN_RANKS=3" },
	  -1, NULL, NULL, -1, -1, -1, "THREADRUN_RANKS=3 contradicts the slurm launcher's size (2)" },
	{ "threadrun-mpi's rank not below its size", { "THREADRUN_RANK=3", "THREADRUN_RANKS=3" },
	  -1, NULL, NULL, -1, -1, -1, "the mpi launcher's rank 3 is not below its size 3" },
	{ "threadrun-mpi's bad rank", { "THREADRUN_RANK=x" }, -1, NULL, NULL, -1, -1, -1,
	  "THREADRUN_RANK=x is not a number" },
	{ "threadrun-mpi's size without a rank", { "THREADRUN_RANKS=2" }, -1, NULL, NULL, -1, -1, -1,
	  "gives no rank" },
	{ "a job alone is no rank", { "THREADRUN_JOB=j" }, 0, NULL, NULL, -1, -1, -1, NULL },
	{ "threadrun-mpi's job with a tab", { "THREADRUN_RANK=0", "THREADRUN_JOB=a\tb" },
	  -1, NULL, NULL, -1, -1, -1, "THREADRUN_JOB='a\\tb'" },
};

static void one(const struct env_case *c)
{
	struct launcher_id id;
	char warn[512];
	int rc;

	current = c->vars;
	memset(warn, 'x', sizeof(warn));
	rc = launcher_detect(table_getenv, &id, warn, sizeof(warn));
	if (rc != c->rc)
		fail_msg("%s: rc %d, want %d (%s)", c->name, rc, c->rc, warn);
	if ((c->launcher == NULL) != (id.launcher == NULL) ||
	    (c->launcher && strcmp(c->launcher, id.launcher)))
		fail_msg("%s: launcher %s, want %s", c->name, id.launcher ? id.launcher : "none",
			 c->launcher ? c->launcher : "none");
	if ((c->job == NULL) != (id.job == NULL) || (c->job && strcmp(c->job, id.job)))
		fail_msg("%s: job %s, want %s", c->name, id.job ? id.job : "none",
			 c->job ? c->job : "none");
	if (id.rank != c->rank || id.ranks != c->ranks || id.local_rank != c->local_rank)
		fail_msg("%s: rank %ld of %ld, local %ld; want %ld of %ld, local %ld", c->name,
			 id.rank, id.ranks, id.local_rank, c->rank, c->ranks, c->local_rank);
	if (c->rc == -1 && !strstr(warn, c->warn))
		fail_msg("%s: warning '%s' lacks '%s'", c->name, warn, c->warn);
	if (c->rc >= 0 && warn[0])
		fail_msg("%s: a warning for a good environment: '%s'", c->name, warn);
	if (strchr(warn, '\n') || strchr(warn, '\033') || strchr(warn, '\t'))
		fail_msg("%s: the warning is not one plain line: '%s'", c->name, warn);
	launcher_id_clear(&id);
}

static void table_case(void **state)
{
	one(*state);
}

/* A job id of exactly the limit is one; a warning that does not fit its
 * buffer is cut, never overrun. */
static void limits(void **state)
{
	const char *vars[] = { "PMIX_RANK=0", long_var, NULL };
	struct launcher_id id;
	char warn[16];

	(void)state;
	memset(long_job, 'j', LAUNCHER_JOB_MAX);
	long_job[LAUNCHER_JOB_MAX] = '\0';
	snprintf(long_var, sizeof(long_var), "PMIX_NAMESPACE=%s", long_job);
	current = vars;
	assert_int_equal(launcher_detect(table_getenv, &id, warn, sizeof(warn)), 1);
	assert_int_equal(strlen(id.job), LAUNCHER_JOB_MAX);
	launcher_id_clear(&id);
	vars[0] = "PMIX_RANK=x";
	assert_int_equal(launcher_detect(table_getenv, &id, warn, sizeof(warn)), -1);
	assert_int_equal(strlen(warn), sizeof(warn) - 1);
	assert_null(id.launcher);
	assert_null(id.job);
}

/* The kernel's own list of this process's PUs ("0-3,8"): a new string. */
static char *kernel_list(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[4096], *list = NULL;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Cpus_allowed_list:", 18)) {
			list = strndup(line + 18 + strspn(line + 18, " \t"),
				       strcspn(line + 18 + strspn(line + 18, " \t"), "\n"));
			break;
		}
	if (f)
		fclose(f);
	return list;
}

/* run_env_identify: the environment's launcher, and the PUs given as one
 * compact list, from THREADRUN_CPUSET or the process's affinity. */
static void identify(void **state)
{
	struct launcher_id id;
	char *cpuset, *own = kernel_list();

	(void)state;
	if (!own)
		skip();
	setenv("OMPI_COMM_WORLD_RANK", "1", 1);
	setenv("OMPI_COMM_WORLD_SIZE", "3", 1);
	setenv("PMIX_NAMESPACE", "ns", 1);
	setenv(ENV_CPUSET, "8,0-3,2,3", 1);
	assert_int_equal(run_env_identify(&id, &cpuset, true), 0);
	assert_string_equal(id.launcher, "openmpi");
	assert_string_equal(id.job, "ns");
	assert_int_equal(id.rank, 1);
	assert_int_equal(id.ranks, 3);
	assert_string_equal(cpuset, "0-3,8");
	run_env_identity_free(&id, &cpuset);
	assert_null(id.job);
	assert_null(cpuset);

	/* threadrun reads its own affinity, whatever it inherited. */
	assert_int_equal(run_env_identify(&id, &cpuset, false), 0);
	assert_string_equal(cpuset, own);
	run_env_identity_free(&id, &cpuset);
	setenv(ENV_CPUSET, "7-5", 1);
	assert_int_equal(run_env_identify(&id, &cpuset, true), 0);
	assert_string_equal(cpuset, "5-7");
	run_env_identity_free(&id, &cpuset);
	/* Not a list: the process's own (and one warning). */
	setenv(ENV_CPUSET, "0-x", 1);
	assert_int_equal(run_env_identify(&id, &cpuset, true), 0);
	assert_string_equal(cpuset, own);
	run_env_identity_free(&id, &cpuset);
	setenv(ENV_CPUSET, "", 1);
	assert_int_equal(run_env_identify(&id, &cpuset, true), 0);
	assert_string_equal(cpuset, own);
	run_env_identity_free(&id, &cpuset);

	/* A bad environment is none. */
	setenv("OMPI_COMM_WORLD_RANK", "3", 1);
	assert_int_equal(run_env_identify(&id, &cpuset, true), 0);
	assert_null(id.launcher);
	assert_null(id.job);
	assert_int_equal(id.rank, -1);
	run_env_identity_free(&id, &cpuset);
	unsetenv("OMPI_COMM_WORLD_RANK");
	unsetenv("OMPI_COMM_WORLD_SIZE");
	unsetenv("PMIX_NAMESPACE");
	unsetenv(ENV_CPUSET);
	free(own);
}

int main(void)
{
	const size_t n = sizeof(cases) / sizeof(cases[0]);
	struct CMUnitTest tests[sizeof(cases) / sizeof(cases[0]) + 2];
	size_t i;

	memset(long_job, 'j', 320);
	long_job[320] = '\0';
	snprintf(long_var, sizeof(long_var), "PMIX_NAMESPACE=%s", long_job);
	/* One test per environment, named by it. */
	for (i = 0; i < n; i++)
		tests[i] = (struct CMUnitTest){ .name = cases[i].name, .test_func = table_case,
						.initial_state = (void *)&cases[i] };
	tests[n] = (struct CMUnitTest){ .name = "limits", .test_func = limits };
	tests[n + 1] = (struct CMUnitTest){ .name = "identify", .test_func = identify };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
