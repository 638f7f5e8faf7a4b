/* p11-kit's module files, read as p11-kit reads them, and module file names
 * found where a user expects them. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "backend.h"
#include "p11_conf.h"

/* Where p11-kit looks, from its pkg-config file (the Makefile passes them). */
static const char package_modules[] = P11_KIT_PACKAGE_MODULES;
static const char system_modules[] = P11_KIT_SYSTEM_MODULES;
static const char system_config[] = P11_KIT_SYSTEM_CONFIG;
static const char module_path[] = P11_KIT_MODULE_PATH;
static const char lib_dir[] = P11_KIT_LIBDIR;
static const char user_modules[] = ".config/pkcs11/modules";
static const char user_config[] = ".config/pkcs11/pkcs11.conf";

/* A .module file larger than this is not one; a line longer, not a line. */
#define CONF_MAX (64 * 1024)
#define LINE_MAX_LEN 4096

enum { F_MODULE, F_ARGS, F_REMOTE, F_USER_CONFIG, NFIELDS };
static const char *const field_names[NFIELDS] = {
	[F_MODULE] = "module", [F_ARGS] = "x-init-reserved", [F_REMOTE] = "remote",
	[F_USER_CONFIG] = "user-config",
};

static void warn(const char *path, unsigned line, const char *what)
{
	if (line)
		fprintf(stderr, "t2accel: warning: p11-kit file %s, line %u: %s; line ignored\n", ESC(path),
			line, what);
	else
		fprintf(stderr, "t2accel: warning: p11-kit file %s: %s; file ignored\n", ESC(path), what);
}

static bool name_char(int c)
{
	return isalnum(c) || c == '.' || c == '-' || c == '_';
}

/* One line, trimmed, into VALS: a comment, a blank, "name: value", or a bad
 * line (warned).  Within a file the last value of a field counts. */
static void parse_line(const char *path, unsigned no, char *s, size_t len, char *vals[NFIELDS])
{
	char *colon, *name, *end, *v;
	size_t i;

	if (memchr(s, '\0', len)) {
		warn(path, no, "holds a NUL byte");
		return;
	}
	if (len > LINE_MAX_LEN) {
		warn(path, no, "longer than 4096 bytes");
		return;
	}
	s[len] = '\0';
	while (isspace((unsigned char)*s))
		s++;
	if (!*s || *s == '#')
		return;
	colon = strchr(s, ':');
	for (end = colon; end && end > s && isspace((unsigned char)end[-1]); end--)
		;
	for (name = s; colon && name < end && name_char((unsigned char)*name); name++)
		;
	if (!colon || end == s || name != end) {
		warn(path, no, "not a 'name: value' line");
		return;
	}
	*end = '\0';
	for (v = colon + 1; isspace((unsigned char)*v); v++)
		;
	for (end = v + strlen(v); end > v && isspace((unsigned char)end[-1]); end--)
		;
	*end = '\0';
	for (i = 0; i < NFIELDS; i++)
		if (!strcmp(s, field_names[i])) {
			free(vals[i]);
			vals[i] = strdup(v);
		}
}

/*
 * PATH's fields into VALS where an earlier file has not set them (p11-kit
 * merges a user's file over the system's, the system's over the
 * package's).  A file that is not there is no file; one that cannot be
 * read, or is not a regular file of sane size, is warned of and skipped.
 * Returns whether a file was read.
 */
static bool read_conf(const char *path, char *vals[NFIELDS])
{
	char *buf = NULL, *here[NFIELDS] = { NULL }, *p, *nl;
	struct stat st;
	size_t n = 0, i;
	unsigned no = 0;
	ssize_t r;
	bool ret = false;
	int fd;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			warn(path, 0, strerror(errno));
		return false;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		warn(path, 0, "not a regular file");
		goto out;
	}
	if (!(buf = malloc(CONF_MAX + 1)))
		goto out;
	while (n <= CONF_MAX) {
		r = read(fd, buf + n, CONF_MAX + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	if (n > CONF_MAX) {
		warn(path, 0, "larger than 64 KiB");
		goto out;
	}
	buf[n] = '\0';
	for (p = buf; p < buf + n; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(buf + n - p));
		if (!nl)
			nl = buf + n;
		parse_line(path, ++no, p, (size_t)(nl - p), here);
	}
	for (i = 0; i < NFIELDS; i++) {
		if (!vals[i]) {
			vals[i] = here[i];
			here[i] = NULL;
		}
		free(here[i]);
	}
	ret = true;
out:
	free(buf);
	close(fd);
	return ret;
}

/* The user's home, as p11-kit finds it; NULL where p11-kit (0.24) reads no
 * user files: a set-id program, root, P11_NO_USER_CONFIG set. */
static const char *home_dir(void)
{
	const char *h = getenv("HOME");
	struct passwd *pw;

	if (getuid() != geteuid() || getgid() != getegid() || getuid() == 0 ||
	    getenv("P11_NO_USER_CONFIG"))
		return NULL;
	if (h && h[0])
		return h;
	pw = getpwuid(getuid());
	return pw ? pw->pw_dir : NULL;
}

static char *join(const char *a, const char *b, const char *c)
{
	char *s;

	return asprintf(&s, "%s/%s%s", a, b, c) < 0 ? NULL : s;
}

/* p11-kit's user-config (none, merge, only): whether the user's files count
 * and whether the system's do. */
static void user_mode(const char *home, bool *user, bool *system)
{
	char *vals[NFIELDS] = { NULL }, *path = home ? join(home, user_config, "") : NULL;
	const char *m;
	size_t i;

	*user = home != NULL;
	*system = true;
	/* The user's file first: its user-config, if any, overrides. */
	if (path)
		read_conf(path, vals);
	read_conf(system_config, vals);
	m = vals[F_USER_CONFIG];
	if (m && !strcmp(m, "none"))
		*user = false;
	else if (m && (!strcmp(m, "only") || !strcmp(m, "override")))
		*system = !*user;
	else if (m && strcmp(m, "merge"))
		warn(path && access(path, F_OK) == 0 ? path : system_config, 0,
		     "user-config is none, merge or only; merge assumed");
	for (i = 0; i < NFIELDS; i++)
		free(vals[i]);
	free(path);
}

/* A p11-kit module name: an alphanumeric, then alphanumerics, '_', '-', '.'. */
static bool kit_name_ok(const char *name)
{
	const char *c = name;

	if (!isalnum((unsigned char)*c) || strlen(name) > 200)
		return false;
	while (*++c)
		if (!name_char((unsigned char)*c))
			return false;
	return true;
}

/* NAME.module in DIR, else in the user's, the system's and the package's
 * directories.  1 found (R filled), 0 not registered, or a BE_ code with
 * ERR. */
static int kit_lookup(const char *name, const char *dir, struct p11_module_ref *r, char *err,
		      size_t errlen)
{
	char *vals[NFIELDS] = { NULL }, *path, *user_dir = NULL;
	const char *home = home_dir(), *dirs[3] = { dir, NULL, NULL };
	bool user, system, found = false;
	size_t i;
	int ret = 0;

	if (!kit_name_ok(name))
		return 0;
	if (!dir) {
		user_mode(home, &user, &system);
		user_dir = user ? join(home, user_modules, "") : NULL;
		dirs[0] = user_dir;
		dirs[1] = system ? system_modules : NULL;
		dirs[2] = system ? package_modules : NULL;
	}
	for (i = 0; i < 3; i++) {
		if (!dirs[i] || !dirs[i][0] || !(path = join(dirs[i], name, ".module")))
			continue;
		found |= read_conf(path, vals);
		free(path);
	}
	if (!found)
		goto out;
	ret = BE_SKIP;
	if (vals[F_REMOTE]) {
		snprintf(err, errlen, "module: p11-kit module '%s' is remote (remote:), which t2accel does not run; give the module file",
			 name);
	} else if (!vals[F_MODULE] || !vals[F_MODULE][0]) {
		snprintf(err, errlen, "module: p11-kit module '%s' is disabled (its module: line is empty or missing)",
			 name);
	} else {
		/* A relative module: is in p11-kit's module directory. */
		r->path = vals[F_MODULE][0] == '/' ? strdup(vals[F_MODULE]) :
			  join(module_path, vals[F_MODULE], "");
		r->args = vals[F_ARGS];
		vals[F_ARGS] = NULL;
		r->kit_name = strdup(name);
		ret = r->path && r->kit_name ? 1 : BE_FAIL;
		if (ret == BE_FAIL)
			snprintf(err, errlen, "out of memory");
	}
out:
	for (i = 0; i < NFIELDS; i++)
		free(vals[i]);
	free(user_dir);
	return ret;
}

/* A bare file name where dlopen() and p11-kit look: LD_LIBRARY_PATH (but
 * for a set-id program), the multiarch library directory, p11-kit's module
 * directory, then the usual library directories.  The list searched goes
 * into WHERE for a message. */
static char *file_lookup(const char *name, char *where, size_t wlen)
{
	const char *fixed[] = { lib_dir, module_path, "/usr/local/lib", "/usr/lib", "/lib" };
	const char *ld = secure_getenv("LD_LIBRARY_PATH");
	char *dirs = NULL, *dir, *save = NULL, *path = NULL;
	size_t used = 0;
	struct stat st;
	int n;

	where[0] = '\0';
	if (asprintf(&dirs, "%s:%s:%s:%s:%s:%s", ld ? ld : "", fixed[0], fixed[1], fixed[2],
		     fixed[3], fixed[4]) < 0)
		return NULL;
	for (dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		/* A relative entry would change meaning with the directory. */
		if (dir[0] != '/')
			continue;
		n = snprintf(where + used, wlen - used, "%s%s", used ? ", " : "", dir);
		if (n > 0 && (size_t)n < wlen - used)
			used += (size_t)n;
		if (!(path = join(dir, name, "")))
			break;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			break;
		free(path);
		path = NULL;
	}
	free(dirs);
	return path;
}

int p11_module_find(const char *name, const char *dir, struct p11_module_ref *r, char *err,
		    size_t errlen)
{
	char where[1024];
	struct stat st;
	int ret;

	memset(r, 0, sizeof(*r));
	if (dir && (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))) {
		snprintf(err, errlen, "module-dir: '%s' is not a directory", dir);
		return BE_USAGE;
	}
	/* A path (or nothing) is taken as given: check_module says what is wrong. */
	if (!name[0] || strchr(name, '/')) {
		r->path = strdup(name);
		goto done;
	}
	ret = kit_lookup(name, dir, r, err, errlen);
	if (ret == 1)
		return BE_OK;
	if (ret)
		return ret;
	r->path = file_lookup(name, where, sizeof(where));
	if (!r->path) {
		snprintf(err, errlen, "module: '%s' is neither a p11-kit module (%s) nor a file in %s",
			 name, dir ? "no NAME.module in --module-dir" : "p11-kit list-modules", where);
		return BE_SKIP;
	}
done:
	if (!r->path) {
		snprintf(err, errlen, "out of memory");
		return BE_FAIL;
	}
	return BE_OK;
}

void p11_module_ref_free(struct p11_module_ref *r)
{
	free(r->path);
	free(r->args);
	free(r->kit_name);
	memset(r, 0, sizeof(*r));
}
