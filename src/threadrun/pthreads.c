/* --pthreads: the program file, the preloaded library, LD_PRELOAD. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "launch.h"
#include "pthreads.h"

#define ENV_SKIP "THREADRUN_PTHREADS_SKIP"
#define MAX_LOADS 64            /* PT_LOAD segments kept to map addresses */
#define MAX_DYN 4096            /* dynamic entries read */

/* The OpenMP runtimes, by the start of their file names. */
static const char *const omp_runtimes[] = { "libgomp", "libomp", "libiomp" };

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_DATA ELFDATA2LSB
#else
#define NATIVE_DATA ELFDATA2MSB
#endif
#define NATIVE_CLASS (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32)

/* LEN bytes at OFF, all inside the file's SIZE bytes: 0, else -1. */
static int read_at(int fd, off_t size, uint64_t off, void *buf, size_t len)
{
	if (off > (uint64_t)size || len > (uint64_t)size - off)
		return -1;
	return pread(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

/* The file offset of address VADDR, through the PT_LOAD segments; -1. */
static int64_t file_offset(const ElfW(Phdr) *loads, unsigned n, uint64_t vaddr)
{
	for (unsigned i = 0; i < n; i++)
		if (vaddr >= loads[i].p_vaddr && vaddr - loads[i].p_vaddr < loads[i].p_filesz)
			return (int64_t)(loads[i].p_offset + (vaddr - loads[i].p_vaddr));
	return -1;
}

/* Whether the DT_NEEDED name at OFF of the string table (at file offset
 * STRTAB, STRSZ bytes) is an OpenMP runtime's. */
static bool needs_openmp(int fd, off_t size, int64_t strtab, uint64_t strsz, uint64_t off)
{
	char name[64];
	uint64_t pos = (uint64_t)strtab + off;
	size_t len = sizeof(name) - 1;

	if (strtab < 0 || off >= strsz || pos < off || pos >= (uint64_t)size)
		return false;
	if (len > strsz - off)
		len = (size_t)(strsz - off);
	if (len > (uint64_t)size - pos)
		len = (size_t)((uint64_t)size - pos);
	if (read_at(fd, size, pos, name, len) < 0)
		return false;
	name[len] = '\0';
	for (size_t i = 0; i < sizeof(omp_runtimes) / sizeof(omp_runtimes[0]); i++)
		if (!strncmp(name, omp_runtimes[i], strlen(omp_runtimes[i])))
			return true;
	return false;
}

/* The native ELF's program headers and dynamic section: PT_INTERP, and
 * DT_NEEDED names of an OpenMP runtime. */
static void elf_read(int fd, off_t size, struct prog_file *pf)
{
	ElfW(Phdr) ph, dyn = { 0 }, *loads = NULL;
	ElfW(Ehdr) eh;
	ElfW(Dyn) d;
	uint64_t strtab = 0, strsz = 0, *needed = NULL;
	unsigned nloads = 0, nneeded = 0;
	bool has_dyn = false;

	if (read_at(fd, size, 0, &eh, sizeof(eh)) < 0 || eh.e_phentsize != sizeof(ph))
		return;
	loads = calloc(MAX_LOADS, sizeof(*loads));
	needed = calloc(MAX_DYN, sizeof(*needed));
	if (!loads || !needed)
		goto out;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		if (read_at(fd, size, eh.e_phoff + (uint64_t)i * sizeof(ph), &ph, sizeof(ph)) < 0)
			goto out;
		if (ph.p_type == PT_INTERP)
			pf->dynamic = true;
		else if (ph.p_type == PT_DYNAMIC && !has_dyn) {
			dyn = ph;
			has_dyn = true;
		} else if (ph.p_type == PT_LOAD && nloads < MAX_LOADS)
			loads[nloads++] = ph;
	}
	pf->headers = nloads > 0;
	for (unsigned i = 0; has_dyn && i < MAX_DYN && (i + 1) * sizeof(d) <= dyn.p_filesz; i++) {
		if (read_at(fd, size, dyn.p_offset + (uint64_t)i * sizeof(d), &d, sizeof(d)) < 0 ||
		    d.d_tag == DT_NULL)
			break;
		if (d.d_tag == DT_STRTAB)
			strtab = d.d_un.d_ptr;
		else if (d.d_tag == DT_STRSZ)
			strsz = d.d_un.d_val;
		else if (d.d_tag == DT_NEEDED)
			needed[nneeded++] = d.d_un.d_val;
	}
	for (unsigned i = 0; i < nneeded && !pf->openmp; i++)
		pf->openmp = needs_openmp(fd, size, file_offset(loads, nloads, strtab), strsz, needed[i]);
out:
	free(loads);
	free(needed);
}

/* Setuid or setgid to someone else on a filesystem that honours it: the
 * kernel marks the exec secure, and the loader then ignores LD_PRELOAD. */
static bool secure_exec(int fd, const struct stat *st)
{
	struct statvfs vfs;

	if (fstatvfs(fd, &vfs) == 0 && (vfs.f_flag & ST_NOSUID))
		return false;
	return ((st->st_mode & S_ISUID) && st->st_uid != getuid()) ||
	       ((st->st_mode & S_ISGID) && st->st_gid != getgid());
}

int prog_file_read(const char *path, struct prog_file *pf)
{
	unsigned char head[EI_NIDENT + 4];
	struct stat st;
	ssize_t got;
	uint16_t machine, type;
	int fd;

	memset(pf, 0, sizeof(*pf));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		goto out;
	pf->secure = secure_exec(fd, &st);
	got = pread(fd, head, sizeof(head), 0);
	if (got >= 2 && head[0] == '#' && head[1] == '!') {
		char line[sizeof(pf->interp) + 2];
		size_t skip;

		got = pread(fd, line, sizeof(line) - 1, 2);
		line[got > 0 ? got : 0] = '\0';
		skip = strspn(line, " \t");
		line[skip + strcspn(line + skip, " \t\n")] = '\0';
		if (line[skip] && strlen(line + skip) < sizeof(pf->interp)) {
			pf->form = PROG_SCRIPT;
			snprintf(pf->interp, sizeof(pf->interp), "%s", line + skip);
		}
	} else if (got == (ssize_t)sizeof(head) && !memcmp(head, ELFMAG, SELFMAG)) {
		pf->elf_class = head[EI_CLASS];
		pf->elf_data = head[EI_DATA];
		pf->native = pf->elf_class == NATIVE_CLASS && pf->elf_data == NATIVE_DATA;
		memcpy(&type, head + EI_NIDENT, sizeof(type));
		memcpy(&machine, head + EI_NIDENT + 2, sizeof(machine));
		pf->elf_machine = machine;
		/* A program or a library; anything else the exec refuses itself. */
		if (!pf->native || type == ET_EXEC || type == ET_DYN)
			pf->form = PROG_ELF;
		if (pf->form == PROG_ELF && pf->native)
			elf_read(fd, st.st_size, pf);
	}
out:
	close(fd);
	return 0;
}

/* The library: beside threadrun (the build tree), else in
 * <bindir>/../lib/threadrun (installed).  0, or -1. */
static int find_library(char *buf, size_t len, char *dir, size_t dirlen)
{
	static const char *const where[] = { "%s/" THREADRUN_PRELOAD, "%s/../lib/threadrun/" THREADRUN_PRELOAD };
	char cand[PATH_MAX];

	if (launch_self_dir(dir, dirlen) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		if ((size_t)snprintf(cand, sizeof(cand), where[i], dir) >= sizeof(cand))
			continue;
		if (access(cand, R_OK) == 0 && realpath(cand, buf) && strlen(buf) < len)
			return 0;
	}
	return -1;
}

/* Scripts the kernel runs one through another (#!): measured on Linux,
 * 5 scripts then the ELF; a sixth gives ELOOP (exec_binprm's depth > 5). */
#define MAX_SCRIPTS 5

/* The loader's message for a setuid WHAT. */
static int refuse_secure(const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "--pthreads: %s is setuid or setgid: the loader ignores LD_PRELOAD for it, its threads cannot be placed one by one (without --pthreads it gets the plan's CPU set)",
		 what);
	return 3;
}

/* PATH (a program or a script's interpreter) against what the loader
 * needs to preload LIB into it.  0, or 3 with a message naming WHAT. */
static int check_preload(const char *path, const char *what, const struct prog_file *lib,
			 char *err, size_t errlen)
{
	struct prog_file pf;

	if (prog_file_read(path, &pf) < 0 || pf.form != PROG_ELF)
		return 0;       /* the exec says what is wrong with it */
	if (!pf.native || pf.elf_machine != lib->elf_machine) {
		snprintf(err, errlen, "--pthreads: %s is an ELF program of another ABI (class %u, machine %u) than the preloaded library's (class %u, machine %u): it cannot be loaded into it",
			 what, pf.elf_class, pf.elf_machine, lib->elf_class, lib->elf_machine);
		return 3;
	}
	/* Headers past its end, or no segment to load: no program the
	 * kernel takes (exec: 126). */
	if (!pf.headers)
		return 0;
	if (!pf.dynamic) {
		snprintf(err, errlen, "--pthreads: %s is statically linked: no loader preloads the library into it, its threads cannot be placed one by one (without --pthreads it gets the plan's CPU set)",
			 what);
		return 3;
	}
	if (pf.secure)
		return refuse_secure(what, err, errlen);
	return 0;
}

/*
 * Follow PATH's #! chain as the kernel does, to the file the loader runs:
 * its path in END, NAME's description in WHAT ("NAME's interpreter I").
 * 0, or 3 with one line in ERR: a setuid or setgid script on the way, or
 * more scripts than the kernel follows.  A file that cannot be read ends
 * the chain: the exec says what is wrong with it.
 */
static int follow_chain(const char *path, const char *name, char *end, size_t endlen,
			char *what, size_t whatlen, char *err, size_t errlen)
{
	struct prog_file pf;
	unsigned depth;

	snprintf(end, endlen, "%s", path);
	snprintf(what, whatlen, "%s", name);
	for (depth = 0; prog_file_read(end, &pf) == 0 && pf.form == PROG_SCRIPT; depth++) {
		if (pf.secure)
			return refuse_secure(what, err, errlen);
		if (depth == MAX_SCRIPTS) {
			snprintf(err, errlen, "--pthreads: %s: its #! interpreters run through more than %u scripts, more than the kernel follows",
				 name, MAX_SCRIPTS);
			return 3;
		}
		snprintf(end, endlen, "%s", pf.interp);
		snprintf(what, whatlen, "%s's interpreter %s", name, pf.interp);
	}
	return 0;
}

int pthreads_setup(const char *path, const char *name, uint64_t skip, char *err, size_t errlen)
{
	char lib[PATH_MAX], dir[PATH_MAX], what[PATH_MAX + 64], end[PATH_MAX], *list = NULL;
	const char *user = getenv("LD_PRELOAD");
	struct prog_file self;
	size_t len = 0;
	FILE *f;
	int st;

	if (find_library(lib, sizeof(lib), dir, sizeof(dir)) < 0) {
		snprintf(err, errlen, "--pthreads: the library %s is neither beside threadrun nor in ../lib/threadrun (make builds it, make install installs it)",
			 THREADRUN_PRELOAD);
		return 3;
	}
	/* LD_PRELOAD splits its list at spaces and colons. */
	if (strpbrk(lib, " :")) {
		snprintf(err, errlen, "--pthreads: the library's path '%s' holds a space or a ':', which LD_PRELOAD cannot carry",
			 lib);
		return 3;
	}
	if (prog_file_read(lib, &self) < 0) {
		snprintf(err, errlen, "--pthreads: cannot read '%s': %s", lib, strerror(errno));
		return 3;
	}
	/* A script runs its interpreter, which may be a script in turn. */
	st = follow_chain(path, name, end, sizeof(end), what, sizeof(what), err, errlen);
	if (!st)
		st = check_preload(end, what, &self, err, errlen);
	if (st)
		return st;
	f = open_memstream(&list, &len);
	if (!f)
		goto nomem;
	if (user && *user)
		fprintf(f, "%s:", user);
	fputs(lib, f);
	if (fclose(f) != 0 || setenv("LD_PRELOAD", list, 1) < 0)
		goto nomem;
	free(list);
	list = NULL;
	/* The mask as the creation indices it skips, the plan's list form. */
	f = open_memstream(&list, &len);
	if (!f)
		goto nomem;
	for (unsigned i = 0; i < 64; i++)
		if (skip >> i & 1)
			fprintf(f, "%s%u", ftell(f) ? "," : "", i);
	if (fclose(f) != 0 || (skip ? setenv(ENV_SKIP, list, 1) : unsetenv(ENV_SKIP)) < 0)
		goto nomem;
	free(list);
	return 0;
nomem:
	free(list);
	snprintf(err, errlen, "--pthreads: cannot set the environment: %s", strerror(errno));
	return 1;
}

char *pthreads_note(const char *path, const char *name)
{
	struct prog_file pf;
	char *note = NULL;

	if (prog_file_read(path, &pf) < 0)
		return NULL;
	if (pf.form == PROG_SCRIPT && asprintf(&note, "%s is a script: what it starts gets a process-wide CPU set only, unless it is OpenMP (use --pthreads for one PU per thread)",
					       name) < 0)
		note = NULL;
	else if (pf.form == PROG_ELF && pf.native && !pf.openmp &&
		 asprintf(&note, "%s is not OpenMP (it needs no libgomp, libomp or libiomp5): process-wide CPU set only (use --pthreads for one PU per thread)",
			  name) < 0)
		note = NULL;
	return note;
}

int pthreads_parse_skip(const char *text, uint64_t *mask, char *err, size_t errlen)
{
	const char *p = text + (!strncmp(text, "0x", 2) || !strncmp(text, "0X", 2) ? 2 : 0);
	size_t digits = strspn(p, "0123456789abcdefABCDEF");

	if (!digits || p[digits] || digits > 16) {
		snprintf(err, errlen, "skip: '%s' is not a hex mask, allowed 0x0..0xffffffffffffffff (bit i set: the i-th thread created is not pinned)",
			 text);
		return -1;
	}
	*mask = strtoull(p, NULL, 16);
	return 0;
}
