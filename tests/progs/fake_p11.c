/*
 * A small fake PKCS#11 module for the tests: one slot (0) with a token
 * labelled "fake", user PIN "1234", one mechanism (CKM_SHA256, computed with
 * OpenSSL so cross-checks pass), and faults on demand through FAKE_P11_FAIL:
 *   initialize   C_Initialize returns CKR_GENERAL_ERROR
 *   open:N       the N-th C_OpenSession and every one after it return
 *                CKR_DEVICE_ERROR (open:1, all of them)
 *   login        C_Login returns CKR_DEVICE_ERROR
 *   digest:N     the N-th C_Digest (counted over all sessions) returns
 *                CKR_DEVICE_ERROR, and every one after it
 *   digest-after:S  every C_Digest from S seconds after C_Initialize on
 *                returns CKR_DEVICE_ERROR (a failure in the middle of a run)
 *   wrong:N      the N-th C_Digest and every one after it return CKR_OK
 *                with one bit of the digest flipped (a token that lies)
 *   wrong-after:S  the same for every C_Digest from S seconds on
 *   notoken      no slot holds a token
 *   need-args    C_Initialize returns CKR_ARGUMENTS_BAD without an
 *                initialisation string (pReserved), as NSS's softokn does
 *   null:C_Initialize, null:C_Digest  that entry of the function list is
 *                NULL (a broken module)
 *   exit         C_Initialize calls exit(0): the process ends inside the call
 *   _exit        C_Initialize calls _exit(0), which no atexit handler sees
 * With FAKE_P11_ARGS=FILE, C_Initialize writes the string it was given in
 * pReserved to FILE, one line ("(none)" for none).
 * The token takes PINs of 4..8 bytes.  With FAKE_P11_LOGINS=FILE, every
 * C_Login call appends one line "C_Login" to FILE (never the PIN), so a test
 * can prove a refused PIN never reached the token.
 * Everything else answers CKR_FUNCTION_NOT_SUPPORTED.
 */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <p11-kit/pkcs11.h>

static atomic_long digests, opens;
static struct timespec started;
static atomic_ulong next_session = 1;

static const char *fail_mode(void)
{
	const char *f = getenv("FAKE_P11_FAIL");

	return f ? f : "";
}

static void pad(CK_UTF8CHAR *dst, size_t len, const char *s)
{
	memset(dst, ' ', len);
	memcpy(dst, s, strlen(s) < len ? strlen(s) : len);
}

static CK_RV fake_initialize(CK_VOID_PTR args)
{
	const char *log = getenv("FAKE_P11_ARGS");
	const char *init = args ? ((CK_C_INITIALIZE_ARGS *)args)->pReserved : NULL;
	FILE *f;

	clock_gettime(CLOCK_MONOTONIC, &started);
	if (log && (f = fopen(log, "w"))) {
		fprintf(f, "%s\n", init ? init : "(none)");
		fclose(f);
	}
	if (!strcmp(fail_mode(), "exit"))
		exit(0);
	if (!strcmp(fail_mode(), "_exit"))
		_exit(0);
	if (!strcmp(fail_mode(), "need-args") && !init)
		return CKR_ARGUMENTS_BAD;
	return strcmp(fail_mode(), "initialize") ? CKR_OK : CKR_GENERAL_ERROR;
}

static CK_RV fake_finalize(CK_VOID_PTR r)
{
	(void)r;
	return CKR_OK;
}

static CK_RV fake_get_info(CK_INFO_PTR info)
{
	memset(info, 0, sizeof(*info));
	info->cryptokiVersion.major = 2;
	info->cryptokiVersion.minor = 40;
	pad(info->manufacturerID, sizeof(info->manufacturerID), "threadrun tests");
	pad(info->libraryDescription, sizeof(info->libraryDescription), "fake PKCS#11 module");
	info->libraryVersion.major = 1;
	return CKR_OK;
}

static CK_RV fake_get_slot_list(CK_BBOOL present, CK_SLOT_ID_PTR list, CK_ULONG_PTR n)
{
	if (present && !strcmp(fail_mode(), "notoken")) {
		*n = 0;
		return CKR_OK;
	}
	if (list && *n < 1) {
		*n = 1;
		return CKR_BUFFER_TOO_SMALL;
	}
	if (list)
		list[0] = 0;
	*n = 1;
	return CKR_OK;
}

static CK_RV fake_get_token_info(CK_SLOT_ID slot, CK_TOKEN_INFO_PTR ti)
{
	if (slot != 0)
		return CKR_SLOT_ID_INVALID;
	memset(ti, 0, sizeof(*ti));
	pad(ti->label, sizeof(ti->label), "fake");
	pad(ti->manufacturerID, sizeof(ti->manufacturerID), "threadrun tests");
	pad(ti->model, sizeof(ti->model), "fake");
	pad(ti->serialNumber, sizeof(ti->serialNumber), "1");
	ti->ulMinPinLen = 4;
	ti->ulMaxPinLen = 8;
	ti->flags = CKF_TOKEN_INITIALIZED | CKF_USER_PIN_INITIALIZED | CKF_LOGIN_REQUIRED;
	return CKR_OK;
}

static CK_RV fake_get_mechanism_list(CK_SLOT_ID slot, CK_MECHANISM_TYPE_PTR list, CK_ULONG_PTR n)
{
	if (slot != 0)
		return CKR_SLOT_ID_INVALID;
	if (list && *n < 1) {
		*n = 1;
		return CKR_BUFFER_TOO_SMALL;
	}
	if (list)
		list[0] = CKM_SHA256;
	*n = 1;
	return CKR_OK;
}

static CK_RV fake_open_session(CK_SLOT_ID slot, CK_FLAGS flags, CK_VOID_PTR app, CK_NOTIFY notify,
			       CK_SESSION_HANDLE_PTR s)
{
	(void)flags;
	(void)app;
	(void)notify;
	if (slot != 0)
		return CKR_SLOT_ID_INVALID;
	if (!strncmp(fail_mode(), "open:", 5) && atomic_fetch_add(&opens, 1) + 1 >= atol(fail_mode() + 5))
		return CKR_DEVICE_ERROR;
	*s = atomic_fetch_add(&next_session, 1);
	return CKR_OK;
}

static CK_RV fake_close_session(CK_SESSION_HANDLE s)
{
	(void)s;
	return CKR_OK;
}

static CK_RV fake_close_all(CK_SLOT_ID slot)
{
	(void)slot;
	return CKR_OK;
}

static CK_RV fake_login(CK_SESSION_HANDLE s, CK_USER_TYPE type, CK_UTF8CHAR_PTR pin, CK_ULONG len)
{
	const char *log = getenv("FAKE_P11_LOGINS");
	int fd;

	(void)s;
	(void)type;
	if (log && (fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600)) >= 0) {
		if (write(fd, "C_Login\n", 8) != 8)
			abort();
		close(fd);
	}
	if (!strcmp(fail_mode(), "login"))
		return CKR_DEVICE_ERROR;
	return len == 4 && !memcmp(pin, "1234", 4) ? CKR_OK : CKR_PIN_INCORRECT;
}

/* Seconds since C_Initialize. */
static double since_start(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - started.tv_sec) + (double)(now.tv_nsec - started.tv_nsec) * 1e-9;
}

static CK_RV fake_digest_init(CK_SESSION_HANDLE s, CK_MECHANISM_PTR m)
{
	(void)s;
	return m->mechanism == CKM_SHA256 ? CKR_OK : CKR_MECHANISM_INVALID;
}

static CK_RV fake_digest(CK_SESSION_HANDLE s, CK_BYTE_PTR in, CK_ULONG len, CK_BYTE_PTR out,
			 CK_ULONG_PTR outl)
{
	const char *f = fail_mode();
	unsigned int l = 0;
	long n = atomic_fetch_add(&digests, 1) + 1;

	(void)s;
	if (!strncmp(f, "digest:", 7) && n >= atol(f + 7))
		return CKR_DEVICE_ERROR;
	if (!strncmp(f, "digest-after:", 13) && since_start() >= atof(f + 13))
		return CKR_DEVICE_ERROR;
	if (*outl < 32) {
		*outl = 32;
		return CKR_BUFFER_TOO_SMALL;
	}
	if (EVP_Digest(in, len, out, &l, EVP_sha256(), NULL) != 1)
		return CKR_FUNCTION_FAILED;
	*outl = l;
	if ((!strncmp(f, "wrong:", 6) && n >= atol(f + 6)) ||
	    (!strncmp(f, "wrong-after:", 12) && since_start() >= atof(f + 12)))
		out[l / 2] ^= 0x08;
	return CKR_OK;
}

/* Every entry not implemented here: CKR_FUNCTION_NOT_SUPPORTED.  Called
 * through a pointer of another prototype, which the x86-64 and AArch64 ABIs
 * tolerate for a function that reads no arguments. */
static CK_RV fake_unsupported(void)
{
	return CKR_FUNCTION_NOT_SUPPORTED;
}

static CK_FUNCTION_LIST list;

CK_RV C_GetFunctionList(CK_FUNCTION_LIST_PTR_PTR out)
{
	void (**slot)(void) = (void (**)(void))&list.C_Initialize;
	size_t i, n = (sizeof(list) - offsetof(CK_FUNCTION_LIST, C_Initialize)) / sizeof(*slot);

	for (i = 0; i < n; i++)
		slot[i] = (void (*)(void))fake_unsupported;
	list.version.major = 2;
	list.version.minor = 40;
	list.C_Initialize = fake_initialize;
	list.C_Finalize = fake_finalize;
	list.C_GetInfo = fake_get_info;
	list.C_GetFunctionList = C_GetFunctionList;
	list.C_GetSlotList = fake_get_slot_list;
	list.C_GetTokenInfo = fake_get_token_info;
	list.C_GetMechanismList = fake_get_mechanism_list;
	list.C_OpenSession = fake_open_session;
	list.C_CloseSession = fake_close_session;
	list.C_CloseAllSessions = fake_close_all;
	list.C_Login = fake_login;
	list.C_DigestInit = fake_digest_init;
	list.C_Digest = fake_digest;
	if (!strcmp(fail_mode(), "null:C_Initialize"))
		list.C_Initialize = NULL;
	if (!strcmp(fail_mode(), "null:C_Digest"))
		list.C_Digest = NULL;
	*out = &list;
	return CKR_OK;
}
