/* -o's pattern and the per-rank files of a cluster job. */
#define _GNU_SOURCE
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "launcher.h"
#include "outfile.h"

/* A host name goes into a file name: a '/' would put the file elsewhere, a
 * control character would hide in listings and messages. */
static const char *bad_host(const char *host)
{
	if (!*host)
		return "it is empty";
	for (; *host; host++) {
		if (*host == '/')
			return "it holds '/'";
		if ((unsigned char)*host < 0x20 || *host == 0x7f)
			return "it holds a control character";
	}
	return NULL;
}

int outfile_expand(const char *pattern, const char *host, long rank, char **out,
		   bool *has_rank, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *p, *why;

	*out = NULL;
	*has_rank = false;
	if (!f) {
		snprintf(err, errlen, "results: out of memory");
		return -2;
	}
	for (p = pattern; *p; p++) {
		if (*p != '%') {
			fputc(*p, f);
			continue;
		}
		switch (*++p) {
		case '%':
			fputc('%', f);
			break;
		case 'h':
			why = host ? bad_host(host) : "it is not known";
			if (why) {
				snprintf(err, errlen, "results: the host name '%s' cannot be part of a file name (%s): give -o without %%h",
					 ESC(host ? host : ""), why);
				goto fail;
			}
			fputs(host, f);
			break;
		case 'r':
			fprintf(f, "%ld", rank < 0 ? 0 : rank);
			*has_rank = true;
			break;
		case '\0':
			snprintf(err, errlen, "results: '%s' ends in a lone %%, accepted: %s", ESC(pattern),
				 OUTFILE_PATTERNS);
			goto fail;
		default:
			if ((unsigned char)*p < 0x21 || (unsigned char)*p >= 0x7f)
				snprintf(err, errlen, "results: '%%\\x%02x' in '%s' is not known, accepted: %s",
					 (unsigned char)*p, ESC(pattern), OUTFILE_PATTERNS);
			else
				snprintf(err, errlen, "results: '%%%c' in '%s' is not known, accepted: %s",
					 *p, ESC(pattern), OUTFILE_PATTERNS);
			goto fail;
		}
	}
	if (fclose(f) != 0) {
		free(buf);
		snprintf(err, errlen, "results: out of memory");
		return -2;
	}
	*out = buf;
	return 0;
fail:
	fclose(f);
	free(buf);
	return -1;
}

static const char *env_get(const char *name)
{
	return getenv(name);
}

int outfile_setup(struct outfile *of, const char *pattern, char *err, size_t errlen)
{
	struct launcher_id id;
	char warn[256], host[256 + 1];
	bool has_rank = false, host_ok;
	int rc, ret = 1;

	memset(of, 0, sizeof(*of));
	of->rank = -1;
	/* A bad launcher environment is a single-machine run; threadrun says
	 * so where it reads the environment for the rows. */
	rc = launcher_detect(env_get, &id, warn, sizeof(warn));
	if (rc == -2) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	if (rc == 1)
		of->rank = id.rank;
	host_ok = gethostname(host, sizeof(host) - 1) == 0;
	host[sizeof(host) - 1] = '\0';
	host[strcspn(host, ".")] = '\0';
	if (pattern) {
		rc = outfile_expand(pattern, host_ok ? host : NULL, of->rank, &of->results,
				    &has_rank, err, errlen);
		if (rc < 0) {
			ret = rc == -2 ? 1 : 2;
			goto out;
		}
	}
	/* Ranks that share the results file keep a log and a series each:
	 * interleaved, neither would read.  A size not said may be several. */
	if (of->rank >= 0 && id.ranks != 1 && !has_rank)
		snprintf(of->tag, sizeof(of->tag), ".rank%ld", id.rank);
	ret = 0;
out:
	launcher_id_clear(&id);
	return ret;
}

void outfile_clear(struct outfile *of)
{
	free(of->results);
	of->results = NULL;
}

/* The real directory of NAME and its last part, into DIR and *BASE; -1
 * when the directory cannot be resolved. */
static int split_real(const char *name, char *copy, size_t len, char *dir,
		      const char **base)
{
	if ((size_t)snprintf(copy, len, "%s", name) >= len)
		return -1;
	*base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	return realpath(dirname(copy), dir) ? 0 : -1;
}

bool outfile_same(const char *a, const char *b)
{
	char ca[PATH_MAX], cb[PATH_MAX], da[PATH_MAX], db[PATH_MAX];
	const char *ba, *bb;
	struct stat sa, sb;

	if (strcmp(a, b) == 0)
		return true;
	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	if (split_real(a, ca, sizeof(ca), da, &ba) < 0 ||
	    split_real(b, cb, sizeof(cb), db, &bb) < 0)
		return false;
	return strcmp(da, db) == 0 && strcmp(ba, bb) == 0;
}
