/* Which rank of a parallel job this is, from the launcher's environment. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "launcher.h"

/* Ranks of one job: far beyond any cluster, small enough for any count. */
#define MAX_RANKS (1L << 24)

/* What each launcher exports to every process it starts, most specific
 * first, Slurm last: an MPI or PMIx launcher run inside a Slurm allocation
 * starts its daemons as a Slurm step, whose SLURM_PROCID numbers nodes,
 * not ranks. */
struct launcher_vars {
	const char *name;
	const char *rank, *size, *local;        /* size, local: NULL when not exported */
	const char *local_size;                 /* checked only; NULL when not exported */
	const char *job;                        /* NULL when not exported */
	/* srun starts such processes itself (--mpi=pmix, --mpi=pmi2): a Slurm
	 * step that agrees is the launcher to name.  Never Open MPI's
	 * OMPI_COMM_WORLD_* (only mpirun's daemons export them), never Hydra
	 * (MPI_LOCALRANKID: srun's PMI plugins export no local rank). */
	bool under_srun;
};

static const struct launcher_vars launchers[] = {
	{ "openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
	  "OMPI_COMM_WORLD_LOCAL_SIZE", "PMIX_NAMESPACE", false },
	{ "mpich", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS", "PMI_JOBID", true },
	{ "pmix", "PMIX_RANK", NULL, NULL, NULL, "PMIX_NAMESPACE", true },
	{ "slurm", "SLURM_PROCID", "SLURM_STEP_NUM_TASKS", "SLURM_LOCALID", NULL, NULL, false },
};

#define SLURM (&launchers[3])

/* read_launcher(): Slurm's variables without a job step (a batch script). */
#define NO_STEP -3

struct reader {
	launcher_getenv_fn get;
	char *warn;
	size_t warnlen;
};

/* Empty counts as unset, as for every THREADRUN_ variable. */
static const char *value(const struct reader *r, const char *name)
{
	const char *v = name ? r->get(name) : NULL;

	return v && *v ? v : NULL;
}

/* V for a message (esc_text), cut to the 48 bytes of BUF: a value never
 * splits the one line of a warning. */
static const char *shown(const char *v, char buf[48])
{
	return esc_text(v, buf, 48);
}

/* NAME's value as a count below MAX, -1 when unset; -2 (with the warning)
 * when it is set to anything else. */
static long count(const struct reader *r, const char *name, long max)
{
	const char *v = value(r, name);
	char buf[48];
	long n;

	if (!v)
		return -1;
	n = strspn(v, "0123456789") == strlen(v) && strlen(v) <= 9 ? strtol(v, NULL, 10) : -1;
	if (n < 0 || n >= max) {
		snprintf(r->warn, r->warnlen, "%s=%s is not a number 0..%ld", name, shown(v, buf),
			 max - 1);
		return -2;
	}
	return n;
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x21 || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

/* A job id goes into every row: 1..LAUNCHER_JOB_MAX printable characters. */
static int job_copy(const struct reader *r, const char *name, const char *job, char **out)
{
	char buf[48];

	if (strlen(job) > LAUNCHER_JOB_MAX || !printable(job)) {
		snprintf(r->warn, r->warnlen, "%s='%s' (%zu bytes) is not a job id of 1..%d printable characters",
			 name, shown(job, buf), strlen(job), LAUNCHER_JOB_MAX);
		return -1;
	}
	return (*out = strdup(job)) ? 0 : -2;
}

/* A Slurm step's job id, "JOB.STEP"; a batch script has no step. */
static int slurm_job(const struct reader *r, char **job)
{
	const char *j = value(r, "SLURM_JOB_ID"), *s = value(r, "SLURM_STEP_ID");
	char *both;
	int rc;

	if (!j || !s || !value(r, "SLURM_STEP_NUM_TASKS")) {
		snprintf(r->warn, r->warnlen,
			 "SLURM_PROCID is set without a job step (SLURM_JOB_ID, SLURM_STEP_ID, SLURM_STEP_NUM_TASKS): a batch script is no rank; run the program under srun");
		return NO_STEP;
	}
	if (asprintf(&both, "%s.%s", j, s) < 0)
		return -2;
	rc = job_copy(r, "SLURM_JOB_ID.SLURM_STEP_ID", both, job);
	free(both);
	return rc;
}

/* Read launcher L: 1 found, 0 not this one, -1 bad (warned), -2 memory,
 * NO_STEP a Slurm batch script (warned). */
static int read_launcher(const struct reader *r, const struct launcher_vars *l,
			 struct launcher_id *id)
{
	const char *job;
	long local_size;
	int rc;

	if (!value(r, l->rank))
		return 0;
	id->launcher = l->name;
	if (l == SLURM && (rc = slurm_job(r, &id->job)) < 0)
		return rc;
	if ((id->rank = count(r, l->rank, MAX_RANKS)) < 0 ||
	    (id->ranks = count(r, l->size, MAX_RANKS + 1)) == -2 ||
	    (id->local_rank = count(r, l->local, MAX_RANKS)) == -2 ||
	    (local_size = count(r, l->local_size, MAX_RANKS + 1)) == -2)
		return -1;
	if (local_size >= 0 && id->local_rank >= local_size) {
		snprintf(r->warn, r->warnlen, "%s=%ld is not below %s=%ld", l->local, id->local_rank,
			 l->local_size, local_size);
		return -1;
	}
	job = value(r, l->job);
	if (job && !id->job && (rc = job_copy(r, l->job, job, &id->job)) < 0)
		return rc;
	return 1;
}

/* THREADRUN_JOB/_RANK/_RANKS (threadrun-mpi's, from MPI itself) fill what
 * the launcher left out; a rank or size must agree with the launcher's. */
static int add_threadrun_mpi(const struct reader *r, struct launcher_id *id)
{
	static const char *const names[] = { ENV_RANK, ENV_RANKS };
	long *fields[] = { &id->rank, &id->ranks };
	const char *job = value(r, ENV_JOB);
	long v;
	int i;

	for (i = 0; i < 2; i++) {
		v = count(r, names[i], i ? MAX_RANKS + 1 : MAX_RANKS);
		if (v == -2)
			return -1;
		if (v < 0)
			continue;
		if (*fields[i] >= 0 && *fields[i] != v) {
			snprintf(r->warn, r->warnlen, "%s=%ld contradicts the %s launcher's %s (%ld)",
				 names[i], v, id->launcher, i ? "size" : "rank", *fields[i]);
			return -1;
		}
		*fields[i] = v;
		if (!id->launcher)
			id->launcher = "mpi";
	}
	if (job && id->launcher && !id->job)
		return job_copy(r, ENV_JOB, job, &id->job);
	return 0;
}

/* The Slurm step that started an MPI launcher's process as one of its own
 * tasks (srun --mpi=pmix or pmi2) is the launcher to name. */
static int prefer_slurm(const struct reader *r, const struct launcher_vars *l,
			struct launcher_id *id)
{
	struct launcher_id s = { .rank = -1, .ranks = -1, .local_rank = -1 };
	char warn[8];
	struct reader quiet = { r->get, warn, sizeof(warn) };
	int rc;

	if (!l || !l->under_srun || id->local_rank >= 0)
		return 0;
	rc = read_launcher(&quiet, SLURM, &s);
	if (rc == 1 && s.rank == id->rank && (id->ranks < 0 || s.ranks == id->ranks)) {
		free(id->job);
		id->job = s.job;
		s.job = NULL;
		id->launcher = SLURM->name;
		id->ranks = s.ranks;
		id->local_rank = s.local_rank;
	}
	launcher_id_clear(&s);
	return rc == -2 ? -2 : 0;
}

static void id_reset(struct launcher_id *id)
{
	launcher_id_clear(id);
	*id = (struct launcher_id){ .rank = -1, .ranks = -1, .local_rank = -1 };
}

int launcher_detect(launcher_getenv_fn get, struct launcher_id *id, char *warn, size_t warnlen)
{
	struct reader r = { get, warn, warnlen };
	const struct launcher_vars *found = NULL;
	char batch[512] = "";
	size_t i;
	int rc = 0;

	*id = (struct launcher_id){ .rank = -1, .ranks = -1, .local_rank = -1 };
	if (warnlen)
		warn[0] = '\0';
	for (i = 0; i < sizeof(launchers) / sizeof(launchers[0]) && rc == 0; i++) {
		rc = read_launcher(&r, &launchers[i], id);
		/* A batch script's variables stay beside another launcher's
		 * (mpirun, a PMIx launcher inside sbatch): only alone are they
		 * an environment to warn about. */
		if (rc == NO_STEP) {
			snprintf(batch, sizeof(batch), "%s", warn);
			warn[0] = '\0';
			id_reset(id);
			rc = 0;
		}
		if (rc == 1)
			found = &launchers[i];
	}
	if (rc >= 0 && (rc = add_threadrun_mpi(&r, id)) == 0)
		rc = prefer_slurm(&r, found, id);
	if (rc < 0)
		goto out;
	if (!id->launcher) {
		if (!batch[0])
			return 0;
		snprintf(warn, warnlen, "%s", batch);
		rc = -1;
	} else if (id->rank < 0) {
		snprintf(warn, warnlen, "the %s launcher's environment gives no rank", id->launcher);
		rc = -1;
	} else if (id->ranks >= 0 && id->rank >= id->ranks) {
		snprintf(warn, warnlen, "the %s launcher's rank %ld is not below its size %ld",
			 id->launcher, id->rank, id->ranks);
		rc = -1;
	} else if (id->ranks >= 0 && id->local_rank >= id->ranks) {
		snprintf(warn, warnlen, "the %s launcher's local rank %ld is not below its size %ld",
			 id->launcher, id->local_rank, id->ranks);
		rc = -1;
	}
out:
	if (rc < 0) {
		id_reset(id);
		if (rc == -2)
			snprintf(warn, warnlen, "out of memory");
		return rc;
	}
	return 1;
}

void launcher_id_clear(struct launcher_id *id)
{
	free(id->job);
	id->job = NULL;
}
