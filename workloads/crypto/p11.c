/* PKCS#11 module loading, the token, login, and tidying up. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "escape.h"
#include "exitguard.h"
#include "p11.h"
#include "p11_conf.h"

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
	{ CKR_ENCRYPTED_DATA_INVALID, "CKR_ENCRYPTED_DATA_INVALID" },
	{ CKR_KEY_SIZE_RANGE, "CKR_KEY_SIZE_RANGE" },
	{ CKR_ATTRIBUTE_SENSITIVE, "CKR_ATTRIBUTE_SENSITIVE" },
	{ CKR_ATTRIBUTE_TYPE_INVALID, "CKR_ATTRIBUTE_TYPE_INVALID" },
	{ CKR_CURVE_NOT_SUPPORTED, "CKR_CURVE_NOT_SUPPORTED" },
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
	/* NSS's vendor codes (CKR_NSS + 1, + 2): its databases would not open. */
	{ 0xCE534351ul, "CKR_NSS_CERTDB_FAILED" },
	{ 0xCE534352ul, "CKR_NSS_KEYDB_FAILED" },
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

int p11_ckr(CK_RV rv, const char *what, char *err, size_t errlen)
{
	if (rv == CKR_OK)
		return 0;
	snprintf(err, errlen, "%s failed: %s", what, p11_rv_name(rv));
	return -1;
}

const char *p11_default_module(void)
{
	size_t i;

	for (i = 0; i < sizeof(softhsm_paths) / sizeof(softhsm_paths[0]); i++)
		if (access(softhsm_paths[i], R_OK) == 0)
			return softhsm_paths[i];
	return NULL;
}

/* PKCS#11 strings are blank-padded, not terminated; a module's control
 * bytes never reach a terminal or a row. */
static void p11_str(char *out, size_t len, const CK_UTF8CHAR *in, size_t inlen)
{
	size_t n = inlen < len - 1 ? inlen : len - 1, i;

	memcpy(out, in, n);
	while (n && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
	for (i = 0; i < n; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			out[i] = '?';
}

/* The slots with a token, "slot 1 'NSS Generic Crypto Services', ..." into
 * BUF for messages; their count.  *HAS: whether SLOT is among them. */
static CK_ULONG token_list(struct p11 *p, CK_SLOT_ID slot, bool *has, char *buf, size_t len)
{
	CK_SLOT_ID ids[256];
	CK_ULONG n = 256, i;
	CK_TOKEN_INFO ti;
	char label[40] = "?";
	size_t used = 0;
	int k;

	buf[0] = '\0';
	*has = false;
	if (p->f->C_GetSlotList(CK_TRUE, ids, &n) != CKR_OK)
		return 0;
	for (i = 0; i < n; i++) {
		*has |= ids[i] == slot;
		ti.flags = CKF_TOKEN_INITIALIZED;
		strcpy(label, "?");
		if (p->f->C_GetTokenInfo(ids[i], &ti) == CKR_OK)
			p11_str(label, sizeof(label), ti.label, sizeof(ti.label));
		k = snprintf(buf + used, len - used, "%sslot %lu %s%s%s", i ? ", " : "",
			     (unsigned long)ids[i], ti.flags & CKF_TOKEN_INITIALIZED ? "'" : "",
			     ti.flags & CKF_TOKEN_INITIALIZED ? ESC(label) : "(not initialised)",
			     ti.flags & CKF_TOKEN_INITIALIZED ? "'" : "");
		if (k > 0 && (size_t)k < len - used)
			used += (size_t)k;
	}
	return n;
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
		snprintf(err, errlen, "the new token '%s' did not appear in the slot list", ESC(name));
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

/* What kind of file M says, for a message. */
static const char *file_kind(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" :
	       S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

/* A PIN must be 1..P11_PIN_MAX bytes with no NUL: anything else is refused
 * here rather than sent to C_Login, where a real token counts it as a
 * failed login against its retry limit.  The message names the source
 * (the PIN file PATH, else T2ACCEL_PIN), never the PIN. */
static int pin_ok(const char *path, const char *pin, size_t len, char *err, size_t errlen)
{
	const char *pre = path ? "pin-file: '" : "T2ACCEL_PIN", *post = path ? "'" : "";

	if (!path)
		path = "";
	if (len == 0)
		snprintf(err, errlen, "%s%s%s is empty; a PIN is 1 to %d bytes", pre, path, post,
			 P11_PIN_MAX);
	else if (len > P11_PIN_MAX)
		snprintf(err, errlen, "%s%s%s holds more than %d bytes; a PIN is 1 to %d bytes", pre, path,
			 post, P11_PIN_MAX, P11_PIN_MAX);
	else if (memchr(pin, '\0', len))
		snprintf(err, errlen, "%s%s%s holds a NUL byte, which a PIN cannot", pre, path, post);
	else
		return 0;
	return -1;
}

/* --pin-file: like ssh with a key file, a regular file (never waiting on a
 * FIFO) that only its owner, us or root, can read; one line, its newline
 * stripped. */
/* The PIN file open at FD: a regular file, unless INSECURE only its
 * owner's (you or root) and only they may read it.  0, or -1 with ERR. */
static int pin_file_ok(int fd, const char *path, bool insecure, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		snprintf(err, errlen, "pin-file: cannot read '%s': %s", ESC(path), strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "pin-file: '%s' is %s; a PIN file is a regular file", ESC(path),
			 file_kind(st.st_mode));
		return -1;
	}
	if (!insecure && (st.st_mode & 077)) {
		snprintf(err, errlen, "pin-file: '%s' is open to group or others (mode %04o); chmod 600 it, or give --insecure-files",
			 ESC(path), (unsigned)(st.st_mode & 07777));
		return -1;
	}
	if (!insecure && st.st_uid != geteuid() && st.st_uid != 0) {
		snprintf(err, errlen, "pin-file: '%s' belongs to uid %u, neither you nor root; or give --insecure-files",
			 ESC(path), (unsigned)st.st_uid);
		return -1;
	}
	return 0;
}

static int read_pin_file(const char *path, bool insecure, char *pin, size_t *len, char *err,
			 size_t errlen)
{
	/* Room for the longest PIN, a CR LF, and one byte more to see excess. */
	char buf[P11_PIN_MAX + 3];
	size_t n = 0;
	ssize_t r;
	int fd, ret = -1;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "pin-file: cannot read '%s': %s", ESC(path), strerror(errno));
		return -1;
	}
	if (pin_file_ok(fd, path, insecure, err, errlen) < 0)
		goto out;
	while (n < sizeof(buf)) {
		r = read(fd, buf + n, sizeof(buf) - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "pin-file: cannot read '%s': %s", ESC(path), strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n && buf[n - 1] == '\n')
		n--;
	if (n && buf[n - 1] == '\r')
		n--;
	if (n <= P11_PIN_MAX && memchr(buf, '\n', n)) {
		snprintf(err, errlen, "pin-file: '%s' holds more than one line; a PIN file holds the PIN alone", ESC(path));
		goto out;
	}
	if (pin_ok(path, buf, n, err, errlen) < 0)
		goto out;
	memcpy(pin, buf, n);
	*len = n;
	ret = 0;
out:
	explicit_bzero(buf, sizeof(buf));
	close(fd);
	return ret;
}

/* T2ACCEL_PIN into PIN (unless PIN is NULL; *LEN stays 0 when there is
 * none), then out of the environment: environ loses every entry of that
 * name, and their bytes are cleared, since /proc/PID/environ shows the
 * strings the process started with. */
static int take_env_pin(char *pin, size_t *len, char *err, size_t errlen)
{
	static const char name[] = "T2ACCEL_PIN=";
	const size_t nl = sizeof(name) - 1;
	char **r, **w;
	bool found = false;
	int ret = 0;

	for (r = w = environ; *r; r++) {
		if (strncmp(*r, name, nl)) {
			*w++ = *r;
			continue;
		}
		if (!found && pin) {
			size_t n = strlen(*r + nl);

			ret = pin_ok(NULL, *r + nl, n, err, errlen);
			if (!ret) {
				memcpy(pin, *r + nl, n);
				*len = n;
			}
		}
		found = true;
		explicit_bzero(*r, strlen(*r));
	}
	*w = NULL;
	return ret;
}

/* The user PIN of an existing token (EXISTING), if given: --pin-file, else
 * T2ACCEL_PIN; whether the token needs one is asked later.  Never from the
 * command line, never printed; T2ACCEL_PIN leaves the environment whether
 * it is the PIN or not. */
static int read_pin(const struct backend_opts *o, bool existing, char *pin, size_t *len, char *err,
		    size_t errlen)
{
	int ret = 0;

	if (existing && !o->pin_file)
		return take_env_pin(pin, len, err, errlen);
	if (existing)
		ret = read_pin_file(o->pin_file, o->insecure_files, pin, len, err, errlen);
	take_env_pin(NULL, NULL, NULL, 0);
	return ret;
}

/* Whether the token in slot P->slot takes a PIN of LEN bytes, when it says
 * its range (it may not: 0 or CK_UNAVAILABLE_INFORMATION). */
static int pin_fits(struct p11 *p, size_t len, char *err, size_t errlen)
{
	CK_TOKEN_INFO ti;
	char label[40];

	if (p->f->C_GetTokenInfo(p->slot, &ti) != CKR_OK)
		return 0;
	p11_str(label, sizeof(label), ti.label, sizeof(ti.label));
	if (ti.ulMaxPinLen && ti.ulMaxPinLen != CK_UNAVAILABLE_INFORMATION && len > ti.ulMaxPinLen) {
		snprintf(err, errlen, "PIN: longer than token '%s' takes (%lu..%lu bytes); not sent to it",
			 ESC(label), (unsigned long)ti.ulMinPinLen, (unsigned long)ti.ulMaxPinLen);
		return -1;
	}
	if (ti.ulMinPinLen != CK_UNAVAILABLE_INFORMATION && len < ti.ulMinPinLen) {
		snprintf(err, errlen, "PIN: shorter than token '%s' takes (%lu..%lu bytes); not sent to it",
			 ESC(label), (unsigned long)ti.ulMinPinLen, (unsigned long)ti.ulMaxPinLen);
		return -1;
	}
	return 0;
}

/* A session on P's slot, the user logged in with PIN (PINLEN bytes). */
static int user_login(struct p11 *p, const char *pin, size_t pinlen, char *err, size_t errlen)
{
	CK_RV rv;

	if (pin_fits(p, pinlen, err, errlen) < 0)
		return BE_USAGE;
	rv = p->f->C_OpenSession(p->slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL, NULL, &p->login);
	if (rv == CKR_OK)
		rv = p->f->C_Login(p->login, CKU_USER, (CK_UTF8CHAR_PTR)pin, (CK_ULONG)pinlen);
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

/* The token the user named, logged in when it asks for a login.  BE_SKIP
 * when the module has no token at all. */
static int existing_token(struct p11 *p, const struct backend_opts *o, const char *path,
			  const char *pin, size_t pinlen, char *err, size_t errlen)
{
	CK_TOKEN_INFO ti;
	char tokens[512], label[40] = "?";
	bool has;

	if (!token_list(p, (CK_SLOT_ID)o->slot, &has, tokens, sizeof(tokens))) {
		snprintf(err, errlen, "module: '%s' offers no slot with a token: nothing to run on", ESC(path));
		return BE_SKIP;
	}
	if (o->token_label && find_label(p, o->token_label, &p->slot) < 0) {
		snprintf(err, errlen, "token-label: no token labelled '%s' in this module; its tokens: %s",
			 ESC(o->token_label), tokens);
		return BE_USAGE;
	}
	if (!o->token_label && !o->slot_set) {
		snprintf(err, errlen, "module: '%s' is not SoftHSM2: name its token with --slot N or --token-label LABEL; its tokens: %s",
			 ESC(path), tokens);
		return BE_USAGE;
	}
	if (!o->token_label && !has) {
		snprintf(err, errlen, "slot: %llu has no token in this module; its tokens: %s",
			 (unsigned long long)o->slot, tokens);
		return BE_USAGE;
	}
	if (!o->token_label)
		p->slot = (CK_SLOT_ID)o->slot;
	/* A token that needs no login (NSS's crypto services) gets none: its
	 * session objects are all the workers use. */
	if (p->f->C_GetTokenInfo(p->slot, &ti) == CKR_OK) {
		p11_str(label, sizeof(label), ti.label, sizeof(ti.label));
		if (!(ti.flags & CKF_TOKEN_INITIALIZED)) {
			snprintf(err, errlen, "slot: %lu holds a token not initialised yet (softhsm2-util --init-token, or leave --slot out for a temporary one); its tokens: %s",
				 (unsigned long)p->slot, tokens);
			return BE_USAGE;
		}
		if (!(ti.flags & CKF_LOGIN_REQUIRED))
			return BE_OK;
	}
	if (!pinlen) {
		snprintf(err, errlen, "PIN: token '%s' in slot %lu needs a login: give its user PIN in T2ACCEL_PIN or --pin-file FILE, or another --slot; its tokens: %s",
			 ESC(label), (unsigned long)p->slot, tokens);
		return BE_USAGE;
	}
	return user_login(p, pin, pinlen, err, errlen);
}

/* The directory of the module's path as given, and of the file it
 * resolves to: only you or root may write them (the sticky /tmp aside). */
static int check_module_dirs(const char *path, char *err, size_t errlen)
{
	char *copy[2];
	const char *dir;
	struct stat st;
	int i, ret = BE_USAGE;

	copy[0] = strdup(path);
	copy[1] = realpath(path, NULL);
	for (i = 0; i < 2; i++) {
		if (!copy[i]) {
			snprintf(err, errlen, "module: '%s' cannot be resolved: %s", ESC(path), strerror(errno));
			goto out;
		}
		dir = strchr(copy[i], '/') ? dirname(copy[i]) : ".";
		if (stat(dir, &st) < 0) {
			snprintf(err, errlen, "module: directory '%s' cannot be used: %s", ESC(dir), strerror(errno));
			goto out;
		}
		if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX)) {
			snprintf(err, errlen, "module: directory '%s' is writable by group or others (mode %04o); chmod go-w it, or give --insecure-files",
				 ESC(dir), (unsigned)(st.st_mode & 07777));
			goto out;
		}
		if (st.st_uid != geteuid() && st.st_uid != 0) {
			snprintf(err, errlen, "module: directory '%s' belongs to uid %u, neither you nor root; or give --insecure-files",
				 ESC(dir), (unsigned)st.st_uid);
			goto out;
		}
	}
	ret = BE_OK;
out:
	free(copy[0]);
	free(copy[1]);
	return ret;
}

/* Like ssh with key files: the module is code we run, so it must be a
 * regular file (stat first: dlopen would wait on a FIFO) that only its
 * owner, us or root, can change, in a directory the same holds for (or a
 * sticky one, where others cannot replace it). */
static int check_module(const char *path, bool insecure, char *err, size_t errlen)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		if (errno == ENOENT)
			snprintf(err, errlen, "module: '%s' does not exist", ESC(path));
		else
			snprintf(err, errlen, "module: '%s' cannot be used: %s", ESC(path), strerror(errno));
		return BE_USAGE;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "module: '%s' is %s; a module is a regular file", ESC(path),
			 file_kind(st.st_mode));
		return BE_USAGE;
	}
	if (insecure)
		return BE_OK;
	if (st.st_mode & 022) {
		snprintf(err, errlen, "module: '%s' is writable by group or others (mode %04o); chmod go-w it, or give --insecure-files",
			 ESC(path), (unsigned)(st.st_mode & 07777));
		return BE_USAGE;
	}
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		snprintf(err, errlen, "module: '%s' belongs to uid %u, neither you nor root; or give --insecure-files",
			 ESC(path), (unsigned)st.st_uid);
		return BE_USAGE;
	}
	return check_module_dirs(path, err, errlen);
}

/* Every entry of the function list t2accel calls.  PKCS#11 has a module
 * answer CKR_FUNCTION_NOT_SUPPORTED for what it lacks, never leave a NULL:
 * one is a broken module, refused before any call (not a SIGSEGV). */
#define P11_ENTRY(name) { #name, offsetof(CK_FUNCTION_LIST, name) }
static const struct { const char *name; size_t off; } p11_entries[] = {
	P11_ENTRY(C_Initialize), P11_ENTRY(C_Finalize), P11_ENTRY(C_GetInfo),
	P11_ENTRY(C_GetSlotList), P11_ENTRY(C_GetTokenInfo), P11_ENTRY(C_GetMechanismList),
	P11_ENTRY(C_InitToken), P11_ENTRY(C_InitPIN), P11_ENTRY(C_OpenSession),
	P11_ENTRY(C_CloseSession), P11_ENTRY(C_CloseAllSessions), P11_ENTRY(C_Login),
	P11_ENTRY(C_Logout), P11_ENTRY(C_CreateObject), P11_ENTRY(C_DestroyObject),
	P11_ENTRY(C_GetAttributeValue), P11_ENTRY(C_EncryptInit), P11_ENTRY(C_Encrypt),
	P11_ENTRY(C_DigestInit), P11_ENTRY(C_Digest), P11_ENTRY(C_SignInit), P11_ENTRY(C_Sign),
	P11_ENTRY(C_VerifyInit), P11_ENTRY(C_Verify),
};

/* The first entry of F t2accel calls that is NULL, or NULL. */
static const char *missing_entry(const CK_FUNCTION_LIST *f)
{
	void (*fn)(void);
	size_t i;

	for (i = 0; i < sizeof(p11_entries) / sizeof(p11_entries[0]); i++) {
		memcpy(&fn, (const char *)f + p11_entries[i].off, sizeof(fn));
		if (!fn)
			return p11_entries[i].name;
	}
	return NULL;
}

static int load_module(struct p11 *p, const char *path, char *err, size_t errlen)
{
	CK_C_GetFunctionList get;
	const char *missing;

	p->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!p->dl) {
		snprintf(err, errlen, "module: '%s' cannot be loaded: %s", ESC(path), dlerror());
		return BE_USAGE;
	}
	get = (CK_C_GetFunctionList)dlsym(p->dl, "C_GetFunctionList");
	if (!get) {
		snprintf(err, errlen, "module: '%s' is not a PKCS#11 module (no C_GetFunctionList)", ESC(path));
		return BE_USAGE;
	}
	if (get(&p->f) != CKR_OK || !p->f) {
		snprintf(err, errlen, "module: '%s': C_GetFunctionList failed", ESC(path));
		return BE_FAIL;
	}
	if ((missing = missing_entry(p->f))) {
		snprintf(err, errlen, "module: '%s' is broken: its function list has no %s (NULL; a module answers CKR_FUNCTION_NOT_SUPPORTED for what it lacks)",
			 ESC(path), missing);
		p->f = NULL;
		return BE_FAIL;
	}
	return BE_OK;
}

/* Why C_Initialize failed, and what to give when the module wants an
 * initialisation string (ARGS, NULL when none was given). */
static int init_failed(struct p11 *p, CK_RV rv, const char *args, char *err, size_t errlen)
{
	if (rv == 0xCE534351ul || rv == 0xCE534352ul) {
		snprintf(err, errlen, "module: C_Initialize failed: %s: NSS's softokn cannot open the database its --module-args name; configdir='' with flags=noCertDB,noModDB uses none",
			 p11_rv_name(rv));
		return BE_USAGE;
	}
	if (rv != CKR_ARGUMENTS_BAD) {
		snprintf(err, errlen, "module: C_Initialize failed: %s", p11_rv_name(rv));
		return BE_FAIL;
	}
	/* NSC_GetFunctionList is NSS's softokn's own name for its entry. */
	if (!args && dlsym(p->dl, "NSC_GetFunctionList"))
		snprintf(err, errlen, "module: C_Initialize failed: CKR_ARGUMENTS_BAD: NSS's softokn needs its configuration in --module-args, e.g. \"%s\" (no database; slot 1 is its crypto token)",
			 P11_NSS_NO_DB);
	else if (!args)
		snprintf(err, errlen, "module: C_Initialize failed: CKR_ARGUMENTS_BAD: the module may want an initialisation string: give it in --module-args");
	else
		snprintf(err, errlen, "module: C_Initialize failed: CKR_ARGUMENTS_BAD: the module refused its initialisation string '%.200s'",
			 args);
	return BE_USAGE;
}

/* C_Initialize, where a module may end the process: the exit guard
 * (exitguard.h) then names it. */
static CK_RV initialize(struct p11 *p, const char *path, CK_C_INITIALIZE_ARGS *args)
{
	char during[PATH_MAX + 64];
	CK_RV rv;

	snprintf(during, sizeof(during), "PKCS#11 module '%s', C_Initialize", ESC(path));
	exit_guard_during(during);
	rv = p->f->C_Initialize(args);
	exit_guard_during(NULL);
	return rv;
}

static void describe(struct p11 *p, const char *path, const char *kit_name)
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
	/* impl names one implementation across runs: a temporary token's label
	 * and slot change every run, so they stay out of it.  A module found by
	 * its p11-kit name is named by its file too. */
	if (p->home.dir)
		snprintf(p->impl, sizeof(p->impl), "%s %u.%u (%s), module %s%s%s%s, a temporary token",
			 lib, info.libraryVersion.major, info.libraryVersion.minor, man, path,
			 kit_name ? " (p11-kit " : "", kit_name ? kit_name : "", kit_name ? ")" : "");
	else
		snprintf(p->impl, sizeof(p->impl), "%s %u.%u (%s), module %s%s%s%s, token '%s' in slot %lu",
			 lib, info.libraryVersion.major, info.libraryVersion.minor, man, path,
			 kit_name ? " (p11-kit " : "", kit_name ? kit_name : "", kit_name ? ")" : "",
			 label, (unsigned long)p->slot);
}

/* The module to load: --module (found as p11-kit finds it) or SoftHSM2's,
 * its file checked. */
static int choose_module(const struct backend_opts *o, struct p11_module_ref *ref,
			 const char **path, char *err, size_t errlen)
{
	int ret;

	if (o->module_dir && !o->module) {
		snprintf(err, errlen, "--module-dir goes with --module NAME");
		return BE_USAGE;
	}
	if (o->module && (ret = p11_module_find(o->module, o->module_dir, ref, err, errlen)) != BE_OK)
		return ret;
	*path = o->module ? ref->path : p11_default_module();
	if (!*path) {
		snprintf(err, errlen, "module: SoftHSM2 not found (apt-get install softhsm2), or give --module PATH");
		return BE_SKIP;
	}
	return check_module(*path, o->insecure_files, err, errlen);
}

/* C_Initialize, with the module's arguments. */
static int init_module(struct p11 *p, const struct backend_opts *o,
		       const struct p11_module_ref *ref, const char *path, char *err, size_t errlen)
{
	CK_C_INITIALIZE_ARGS args = { .flags = CKF_OS_LOCKING_OK };
	/* Without CKF_OS_LOCKING_OK, SoftHSM2 turns its own locking off and
	 * corrupts memory under threads.  pReserved carries what NSS's softokn
	 * (and p11-kit's x-init-reserved) pass a module. */
	const char *init_args = o->module_args ? o->module_args : ref->args;
	CK_RV rv;

	/* NSS's softokn (3.87) dereferences a configdir it was not given unless
	 * told to open no database: refused here, not left to crash. */
	if (init_args && dlsym(p->dl, "NSC_GetFunctionList") && !strcasestr(init_args, "configdir=") &&
	    !strcasestr(init_args, "nocertdb")) {
		snprintf(err, errlen, "module-args: NSS's softokn needs configdir='DIR' or flags=noCertDB in '%.200s' (it crashes without), e.g. \"%s\"",
			 init_args, P11_NSS_NO_DB);
		return BE_USAGE;
	}
	args.pReserved = (CK_VOID_PTR)init_args;
	rv = initialize(p, path, &args);
	if (rv != CKR_OK)
		return init_failed(p, rv, init_args, err, errlen);
	p->initialized = true;
	return BE_OK;
}

/* The token's mechanisms, for supports(); none when they cannot be read. */
static void read_mechanisms(struct p11 *p)
{
	if (p->f->C_GetMechanismList(p->slot, NULL, &p->nmechs) == CKR_OK &&
	    (p->mechs = calloc(p->nmechs + 1, sizeof(*p->mechs))) &&
	    p->f->C_GetMechanismList(p->slot, p->mechs, &p->nmechs) != CKR_OK)
		p->nmechs = 0;
}

int p11_open(struct p11 *p, const struct backend_opts *o, char *err, size_t errlen)
{
	struct p11_module_ref ref = { 0 };
	const char *path = NULL;
	bool existing = o->slot_set || o->token_label, throwaway;
	char pin[P11_PIN_MAX];
	size_t pinlen = 0;
	int ret;

	memset(p, 0, sizeof(*p));
	if ((ret = choose_module(o, &ref, &path, err, errlen)) != BE_OK)
		goto fail;
	throwaway = !existing && strstr(path, "softhsm");
	if (o->pin_file && !existing) {
		snprintf(err, errlen, "--pin-file goes with --slot or --token-label (a temporary token has its own PIN)");
		ret = BE_USAGE;
		goto fail;
	}
	if ((ret = load_module(p, path, err, errlen)) != BE_OK)
		goto fail;
	/* The PIN is checked before the module is initialised. */
	if (read_pin(o, existing, pin, &pinlen, err, errlen) < 0) {
		ret = BE_USAGE;
		goto fail;
	}
	if (throwaway && (ret = p11_home_make(&p->home, err, errlen)) != BE_OK)
		goto fail;
	if ((ret = init_module(p, o, &ref, path, err, errlen)) != BE_OK)
		goto fail;
	ret = throwaway ? throwaway_token(p, err, errlen) :
			  existing_token(p, o, path, pin, pinlen, err, errlen);
	if (ret != BE_OK)
		goto fail;
	p->slot_set = true;
	read_mechanisms(p);
	describe(p, path, ref.kit_name);
	explicit_bzero(pin, sizeof(pin));
	p11_module_ref_free(&ref);
	return BE_OK;
fail:
	explicit_bzero(pin, sizeof(pin));
	p11_close(p);
	p11_module_ref_free(&ref);
	return ret;
}

void p11_close(struct p11 *p)
{
	if (p->f && p->initialized) {
		if (p->slot_set)
			p->f->C_CloseAllSessions(p->slot);
		p->f->C_Finalize(NULL);
	}
	if (p->dl)
		dlclose(p->dl);
	p11_home_remove(&p->home);
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
