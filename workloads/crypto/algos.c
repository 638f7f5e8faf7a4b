/*
 * The algorithm table.  Adding an algorithm is one row here, with its
 * published known answer: -a, -a all, the help and messages, t2accel --list
 * and through it src/study, bench-speed and the tests take it from here.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "algos.h"

/* PKCS#11 v2.40 mechanism numbers (pkcs11t.h). */
#define CKM_SHA256_RSA_PKCS 0x00000040ul
#define CKM_DES_CBC         0x00000122ul
#define CKM_DES3_CBC        0x00000133ul
#define CKM_MD5             0x00000210ul
#define CKM_SHA_1           0x00000220ul
#define CKM_SHA256          0x00000250ul
#define CKM_SHA512          0x00000270ul
#define CKM_AES_CBC         0x00001082ul

/* A mechanism's number and its name for messages, from one spelling. */
#define MECH(m) m, #m

const struct algo algos[] = {
	{ "aes", "aes-128-cbc", ALGO_CIPHER, "AES-128-CBC", 16, 16, false,
	  { "2b7e151628aed2a6abf7158809cf4f3c", "000102030405060708090a0b0c0d0e0f",
	    "6bc1bee22e409f96e93d7e117393172a", "7649abac8119b246cee98e9b12e9197d",
	    "NIST SP 800-38A F.2.1" }, MECH(CKM_AES_CBC) },
	{ "des", "des-cbc", ALGO_CIPHER, "DES-CBC", 8, 8, true,
	  { "0123456789abcdef", "1234567890abcdef",
	    "4e6f77206973207468652074696d6520666f7220616c6c20",
	    "e5c7cdde872bf27c43e934008c389c0f683788499a7c05f6", "FIPS 81 appendix C" },
	  MECH(CKM_DES_CBC) },
	{ "des3", "des-ede3-cbc", ALGO_CIPHER, "DES-EDE3-CBC", 24, 8, false,
	  { "0123456789abcdeff1e0d3c2b5a49786fedcba9876543210", "fedcba9876543210",
	    "37363534333231204e6f77206973207468652074696d6520666f722000000000",
	    "3fe301c962ac01d02213763c1cbd4cdc799657c064ecf5d41c673812cfde9675",
	    "Eric Young's DES test vectors (cbc3)" }, MECH(CKM_DES3_CBC) },
	{ "rsa", "rsa", ALGO_SIGN, "RSA", 0, 0, false,
	  { NULL, NULL, NULL, NULL,
	    "RFC 8017 EMSA-PKCS1-v1_5 encoding recovered from the signature" },
	  MECH(CKM_SHA256_RSA_PKCS) },
	{ "md5", "md5", ALGO_DIGEST, "MD5", 0, 0, false,
	  { NULL, NULL, "616263", "900150983cd24fb0d6963f7d28e17f72", "RFC 1321 A.5" },
	  MECH(CKM_MD5) },
	{ "sha1", "sha1", ALGO_DIGEST, "SHA1", 0, 0, false,
	  { NULL, NULL, "616263", "a9993e364706816aba3e25717850c26c9cd0d89d", "FIPS 180-2 B.1" },
	  MECH(CKM_SHA_1) },
	{ "sha256", "sha256", ALGO_DIGEST, "SHA256", 0, 0, false,
	  { NULL, NULL, "616263",
	    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	    "FIPS 180-2 B.1" }, MECH(CKM_SHA256) },
	{ "sha512", "sha512", ALGO_DIGEST, "SHA512", 0, 0, false,
	  { NULL, NULL, "616263",
	    "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
	    "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
	    "FIPS 180-2 C.1" }, MECH(CKM_SHA512) },
};

const size_t nalgos = sizeof(algos) / sizeof(algos[0]);
_Static_assert(sizeof(algos) / sizeof(algos[0]) <= ALGO_MAX, "raise ALGO_MAX");

const struct algo *algo_find(const char *name)
{
	size_t i;

	for (i = 0; i < nalgos; i++)
		if (strcmp(algos[i].name, name) == 0)
			return &algos[i];
	return NULL;
}

void algo_choices(char *buf, size_t len)
{
	size_t i, used = 0;
	int n;

	buf[0] = '\0';
	for (i = 0; i < nalgos; i++) {
		n = snprintf(buf + used, len - used, "%s%s", i ? " " : "", algos[i].name);
		if (n < 0 || (size_t)n >= len - used)
			return;
		used += (size_t)n;
	}
}

const char *algo_mode_label(const struct algo *a, enum algo_mode mode)
{
	switch (mode) {
	case MODE_SIGN: return "rsa-sign";
	case MODE_VERIFY: return "rsa-verify";
	default: return a->label;
	}
}

enum algo_mode algo_first_mode(const struct algo *a)
{
	return a->kind == ALGO_SIGN ? MODE_SIGN : MODE_ONE;
}

enum algo_mode algo_last_mode(const struct algo *a)
{
	return a->kind == ALGO_SIGN ? MODE_VERIFY : MODE_ONE;
}

void algo_list(FILE *out)
{
	static const char *const kinds[] = {
		[ALGO_CIPHER] = "cipher", [ALGO_DIGEST] = "digest", [ALGO_SIGN] = "sign",
	};
	enum algo_mode m;
	size_t i;

	for (i = 0; i < nalgos; i++) {
		fprintf(out, "%s\t", algos[i].name);
		for (m = algo_first_mode(&algos[i]); m <= algo_last_mode(&algos[i]); m++)
			fprintf(out, "%s%s", m == algo_first_mode(&algos[i]) ? "" : " ",
				algo_mode_label(&algos[i], m));
		fprintf(out, "\t%s\t%s\t%s\n", kinds[algos[i].kind], algos[i].legacy ? "yes" : "no",
			algos[i].evp_name);
	}
}

static int nibble(char c)
{
	if (isdigit((unsigned char)c))
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int hex_decode(const char *hex, unsigned char *out, size_t max)
{
	size_t n = strlen(hex) / 2, i;
	int hi, lo;

	if (strlen(hex) % 2 || n > max)
		return -1;
	for (i = 0; i < n; i++) {
		hi = nibble(hex[2 * i]);
		lo = nibble(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return (int)n;
}
