/*
 * An exit that main did not make is a failed run.  A library or a PKCS#11
 * module may call exit() from inside a call (exit(0) in C_Initialize):
 * without this the workload would end with the module's status, 0 among
 * them, as if it had measured.  exit_guard_arm() at the start of main
 * registers an atexit handler; main returns through exit_guard_done().
 * Any other exit prints one line on stderr and ends the process with
 * status 1 (_exit: no more handlers).  A module that calls _exit() is
 * beyond an atexit handler: threadrun fails a run of ours that wrote no
 * row (docs/exit-codes.md).
 */
#ifndef EXITGUARD_H
#define EXITGUARD_H

/* Once, at the start of main, after datafile_stdio_init (so that the
 * guard runs first).  PROG names the program in the message. */
void exit_guard_arm(const char *prog);

/* What the process is inside of, named in the message ("PKCS#11 module
 * '/x.so', C_Initialize"; copied), or NULL when nothing in particular. */
void exit_guard_during(const char *what);

/* main's own end: the exit that follows is planned.  Returns STATUS. */
int exit_guard_done(int status);

#endif
