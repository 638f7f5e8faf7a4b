/*
 * A PKCS#11 module and the token t2accel works on: loading any v2.x module,
 * C_Initialize with OS locking, a throwaway SoftHSM2 token when none is
 * named, login, and removal of everything temporary at the end.
 */
#ifndef P11_H
#define P11_H

#include <stdbool.h>
#include <stddef.h>

#include <p11-kit/pkcs11.h>

#include "backend.h"
#include "p11_home.h"

/* The longest PIN taken (SoftHSM2's limit, and what was cut at before). */
#define P11_PIN_MAX 255

struct p11 {
	void *dl;
	CK_FUNCTION_LIST_PTR f;
	bool initialized;
	CK_SLOT_ID slot;
	bool slot_set;              /* slot is the token's (not a default 0) */
	CK_SESSION_HANDLE login;    /* kept open: the token stays logged in */
	struct p11_home home;       /* the throwaway token's, dir NULL if none */
	char impl[384];             /* module, library version, token, slot */
	CK_MECHANISM_TYPE *mechs;
	CK_ULONG nmechs;
};

/* What NSS's softokn is initialised with to run without a database: its
 * slot 1 is then the crypto token, which needs no login. */
#define P11_NSS_NO_DB \
	"configdir='' certPrefix='' keyPrefix='' secmod='' flags=readOnly,noCertDB,noModDB,forceOpen,optimizeSpace"

/* Where SoftHSM2 lives when --module is not given, or NULL. */
const char *p11_default_module(void);

/*
 * Find the module (p11_conf.h), load it, initialise it with --module-args
 * (else the p11-kit file's x-init-reserved), find or create the token, log
 * in if the token asks for it.  The module must be a regular file only its owner (us or root) can write, in a
 * directory the same holds for; a PIN file a regular file only its owner
 * can read, unless o->insecure_files.  A PIN is 1..P11_PIN_MAX bytes, and
 * T2ACCEL_PIN leaves the environment once read.
 * Returns BE_OK, or BE_USAGE (a bad module path, slot, label or PIN, an
 * initialisation string the module wants or refuses), BE_SKIP (no such
 * module here, a module without a token), BE_FAIL (the module failed),
 * with the message in ERR.  On failure what
 * was set up is undone (p11_close need not be called).
 */
int p11_open(struct p11 *p, const struct backend_opts *o, char *err, size_t errlen);
void p11_close(struct p11 *p);

bool p11_has_mechanism(const struct p11 *p, CK_MECHANISM_TYPE m);

/* "CKR_PIN_INCORRECT" and the like. */
const char *p11_rv_name(CK_RV rv);
/* 0 for CKR_OK, else -1 with "WHAT failed: CKR_..." in ERR. */
int p11_ckr(CK_RV rv, const char *what, char *err, size_t errlen);

#endif
