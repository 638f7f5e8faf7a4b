/* PKCS#11 module loading, the token, login, and tidying up. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "p11.h"

static const char *const softhsm_paths[] = {
	"/usr/lib/softhsm/libsofthsm2.so",
	"/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so",
	"/usr/lib/aarch64-linux-gnu/softhsm/libsofthsm2.so",
	"/usr/local/lib/softhsm/libsofthsm2.so",
};

static const struct { CK_RV rv; const char *name; } rv_names[] = {
	{ CKR_OK, "CKR_OK" },
	{ CKR_HOST_MEMORY, "CKR_HOST_MEMORY" },
	{ CKR_SLOT_ID_INVALID, "CKR_SLOT_ID_INVALID" },
	{ CKR_GENERAL_ERROR, "CKR_GENERAL_ERROR" },
	{ CKR_FUNCTION_FAILED, "CKR_FUNCTION_FAILED" },
	{ CKR_ARGUMENTS_BAD, "CKR_ARGUMENTS_BAD" },
	{ CKR_CANT_LOCK, "CKR_CANT_LOCK" },
	{ CKR_ATTRIBUTE_VALUE_INVALID, "CKR_ATTRIBUTE_VALUE_INVALID" },
	{ CKR_DATA_LEN_RANGE, "CKR_DATA_LEN_RANGE" },
	{ CKR_DEVICE_ERROR, "CKR_DEVICE_ERROR" },
	{ CKR_KEY_TYPE_INCONSISTENT, "CKR_KEY_TYPE_INCONSISTENT" },
	{ CKR_MECHANISM_INVALID, "CKR_MECHANISM_INVALID" },
	{ CKR_MECHANISM_PARAM_INVALID, "CKR_MECHANISM_PARAM_INVALID" },
	{ CKR_OPERATION_ACTIVE, "CKR_OPERATION_ACTIVE" },
	{ CKR_PIN_INCORRECT, "CKR_PIN_INCORRECT" },
	{ CKR_PIN_LOCKED, "CKR_PIN_LOCKED" },
	{ CKR_SESSION_COUNT, "CKR_SESSION_COUNT" },
	{ CKR_SESSION_HANDLE_INVALID, "CKR_SESSION_HANDLE_INVALID" },
	{ CKR_SIGNATURE_INVALID, "CKR_SIGNATURE_INVALID" },
	{ CKR_TEMPLATE_INCONSISTENT, "CKR_TEMPLATE_INCONSISTENT" },
	{ CKR_TOKEN_NOT_PRESENT, "CKR_TOKEN_NOT_PRESENT" },
	{ CKR_TOKEN_NOT_RECOGNIZED, "CKR_TOKEN_NOT_RECOGNIZED" },
	{ CKR_USER_NOT_LOGGED_IN, "CKR_USER_NOT_LOGGED_IN" },
	{ CKR_USER_PIN_NOT_INITIALIZED, "CKR_USER_PIN_NOT_INITIALIZED" },
	{ CKR_BUFFER_TOO_SMALL, "CKR_BUFFER_TOO_SMALL" },
	{ CKR_CRYPTOKI_NOT_INITIALIZED, "CKR_CRYPTOKI_NOT_INITIALIZED" },
	{ CKR_CRYPTOKI_ALREADY_INITIALIZED, "CKR_CRYPTOKI_ALREADY_INITIALIZED" },
};

const char *p11_rv_name(CK_RV rv)
{
	static __thread char buf[32];
	size_t i;

	for (i = 0; i < sizeof(rv_names) / sizeof(rv_names[0]); i++)
		if (rv_names[i].rv == rv)
			return rv_names[i].name;
	snprintf(buf, sizeof(buf), "CKR 0x%lx", (unsigned long)rv);
	return buf;
}

const char *p11_default_module(void)
{
	size_t i;

	for (i = 0; i < sizeof(softhsm_paths) / sizeof(softhsm_paths[0]); i++)
		if (access(softhsm_paths[i], R_OK) == 0)
			return softhsm_paths[i];
	return NULL;
}

/* PKCS#11 strings are blank-padded, not terminated. */
static void p11_str(char *out, size_t len, const CK_UTF8CHAR *in, size_t inlen)
{
	size_t n = inlen < len - 1 ? inlen : len - 1;

	memcpy(out, in, n);
	while (n && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* The throwaway token's home: SoftHSM2's config and an OpenSSL config that
 * activates the legacy provider (single DES inside SoftHSM2 needs it). */
static int make_home(struct p11 *p, char *err, size_t errlen)
{
	char path[512];
	FILE *f;

	snprintf(p->tmpdir, sizeof(p->tmpdir), "%s/t2accel-token-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(p->tmpdir)) {
		snprintf(err, errlen, "cannot create a temporary token directory: %s", strerror(errno));
		p->tmpdir[0] = '\0';
		return -1;
	}
	snprintf(path, sizeof(path), "%s/tokens", p->tmpdir);
	if (mkdir(path, 0700) < 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/softhsm2.conf", p->tmpdir);
	f = fopen(path, "w");
	if (!f)
		goto fail;
	fprintf(f, "directories.tokendir = %s/tokens\nobjectstore.backend = file\nlog.level = ERROR\n"
		   "slots.removable = false\n", p->tmpdir);
	fclose(f);
	setenv("SOFTHSM2_CONF", path, 1);
	snprintf(path, sizeof(path), "%s/openssl.cnf", p->tmpdir);
	f = fopen(path, "w");
	if (!f)
		goto fail;
	fputs("openssl_conf = openssl_init\n[openssl_init]\nproviders = provider_sect\n"
	      "[provider_sect]\ndefault = default_sect\nlegacy = legacy_sect\n"
	      "[default_sect]\nactivate = 1\n[legacy_sect]\nactivate = 1\n", f);
	fclose(f);
	setenv("OPENSSL_CONF", path, 1);
	return 0;
fail:
	snprintf(err, errlen, "cannot write the temporary token directory %s: %s", p->tmpdir,
		 strerror(errno));
	return -1;
}

static void random_pin(char *pin, size_t len)
{
	unsigned char raw[12];
	size_t i;

	RAND_bytes(raw, sizeof(raw));
	for (i = 0; i < sizeof(raw) && 2 * i + 2 < len; i++)
		snprintf(pin + 2 * i, 3, "%02x", raw[i]);
}

static int find_label(struct p11 *p, const char *label, CK_SLOT_ID *slot)
{
	CK_SLOT_ID ids[256];
	CK_ULONG n = 256, i;
	CK_TOKEN_INFO ti;
	char have[40];

	if (p->f->C_GetSlotList(CK_TRUE, ids, &n) != CKR_OK)
		return -1;
	for (i = 0; i < n; i++) {
		if (p->f->C_GetTokenInfo(ids[i], &ti) != CKR_OK)
			continue;
		p11_str(have, sizeof(have), ti.label, sizeof(ti.label));
		if (strcmp(have, label) == 0) {
			*slot = ids[i];
			return 0;
		}
	}
	return -1;
}

/* Initialise SoftHSM2's free slot as a token with random SO and user PINs,
 * and log the user in. */
static int throwaway_token(struct p11 *p, char *err, size_t errlen)
{
	CK_SLOT_ID ids[64];
	CK_ULONG n = 64, i;
	CK_TOKEN_INFO ti;
	CK_UTF8CHAR label[32];
	char so[32] = "", user[32] = "", name[33];
	CK_RV rv;

	if ((rv = p->f->C_GetSlotList(CK_FALSE, ids, &n)) != CKR_OK)
		goto ckr;
	for (i = 0; i < n; i++)
		if (p->f->C_GetTokenInfo(ids[i], &ti) == CKR_OK && !(ti.flags & CKF_TOKEN_INITIALIZED))
			break;
	if (i == n) {
		snprintf(err, errlen, "the module offers no free slot for a temporary token");
		return BE_FAIL;
	}
	random_pin(so, sizeof(so));
	random_pin(user, sizeof(user));
	snprintf(name, sizeof(name), "t2accel-%d", (int)getpid());
	memset(label, ' ', sizeof(label));
	memcpy(label, name, strlen(name));
	if ((rv = p->f->C_InitToken(ids[i], (CK_UTF8CHAR_PTR)so, strlen(so), label)) != CKR_OK)
		goto ckr;
	/* SoftHSM2 renumbers the slot of a new token: find it by its label. */
	if (find_label(p, name, &p->slot) < 0) {
		snprintf(err, errlen, "the new token '%s' did not appear in the slot list", name);
		return BE_FAIL;
	}
	if ((rv = p->f->C_OpenSession(p->slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL, NULL,
				      &p->login)) != CKR_OK ||
	    (rv = p->f->C_Login(p->login, CKU_SO, (CK_UTF8CHAR_PTR)so, strlen(so))) != CKR_OK ||
	    (rv = p->f->C_InitPIN(p->login, (CK_UTF8CHAR_PTR)user, strlen(user))) != CKR_OK ||
	    (rv = p->f->C_Logout(p->login)) != CKR_OK ||
	    (rv = p->f->C_Login(p->login, CKU_USER, (CK_UTF8CHAR_PTR)user, strlen(user))) != CKR_OK)
		goto ckr;
	explicit_bzero(so, sizeof(so));
	explicit_bzero(user, sizeof(user));
	return BE_OK;
ckr:
	explicit_bzero(so, sizeof(so));
	explicit_bzero(user, sizeof(user));
	snprintf(err, errlen, "setting up the temporary token failed: %s", p11_rv_name(rv));
	return BE_FAIL;
}

/* The user PIN of an existing token: T2ACCEL_PIN, or the first line of
 * --pin-file.  Never from the command line, never printed. */
static int read_pin(const struct backend_opts *o, char *pin, size_t len, char *err, size_t errlen)
{
	FILE *f;

	if (o->pin_file) {
		f = fopen(o->pin_file, "r");
		if (!f) {
			snprintf(err, errlen, "pin-file: cannot read '%s': %s", o->pin_file, strerror(errno));
			return -1;
		}
		if (!fgets(pin, (int)len, f))
			pin[0] = '\0';
		fclose(f);
		pin[strcspn(pin, "\r\n")] = '\0';
	} else if (getenv("T2ACCEL_PIN")) {
		snprintf(pin, len, "%s", getenv("T2ACCEL_PIN"));
	} else {
		snprintf(err, errlen, "PIN: an existing token needs its user PIN in T2ACCEL_PIN or --pin-file FILE");
		return -1;
	}
	return 0;
}

static int existing_token(struct p11 *p, const struct backend_opts *o, char *err, size_t errlen)
{
	CK_SLOT_ID ids[256];
	CK_ULONG n = 256, i;
	char pin[256];
	CK_RV rv;

	if (o->token_label) {
		if (find_label(p, o->token_label, &p->slot) < 0) {
			snprintf(err, errlen, "token-label: no token labelled '%s' in this module",
				 o->token_label);
			return BE_USAGE;
		}
	} else {
		if (p->f->C_GetSlotList(CK_TRUE, ids, &n) != CKR_OK)
			n = 0;
		for (i = 0; i < n && ids[i] != o->slot; i++)
			;
		if (i == n) {
			snprintf(err, errlen, "slot: %llu has no token in this module (%lu slot(s) with a token)",
				 (unsigned long long)o->slot, (unsigned long)n);
			return BE_USAGE;
		}
		p->slot = (CK_SLOT_ID)o->slot;
	}
	if (read_pin(o, pin, sizeof(pin), err, errlen) < 0)
		return BE_USAGE;
	rv = p->f->C_OpenSession(p->slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL, NULL, &p->login);
	if (rv == CKR_OK)
		rv = p->f->C_Login(p->login, CKU_USER, (CK_UTF8CHAR_PTR)pin, strlen(pin));
	explicit_bzero(pin, sizeof(pin));
	if (rv == CKR_PIN_INCORRECT || rv == CKR_PIN_LEN_RANGE) {
		snprintf(err, errlen, "PIN: the token refused the user PIN (%s)", p11_rv_name(rv));
		return BE_USAGE;
	}
	if (rv != CKR_OK && rv != CKR_USER_ALREADY_LOGGED_IN) {
		snprintf(err, errlen, "opening a session and logging in failed: %s", p11_rv_name(rv));
		return BE_FAIL;
	}
	return BE_OK;
}

static int load_module(struct p11 *p, const char *path, char *err, size_t errlen)
{
	CK_C_GetFunctionList get;
	struct stat st;

	if (stat(path, &st) < 0) {
		snprintf(err, errlen, "module: '%s' does not exist", path);
		return BE_USAGE;
	}
	p->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!p->dl) {
		snprintf(err, errlen, "module: '%s' cannot be loaded: %s", path, dlerror());
		return BE_USAGE;
	}
	get = (CK_C_GetFunctionList)dlsym(p->dl, "C_GetFunctionList");
	if (!get) {
		snprintf(err, errlen, "module: '%s' is not a PKCS#11 module (no C_GetFunctionList)", path);
		return BE_USAGE;
	}
	if (get(&p->f) != CKR_OK || !p->f) {
		snprintf(err, errlen, "module: '%s': C_GetFunctionList failed", path);
		return BE_FAIL;
	}
	return BE_OK;
}

static void describe(struct p11 *p, const char *path)
{
	CK_INFO info;
	CK_TOKEN_INFO ti;
	char man[40] = "?", lib[40] = "?", label[40] = "?";

	if (p->f->C_GetInfo(&info) == CKR_OK) {
		p11_str(man, sizeof(man), info.manufacturerID, sizeof(info.manufacturerID));
		p11_str(lib, sizeof(lib), info.libraryDescription, sizeof(info.libraryDescription));
	}
	if (p->f->C_GetTokenInfo(p->slot, &ti) == CKR_OK)
		p11_str(label, sizeof(label), ti.label, sizeof(ti.label));
	snprintf(p->impl, sizeof(p->impl), "%s %u.%u (%s), module %s, token '%s'%s in slot %lu", lib,
		 info.libraryVersion.major, info.libraryVersion.minor, man, path, label,
		 p->tmpdir[0] ? " (temporary)" : "", (unsigned long)p->slot);
}

int p11_open(struct p11 *p, const struct backend_opts *o, char *err, size_t errlen)
{
	CK_C_INITIALIZE_ARGS args = { .flags = CKF_OS_LOCKING_OK };
	const char *path = o->module ? o->module : p11_default_module();
	bool existing = o->slot_set || o->token_label;
	CK_RV rv;
	int ret;

	memset(p, 0, sizeof(*p));
	if (!path) {
		snprintf(err, errlen, "module: SoftHSM2 not found (apt-get install softhsm2), or give --module PATH");
		return BE_SKIP;
	}
	if (access(path, F_OK) < 0) {
		snprintf(err, errlen, "module: '%s' does not exist", path);
		return BE_USAGE;
	}
	if (!existing && !strstr(path, "softhsm")) {
		snprintf(err, errlen, "module: '%s' is not SoftHSM2: name its token with --slot or --token-label",
			 path);
		return BE_USAGE;
	}
	if (o->pin_file && !existing) {
		snprintf(err, errlen, "--pin-file goes with --slot or --token-label (a temporary token has its own PIN)");
		return BE_USAGE;
	}
	if ((ret = load_module(p, path, err, errlen)) != BE_OK)
		goto fail;
	if (!existing && make_home(p, err, errlen) < 0) {
		ret = BE_FAIL;
		goto fail;
	}
	/* Without CKF_OS_LOCKING_OK, SoftHSM2 turns its own locking off and
	 * corrupts memory under threads. */
	rv = p->f->C_Initialize(&args);
	if (rv != CKR_OK) {
		snprintf(err, errlen, "module: C_Initialize failed: %s", p11_rv_name(rv));
		ret = BE_FAIL;
		goto fail;
	}
	p->initialized = true;
	ret = existing ? existing_token(p, o, err, errlen) : throwaway_token(p, err, errlen);
	if (ret != BE_OK)
		goto fail;
	if (p->f->C_GetMechanismList(p->slot, NULL, &p->nmechs) == CKR_OK &&
	    (p->mechs = calloc(p->nmechs + 1, sizeof(*p->mechs))) &&
	    p->f->C_GetMechanismList(p->slot, p->mechs, &p->nmechs) != CKR_OK)
		p->nmechs = 0;
	describe(p, path);
	return BE_OK;
fail:
	p11_close(p);
	return ret;
}

void p11_close(struct p11 *p)
{
	if (p->f && p->initialized) {
		p->f->C_CloseAllSessions(p->slot);
		p->f->C_Finalize(NULL);
	}
	if (p->dl)
		dlclose(p->dl);
	if (p->tmpdir[0]) {
		nftw(p->tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		unsetenv("SOFTHSM2_CONF");
		unsetenv("OPENSSL_CONF");
	}
	free(p->mechs);
	memset(p, 0, sizeof(*p));
}

bool p11_has_mechanism(const struct p11 *p, CK_MECHANISM_TYPE m)
{
	CK_ULONG i;

	for (i = 0; i < p->nmechs; i++)
		if (p->mechs[i] == m)
			return true;
	return false;
}
