/*
 * Placing a foreign program's threads one by one (threadrun --pthreads):
 * the program file read as the loader would (static, setuid, ABI), the
 * preloaded library that wraps pthread_create (src/preload) found and
 * given through LD_PRELOAD, and, without --pthreads, the note that a
 * program that is not OpenMP gets a process-wide CPU set only.
 */
#ifndef PTHREADS_H
#define PTHREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a program file is, for the loader (hostile data: every offset and
 * count in it is checked against the file). */
enum prog_form { PROG_UNKNOWN, PROG_ELF, PROG_SCRIPT };
struct prog_file {
	enum prog_form form;
	unsigned char elf_class, elf_data;      /* ELF: e_ident's EI_CLASS, EI_DATA */
	unsigned elf_machine;                   /* ELF: e_machine (read in our byte order) */
	bool native;            /* ELF of this build's class, byte order and machine */
	bool headers;           /* native ELF whose program headers are all in the file, a PT_LOAD among them */
	bool dynamic;           /* native ELF with a program interpreter (PT_INTERP) */
	bool openmp;            /* native ELF that needs libgomp, libomp or libiomp5 itself */
	bool secure;            /* setuid or setgid to another user: the loader ignores LD_PRELOAD */
	char interp[256];       /* SCRIPT: the #! interpreter's path */
};

/* Read PATH: 0 with PF filled (PROG_UNKNOWN for what is neither ELF nor a
 * script), -1 with errno when it cannot be opened. */
int prog_file_read(const char *path, struct prog_file *pf);

/*
 * --pthreads for the program at PATH (named NAME in messages): check that
 * the loader will preload into it (a script: its interpreter), find the
 * library (beside threadrun in the build tree, in ../lib/threadrun when
 * installed), append it to LD_PRELOAD and set THREADRUN_PTHREADS_SKIP
 * from SKIP (bit i: the i-th thread created is not pinned).  0, or 3
 * (static, setuid, another ABI, no library) or 1 (no memory) with one
 * line in ERR.
 */
int pthreads_setup(const char *path, const char *name, uint64_t skip, char *err, size_t errlen);

/*
 * Without --pthreads: a new string, the note that the program at PATH
 * (NAME) gets a process-wide CPU set only, when it is not OpenMP (a
 * script: may not be); NULL when it is, or cannot be told.
 */
char *pthreads_note(const char *path, const char *name);

/* -s MASK as likwid-pin takes it: hex, with or without 0x.  0, or -1
 * with a message in ERR. */
int pthreads_parse_skip(const char *text, uint64_t *mask, char *err, size_t errlen);

#endif
