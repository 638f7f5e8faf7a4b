/*
 * Which rank of a parallel job this process is, read from the launcher's
 * environment: no MPI library is needed (threadrun and the workloads link
 * none).  Open MPI (OMPI_COMM_WORLD_*, job from PMIX_NAMESPACE), a Slurm
 * job step (SLURM_PROCID, SLURM_STEP_NUM_TASKS, SLURM_LOCALID, job
 * SLURM_JOB_ID.SLURM_STEP_ID; a batch script is no step and no rank),
 * MPICH's Hydra or any PMI-1 launcher (PMI_RANK, PMI_SIZE,
 * MPI_LOCALRANKID) and PMIx alone (PMIX_RANK, PMIX_NAMESPACE).
 * threadrun-mpi, which knows the job from MPI itself, adds what the
 * launcher leaves out through THREADRUN_JOB, THREADRUN_RANK and
 * THREADRUN_RANKS.
 */
#ifndef LAUNCHER_H
#define LAUNCHER_H

#include <stddef.h>

/* The variables threadrun-mpi exports to its child (runenv.h has the rest). */
#define ENV_JOB   "THREADRUN_JOB"
#define ENV_RANK  "THREADRUN_RANK"
#define ENV_RANKS "THREADRUN_RANKS"

/* A job id longer than this is not one (it goes into every row). */
#define LAUNCHER_JOB_MAX 256

struct launcher_id {
	const char *launcher;   /* "openmpi", "slurm", "mpich", "pmix"; NULL: not a rank */
	char *job;              /* NULL when nothing names the job */
	long rank, ranks, local_rank;   /* -1 when not known */
};

/* getenv, or a table in the tests. */
typedef const char *(*launcher_getenv_fn)(const char *name);

/*
 * Read the environment through GET.  1: a rank (ID filled); 0: no launcher
 * (ID says none); -1: an incomplete or contradictory environment (a rank
 * not below the size, a number that is not one, a job id that is not
 * 1..LAUNCHER_JOB_MAX printable characters, a Slurm batch script's
 * variables without a job step and without another launcher's), which
 * counts as no launcher: ID says none and WARN says why in one line,
 * naming the variable (its value with control characters as '?').  -2 out
 * of memory.  Open MPI, MPICH/PMI and PMIx come before a Slurm step (an MPI
 * launcher's daemons may run as one); a step that agrees with srun's PMI
 * or PMIx variables names the launcher "slurm".  Free ID with
 * launcher_id_clear().
 */
int launcher_detect(launcher_getenv_fn get, struct launcher_id *id, char *warn, size_t warnlen);
void launcher_id_clear(struct launcher_id *id);

#endif
