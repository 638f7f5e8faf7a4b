/*
 * --module as users name PKCS#11 modules: a path; the name of a module
 * registered with p11-kit (its NAME.module file, as `p11-kit list-modules`
 * shows it); or a bare file name, looked for where the dynamic linker and
 * p11-kit look.  p11-kit's files are read here, not through libp11-kit,
 * which would load and initialise every registered module.
 */
#ifndef P11_CONF_H
#define P11_CONF_H

#include <stddef.h>

struct p11_module_ref {
	char *path;             /* the module file to load */
	char *args;             /* the .module file's x-init-reserved, or NULL */
	char *kit_name;         /* the p11-kit name it was found by, or NULL */
};

/*
 * Resolve NAME into R, looking up module names in DIR (--module-dir) when
 * it is not NULL, else where p11-kit does: the user's
 * ~/.config/pkcs11/modules (not for root, as p11-kit), the system's and
 * the package's directories, the first file that sets a field winning.  A bad line in a .module file costs that line (one
 * warning on stderr, naming the file and line, never its text).  BE_OK;
 * BE_SKIP (a name nothing answers to here, a module disabled or remote) or
 * BE_USAGE (DIR not a directory) with the message in ERR.  R is freed with
 * p11_module_ref_free whatever the result.
 */
int p11_module_find(const char *name, const char *dir, struct p11_module_ref *r, char *err,
		    size_t errlen);
void p11_module_ref_free(struct p11_module_ref *r);

#endif
