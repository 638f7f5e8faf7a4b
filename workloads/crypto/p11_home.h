/*
 * The throwaway SoftHSM2 token's home: a private directory in $TMPDIR named
 * t2accel-token-PID-START-XXXXXX, where PID is the owner's process id and
 * START its start time (field 22 of /proc/PID/stat, clock ticks after boot,
 * so a reused pid is told apart).  The owner holds a flock() on it for as
 * long as it lives.  A directory of that name, owned by our uid, whose owner
 * is gone and whose lock is free, is what a killed run left behind: the next
 * run that makes a home removes it.
 */
#ifndef P11_HOME_H
#define P11_HOME_H

#include <stddef.h>

struct p11_home {
	char *dir;              /* NULL when there is none */
	int fd;                 /* the directory, locked */
};

/*
 * Remove stale homes, make a new one with SoftHSM2's configuration and an
 * OpenSSL configuration in it, and point SOFTHSM2_CONF and OPENSSL_CONF at
 * them.  BE_OK, or BE_USAGE (a TMPDIR it cannot use) or BE_FAIL with the
 * message in ERR (nothing is left behind).
 */
int p11_home_make(struct p11_home *h, char *err, size_t errlen);

/* Remove the home and everything in it; nothing when there is none. */
void p11_home_remove(struct p11_home *h);

#endif
