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
#define CKM_SHA224          0x00000255ul
#define CKM_SHA384          0x00000260ul
#define CKM_AES_CBC         0x00001082ul

/* A mechanism's number and its name for messages, from one spelling. */
#define MECH(m) m, #m
/* None: -b pkcs11 refuses the row. */
#define NO_MECH 0, NULL

/* The plaintext of the GCM spec's test cases 3 and 15; RFC 4231's data. */
#define GCM_P "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72" \
	"1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255"
#define HMAC_IN "7768617420646f2079612077616e7420666f72206e6f7468696e673f"

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
	/* AEAD, MACs and more ciphers and digests (#28) */
	{ "aes192", "aes-192-cbc", ALGO_CIPHER, "AES-192-CBC", 24, 16, false,
	  { "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b", "000102030405060708090a0b0c0d0e0f",
	    "6bc1bee22e409f96e93d7e117393172a", "4f021db243bc633d7178183a9fa071e8",
	    "NIST SP 800-38A F.2.3" }, MECH(CKM_AES_CBC), true },
	{ "aes256", "aes-256-cbc", ALGO_CIPHER, "AES-256-CBC", 32, 16, false,
	  { "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
	    "000102030405060708090a0b0c0d0e0f",
	    "6bc1bee22e409f96e93d7e117393172a", "f58c4c04d6e5f1ba779eabfb5f7bfbd6",
	    "NIST SP 800-38A F.2.5" }, MECH(CKM_AES_CBC), true },
	{ "aes128-ctr", "aes-128-ctr", ALGO_CIPHER, "AES-128-CTR", 16, 16, false,
	  { "2b7e151628aed2a6abf7158809cf4f3c", "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
	    "6bc1bee22e409f96e93d7e117393172a", "874d6191b620e3261bef6864990db6ce",
	    "NIST SP 800-38A F.5.1" }, NO_MECH, true },
	{ "aes256-ctr", "aes-256-ctr", ALGO_CIPHER, "AES-256-CTR", 32, 16, false,
	  { "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
	    "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
	    "6bc1bee22e409f96e93d7e117393172a", "601ec313775789a5b7a7f504bbf3d228",
	    "NIST SP 800-38A F.5.5" }, NO_MECH, true },
	{ "sha224", "sha224", ALGO_DIGEST, "SHA224", 0, 0, false,
	  { NULL, NULL, "616263", "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7",
	    "FIPS 180-2 B.1 (SHA-224 change notice)" }, MECH(CKM_SHA224), true },
	{ "sha384", "sha384", ALGO_DIGEST, "SHA384", 0, 0, false,
	  { NULL, NULL, "616263",
	    "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed"
	    "8086072ba1e7cc2358baeca134c825a7", "FIPS 180-2 D.1" }, MECH(CKM_SHA384), true },
	{ "sha3-256", "sha3-256", ALGO_DIGEST, "SHA3-256", 0, 0, false,
	  { NULL, NULL, "616263",
	    "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532",
	    "FIPS 202 (NIST example SHA3-256 \"abc\")" }, NO_MECH, true },
	{ "sha3-512", "sha3-512", ALGO_DIGEST, "SHA3-512", 0, 0, false,
	  { NULL, NULL, "616263",
	    "b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e"
	    "10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0",
	    "FIPS 202 (NIST example SHA3-512 \"abc\")" }, NO_MECH, true },
	{ "blake2b", "blake2b512", ALGO_DIGEST, "BLAKE2B-512", 0, 0, false,
	  { NULL, NULL, "616263",
	    "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
	    "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923",
	    "RFC 7693 appendix A" }, NO_MECH, true },
	{ "aes128-gcm", "aes-128-gcm", ALGO_AEAD, "AES-128-GCM", 16, 1, false,
	  { "feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888", GCM_P,
	    "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
	    "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985"
	    "4d5c2af327cd64a62cf35abd2ba6fab4", "the GCM spec (McGrew-Viega) test case 3" },
	  NO_MECH, true },
	{ "aes256-gcm", "aes-256-gcm", ALGO_AEAD, "AES-256-GCM", 32, 1, false,
	  { "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
	    "cafebabefacedbaddecaf888", GCM_P,
	    "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
	    "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad"
	    "b094dac5d93471bdec1a502270e3cc6c", "the GCM spec (McGrew-Viega) test case 15" },
	  NO_MECH, true },
	{ "chacha20-poly1305", "chacha20-poly1305", ALGO_AEAD, "ChaCha20-Poly1305", 32, 1, false,
	  { "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f",
	    "070000004041424344454647",
	    "4c616469657320616e642047656e746c656d656e206f662074686520636c6173"
	    "73206f66202739393a204966204920636f756c64206f6666657220796f75206f"
	    "6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73"
	    "637265656e20776f756c642062652069742e",
	    "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6"
	    "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36"
	    "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
	    "3ff4def08e4b7a9de576d26586cec64b6116"
	    "1ae10b594f09e26a7e902ecbd0600691", "RFC 8439 2.8.2",
	    "50515253c0c1c2c3c4c5c6c7" }, NO_MECH, true },
	{ "hmac-sha256", "hmac-sha256", ALGO_MAC, "HMAC:SHA256", 32, 0, false,
	  { "4a656665", NULL, HMAC_IN,
	    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
	    "RFC 4231 test case 2" }, NO_MECH, true },
	{ "hmac-sha512", "hmac-sha512", ALGO_MAC, "HMAC:SHA512", 64, 0, false,
	  { "4a656665", NULL, HMAC_IN,
	    "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"
	    "9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737",
	    "RFC 4231 test case 2" }, NO_MECH, true },
	{ "cmac-aes128", "cmac-aes128", ALGO_MAC, "CMAC:AES-128-CBC", 16, 0, false,
	  { "2b7e151628aed2a6abf7158809cf4f3c", NULL, "6bc1bee22e409f96e93d7e117393172a",
	    "070a16b46b4d4144f79bdd9dd04a287c", "RFC 4493 example 2 (SP 800-38B D.1)" },
	  NO_MECH, true },
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
		[ALGO_AEAD] = "aead", [ALGO_MAC] = "mac",
	};
	enum algo_mode m;
	size_t i;

	for (i = 0; i < nalgos; i++) {
		fprintf(out, "%s\t", algos[i].name);
		for (m = algo_first_mode(&algos[i]); m <= algo_last_mode(&algos[i]); m++)
			fprintf(out, "%s%s", m == algo_first_mode(&algos[i]) ? "" : " ",
				algo_mode_label(&algos[i], m));
		fprintf(out, "\t%s\t%s\t%s\t%s\n", kinds[algos[i].kind], algos[i].legacy ? "yes" : "no",
			algos[i].evp_name, algos[i].extra ? "no" : "yes");
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
