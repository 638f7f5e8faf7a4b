/*
 * --version: the project's version and the libraries a program runs with,
 * the same lines in every program (docs/exit-codes.md: exit 0, stdout).
 */
#ifndef VERSION_H
#define VERSION_H

#include <stdio.h>

/* The version the build was made from: `git describe --tags --always
 * --dirty` at build time, else the VERSION file of a tarball, else
 * "unknown" (the Makefile passes it in). */
extern const char threadrun_version[];

/* "PROG VERSION", then hwloc's and OpenSSL's versions, each as found at
 * run time and as built against. */
void version_print(FILE *out, const char *prog);

/* The OpenMP line of a program built with -fopenmp: DATE is its _OPENMP
 * (201511 is OpenMP 4.5), SYM one of the runtime's functions (the library
 * that holds it is named). */
void version_print_openmp(FILE *out, long date, const void *sym);

#endif
