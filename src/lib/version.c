/* --version: the project's version and the library versions. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <hwloc.h>
#include <openssl/crypto.h>
#include <openssl/opensslv.h>

#include "version.h"

#ifndef THREADRUN_VERSION
#define THREADRUN_VERSION "unknown"
#endif

const char threadrun_version[] = THREADRUN_VERSION;

/* HWLOC_API_VERSION and hwloc_get_api_version() are 0xMMmmrr00-style:
 * major in bits 16-23, minor 8-15, revision 0-7. */
static void print_api(FILE *out, unsigned v)
{
	fprintf(out, "%u.%u.%u", (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff);
}

#define STR_(x) #x
#define STR(x) STR_(x)
#define LIBCRYPTO "libcrypto.so." STR(OPENSSL_SHLIB_VERSION)

/* OpenSSL's run-time version from the library itself, opened here (a
 * program that links it gets the copy it has): a program that never calls
 * OpenSSL, threadrun, does not load it at every launch for this line. */
static void openssl_print(FILE *out)
{
	const char *(*version)(int) = NULL;
	void *lib = dlopen(LIBCRYPTO, RTLD_LAZY | RTLD_LOCAL);

	if (lib)
		*(void **)&version = dlsym(lib, "OpenSSL_version");
	if (version)
		fprintf(out, "%s at run time (built with " OPENSSL_VERSION_TEXT ")\n",
			version(OPENSSL_VERSION));
	else
		fprintf(out, "OpenSSL: %s not loadable at run time (built with " OPENSSL_VERSION_TEXT ")\n",
			LIBCRYPTO);
	/* The handle stays open: the string is the library's. */
}

void version_print(FILE *out, const char *prog)
{
	fprintf(out, "%s %s\n", prog, threadrun_version);
	/* hwloc gives its API version at run time, not its release. */
	fputs("hwloc API ", out);
	print_api(out, hwloc_get_api_version());
	fputs(" at run time (built with hwloc " HWLOC_VERSION ", API ", out);
	print_api(out, HWLOC_API_VERSION);
	fputs(")\n", out);
	openssl_print(out);
}

/* The OpenMP specification each _OPENMP date stands for. */
static const struct {
	long date;
	const char *spec;
} openmp_specs[] = {
	{ 200505, "2.5" }, { 200805, "3.0" }, { 201107, "3.1" }, { 201307, "4.0" },
	{ 201511, "4.5" }, { 201811, "5.0" }, { 202011, "5.1" }, { 202111, "5.2" },
	{ 202411, "6.0" },
};

void version_print_openmp(FILE *out, long date, const void *sym)
{
	const char *spec = "of an unknown date";
	Dl_info info;
	size_t i;

	for (i = 0; i < sizeof(openmp_specs) / sizeof(openmp_specs[0]); i++)
		if (openmp_specs[i].date == date)
			spec = openmp_specs[i].spec;
	fprintf(out, "OpenMP %s (_OPENMP %ld), runtime %s\n", spec, date,
		dladdr(sym, &info) && info.dli_fname ? info.dli_fname : "unknown");
}
