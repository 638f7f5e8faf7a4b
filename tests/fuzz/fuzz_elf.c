/* Fuzz target: the program file reader of threadrun --pthreads and of its
 * process-wide note (src/threadrun/pthreads.c): ELF headers, program
 * headers, the dynamic section and its names, a script's #! line. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pthreads.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prog_file pf;
	char path[64];
	int fd = memfd_create("fuzz_elf", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (prog_file_read(path, &pf) < 0)
			abort();
		/* What is read of an ELF of another ABI is its header alone. */
		if (pf.form > PROG_SCRIPT || memchr(pf.interp, '\0', sizeof(pf.interp)) == NULL ||
		    (pf.form != PROG_SCRIPT && pf.interp[0]) ||
		    (!pf.native && (pf.dynamic || pf.openmp)))
			abort();
	}
	close(fd);
	return 0;
}
