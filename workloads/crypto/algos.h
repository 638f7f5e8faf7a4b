/* The crypto algorithms t2accel measures: one const table (algos.c). */
#ifndef ALGOS_H
#define ALGOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum algo_kind { ALGO_CIPHER, ALGO_DIGEST, ALGO_SIGN, ALGO_AEAD, ALGO_MAC, ALGO_DERIVE };

/* What one measurement times: RSA signs and verifies are measured apart, as
 * openssl speed does. */
enum algo_mode { MODE_ONE, MODE_SIGN, MODE_VERIFY, MODE_DERIVE };

/* A published known answer, in hex. */
struct kat {
	const char *key, *iv, *in, *out;
	const char *source;
	const char *aad;        /* AEAD: the additional data */
};

struct algo {
	const char *name;       /* what -a takes: "aes" */
	const char *label;      /* in tables and rows: "aes-128-cbc" */
	enum algo_kind kind;
	const char *evp_name;   /* OpenSSL fetch name; MACs "HMAC:SHA256" */
	unsigned key_len;
	unsigned block;         /* cipher block; sizes must be multiples */
	bool legacy;            /* in OpenSSL 3's legacy provider */
	struct kat kat;
	/* PKCS#11 mechanism for this algorithm (CKM_* value) and its name. */
	unsigned long p11_mech;
	const char *p11_mech_name;
	bool extra;             /* left out of src/study's default set */
	/* Public-key rows: the curve or group (NULL: none or RSA) and the
	 * sign and verify rows' names. */
	const char *group;
	const char *sign_label, *verify_label;
};

/* Measured in operations per second on a key of key_len (or -k) bits. */
static inline bool algo_per_op(const struct algo *a)
{
	return a->kind == ALGO_SIGN || a->kind == ALGO_DERIVE;
}

/* The table holds at most this many rows (checked where it is defined), so
 * a selection of distinct rows fits an array of this size. */
#define ALGO_MAX 64

extern const struct algo algos[];
extern const size_t nalgos;

const struct algo *algo_find(const char *name);
/* The -a names from the table, "aes des ... sha256", for messages. */
void algo_choices(char *buf, size_t len);

/* The row/table name of one measurement: "aes-128-cbc", "rsa-sign". */
const char *algo_mode_label(const struct algo *a, enum algo_mode mode);

/* The measurements one algorithm makes: MODE_ONE, or sign then verify. */
enum algo_mode algo_first_mode(const struct algo *a);
enum algo_mode algo_last_mode(const struct algo *a);

/* RSA's key sizes (-k). */
extern const unsigned rsa_bits[];
extern const size_t nrsa_bits;

/* t2accel --list: "NAME\tLABELS\tKIND\tLEGACY\tEVP\tSTUDY\tKEYS\tPROVIDER"
 * per algorithm, the one machine-readable source of the algorithm names for
 * scripts.  PROVIDER_OF names what serves a row (NULL, or a row it has
 * nothing for: "-"). */
void algo_list(FILE *out, const char *(*provider_of)(const struct algo *a));

/* A verify's own check: with one bit of SIG[LEN] flipped, VERIFY_ONCE(CTX)
 * (the timed verify, once) must fail.  0 when it does; else -1 and "WHO
 * accepted a signature with one bit flipped" in ERR.  SIG is put back. */
int verify_refuses_flip(unsigned char *sig, size_t len,
			int (*verify_once)(void *ctx, uint64_t *done, char *err, size_t errlen),
			void *ctx, const char *who, char *err, size_t errlen);

/* Decode hex into OUT (at most MAX bytes); returns the length or -1. */
int hex_decode(const char *hex, unsigned char *out, size_t max);

#endif
