/*
 * The cluster start gate, the side of the measured programs: threadrun-mpi
 * (one per rank) runs threadrun with THREADRUN_SYNC_FD="R,W", two pipe
 * ends every program it starts inherits.  A measurement that is set up
 * writes `ready TOKEN POS KEY` on W and waits on R for its `go TOKEN
 * yes|no`; threadrun's sweep asks `resume TOKEN POS DONE KEY` before a
 * combination and gets `skip TOKEN 1|0`; every row written is reported as
 * `row TOKEN WORK UNIT WALL_S T_START T_END STATUS`.  Lines of at most
 * GATE_LINE bytes, each one write() (atomic on a pipe), the key last.
 * TOKEN is PID.N; a reply with another token (the answer to a process that
 * died waiting) is discarded.  POS is SWEEPINDEX.SEQ: the sweep's
 * combination (THREADRUN_SWEEP_INDEX, 0 outside a sweep) and the process's
 * measurement number (from 1; a resume question is SWEEPINDEX.0).
 * Nothing here may hang a run: when the wrapper is gone (EOF, a broken
 * pipe) every later measurement runs unsynchronised.
 */
#ifndef GATE_H
#define GATE_H

#include <signal.h>
#include <stdbool.h>

/* The combination index threadrun's sweep exports to the program. */
#define ENV_SWEEP_INDEX "THREADRUN_SWEEP_INDEX"

/* The protocol's words, for both ends (gate.c and threadrun-mpi). */
#define GATE_READY "ready"   /* a measurement waits; answered GATE_GO */
#define GATE_GO "go"         /* GATE_YES: released with every rank */
#define GATE_RESUME "resume" /* a sweep's combination; answered GATE_SKIP */
#define GATE_SKIP "skip"     /* GATE_TRUE: every rank has it */
#define GATE_ROW "row"       /* a row was appended; no answer */
#define GATE_YES "yes"
#define GATE_NO "no"
#define GATE_TRUE "1"
#define GATE_FALSE "0"

/* PIPE_BUF: a line this long or shorter is written whole. */
#define GATE_LINE 4096

/* The row's start_sync: empty (no gate), `no`, `yes`.  Zero is "none", so
 * a row that says nothing about it says nothing. */
enum start_sync { START_SYNC_NONE, START_SYNC_NO, START_SYNC_YES };

/*
 * Whether this process has a gate: 1 yes, 0 no.  Read once from
 * THREADRUN_SYNC_FD; a value that is not two open descriptors "R,W" is
 * no gate, with one warning.  The other calls open it themselves.
 */
int gate_open(void);

/*
 * A measurement is set up: wait for its release.  KEY names it (workload,
 * config, threads, policy, repeat, label; ranks compare it).  1 released
 * with every rank, 0 released alone (other ranks elsewhere, the wrapper
 * gone, or *INTERRUPTED set by a signal while waiting), -1 no gate.
 */
int gate_ready(const char *key, volatile sig_atomic_t *interrupted);

/*
 * threadrun's sweep, --resume, before combination INDEX: DONE when this
 * rank's file has it.  1 skip it (every rank has it), 0 run it, -1 no gate.
 * INTERRUPTED (or NULL) says a signal ended the wait: 0.
 */
int gate_resume(unsigned index, bool done, const char *key, int (*interrupted)(void));

/*
 * A row was appended: WORK (the rate's numerator: rate x wall), its UNIT,
 * wall seconds, the window in epoch microseconds (0: unknown) and the status.
 * Rank 0's wrapper prints the cluster rate from these.  Nothing without a
 * gate.
 */
void gate_row(double work, const char *unit, double wall_s, long long t_start_us,
	      long long t_end_us, int status);

/* The row's word for S: "yes", "no", or NULL for none. */
const char *start_sync_text(enum start_sync s);
/* gate_ready's answer as a row's start_sync. */
enum start_sync start_sync_of(int ready);

#endif
