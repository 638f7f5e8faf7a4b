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
#define CKM_AES_GCM         0x00001087ul
#define CKM_SHA256_HMAC     0x00000251ul
#define CKM_ECDSA           0x00001041ul
#define CKM_EDDSA           0x00001057ul
#define CKM_ECDH1_DERIVE    0x00001050ul

/* A mechanism's number and its name for messages, from one spelling. */
#define MECH(m) m, #m
/* None: -b pkcs11 refuses the row. */
#define NO_MECH 0, NULL

/* The GCM vectors' source: CAVP's first 96-bit-IV, 256-bit-text, 128-bit-AAD,
 * 128-bit-tag encryption; RFC 4231's data. */
#define GCM_CAVP(k) "NIST CAVP gcmEncryptExtIV" k ".rsp [Keylen = " k "] [PTlen = 256] [AADlen = 128] Count = 0"
#define HMAC_IN "7768617420646f2079612077616e7420666f72206e6f7468696e673f"
/* A mechanism t2accel has no PKCS#11 path for yet: no module offers it. */
#define NO_P11(m) ~0ul, m " (t2accel has no PKCS#11 path for it)"

/* The RFC 7919 groups beyond ffdh2048 (-a ffdh -k BITS). */
#define FFDH(b) { "ffdh" #b, "ffdh" #b, ALGO_DERIVE, "DH", b, 0, false, \
	{ NULL, NULL, NULL, NULL, "self-consistency, no published vector carried" }, \
	NO_P11("CKM_DH_PKCS_DERIVE"), true, "ffdhe" #b, NULL, NULL }

const struct algo algos[] = {
	{ "aes", "aes-128-cbc", ALGO_CIPHER, "AES-128-CBC", 16, 16, false,
	  { "2b7e151628aed2a6abf7158809cf4f3c", "000102030405060708090a0b0c0d0e0f",
	    "6bc1bee22e409f96e93d7e117393172a", "7649abac8119b246cee98e9b12e9197d",
	    "NIST SP 800-38A F.2.1" }, MECH(CKM_AES_CBC), true },
	{ "des", "des-cbc", ALGO_CIPHER, "DES-CBC", 8, 8, true,
	  { "0123456789abcdef", "1234567890abcdef",
	    "4e6f77206973207468652074696d6520666f7220616c6c20",
	    "e5c7cdde872bf27c43e934008c389c0f683788499a7c05f6", "FIPS 81 appendix C" },
	  MECH(CKM_DES_CBC), true },
	{ "des3", "des-ede3-cbc", ALGO_CIPHER, "DES-EDE3-CBC", 24, 8, false,
	  { "0123456789abcdeff1e0d3c2b5a49786fedcba9876543210", "fedcba9876543210",
	    "37363534333231204e6f77206973207468652074696d6520666f722000000000",
	    "3fe301c962ac01d02213763c1cbd4cdc799657c064ecf5d41c673812cfde9675",
	    "Eric Young's DES test vectors (cbc3)" }, MECH(CKM_DES3_CBC), true },
	{ "rsa", "rsa", ALGO_SIGN, "RSA", 0, 0, false,
	  { NULL, NULL, NULL, NULL,
	    "RFC 8017 EMSA-PKCS1-v1_5 encoding recovered from the signature" },
	  MECH(CKM_SHA256_RSA_PKCS), false, NULL, "rsa-sign", "rsa-verify" },
	{ "md5", "md5", ALGO_DIGEST, "MD5", 0, 0, false,
	  { NULL, NULL, "616263", "900150983cd24fb0d6963f7d28e17f72", "RFC 1321 A.5" },
	  MECH(CKM_MD5), true },
	{ "sha1", "sha1", ALGO_DIGEST, "SHA1", 0, 0, false,
	  { NULL, NULL, "616263", "a9993e364706816aba3e25717850c26c9cd0d89d", "FIPS 180-2 B.1" },
	  MECH(CKM_SHA_1), true },
	{ "sha256", "sha256", ALGO_DIGEST, "SHA256", 0, 0, false,
	  { NULL, NULL, "616263",
	    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	    "FIPS 180-2 B.1" }, MECH(CKM_SHA256) },
	{ "sha512", "sha512", ALGO_DIGEST, "SHA512", 0, 0, false,
	  { NULL, NULL, "616263",
	    "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
	    "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
	    "FIPS 180-2 C.1" }, MECH(CKM_SHA512), true },
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
	  { NULL, NULL, "b053fa", "9d0ff086cd0ec06a682c51c094dc73abdc492004292344bd41b82a60498ccfdb",
	    "FIPS 202, NIST CAVP SHA3_256ShortMsg.rsp Len = 24" }, NO_MECH, true },
	{ "sha3-512", "sha3-512", ALGO_DIGEST, "SHA3-512", 0, 0, false,
	  { NULL, NULL, "37d518",
	    "4aa96b1547e6402c0eee781acaa660797efe26ec00b4f2e0aec4a6d10688dd64"
	    "cbd7f12b3b6c7f802e2096c041208b9289aec380d1a748fdfcd4128553d781e3",
	    "FIPS 202, NIST CAVP SHA3_512ShortMsg.rsp Len = 24" }, NO_MECH, true },
	{ "blake2b", "blake2b512", ALGO_DIGEST, "BLAKE2B-512", 0, 0, false,
	  { NULL, NULL, "616263",
	    "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
	    "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923",
	    "RFC 7693 appendix A" }, NO_MECH, true },
	{ "aes128-gcm", "aes-128-gcm", ALGO_AEAD, "AES-128-GCM", 16, 1, false,
	  { "298efa1ccf29cf62ae6824bfc19557fc", "6f58a93fe1d207fae4ed2f6d",
	    "cc38bccd6bc536ad919b1395f5d63801f99f8068d65ca5ac63872daf16b93901",
	    "dfce4e9cd291103d7fe4e63351d9e79d3dfd391e3267104658212da96521b7db"
	    "542465ef599316f73a7a560509a2d9f2", GCM_CAVP("128"), "021fafd238463973ffe80256e5b1c6b1" },
	  MECH(CKM_AES_GCM), false },
	{ "aes256-gcm", "aes-256-gcm", ALGO_AEAD, "AES-256-GCM", 32, 1, false,
	  { "37ccdba1d929d6436c16bba5b5ff34deec88ed7df3d15d0f4ddf80c0c731ee1f", "5c1b21c8998ed6299006d3f9",
	    "ad4260e3cdc76bcc10c7b2c06b80b3be948258e5ef20c508a81f51e96a518388",
	    "3b335f8b08d33ccdcad228a74700f1007542a4d1e7fc1ebe3f447fe71af29816"
	    "1fbf49cc46f458bf6e88f6370975e6d4", GCM_CAVP("256"), "22ed235946235a85a45bc5fad7140bfa" },
	  MECH(CKM_AES_GCM), true },
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
	    "50515253c0c1c2c3c4c5c6c7" }, NO_MECH, false },
	{ "hmac-sha256", "hmac-sha256", ALGO_MAC, "HMAC:SHA256", 32, 0, false,
	  { "4a656665", NULL, HMAC_IN,
	    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
	    "RFC 4231 test case 2" }, MECH(CKM_SHA256_HMAC), true },
	{ "hmac-sha512", "hmac-sha512", ALGO_MAC, "HMAC:SHA512", 64, 0, false,
	  { "4a656665", NULL, HMAC_IN,
	    "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"
	    "9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737",
	    "RFC 4231 test case 2" }, NO_MECH, true },
	{ "cmac-aes128", "cmac-aes128", ALGO_MAC, "CMAC:AES-128-CBC", 16, 0, false,
	  { "2b7e151628aed2a6abf7158809cf4f3c", NULL, "6bc1bee22e409f96e93d7e117393172a",
	    "070a16b46b4d4144f79bdd9dd04a287c", "RFC 4493 example 2 (SP 800-38B D.1)" },
	  NO_MECH, true },
	/* Signatures and key agreement (#28) */
	{ "ecdsa-p256", "ecdsa-p256", ALGO_SIGN, "EC", 256, 0, false,
	  { "04e424dc61d4bb3cb7ef4344a7f8957a0c5134e16f7a67c074f82e6e12f49abf3c"
	    "970eed7aa2bc48651545949de1dddaf0127e5965ac85d1243d6f60e7dfaee927", NULL,
	    "d1b8ef21eb4182ee270638061063a3f3c16c114e33937f69fb232cc833965a94",
	    "bf96b99aa49c705c910be33142017c642ff540c76349b9dab72f981fd9347f4f"
	    "17c55095819089c2e03b9cd415abdf12444e323075d98f31920b9e0f57ec871c",
	    "NIST CAVP 186-3 SigVer [P-256,SHA-256]" },
	  MECH(CKM_ECDSA), false, "P-256", "ecdsa-p256-sign", "ecdsa-p256-verify" },
	{ "ecdsa-p384", "ecdsa-p384", ALGO_SIGN, "EC", 384, 0, false,
	  { "04a370cdbef95d1df5bf68ec487122514a107db87df3f8852068fd4694abcadb9b14302c72491a76a64442fc07bd99f02c"
	    "d397c25dc1a5781573d039f2520cf329bf65120fdbe964b6b80101160e533d5570e62125b9f3276c49244b8d0f3e44ec",
	    NULL,
	    "709d1bf45b5817f5a67b859651eb47133ebed2622fda09ab66d3467b5e95da50ecc2c74d8f4d289feebec29729a4bfa3",
	    "c6c7bb516cc3f37a304328d136b2f44bb89d3dac78f1f5bcd36b412a8b4d879f6cdb75175292c696b58bfa9c91fe6391"
	    "6b711425e1b14f7224cd4b96717a84d65a60ec9951a30152ea1dd3b6ea66a0088d1fd3e9a1ef069804b7d969148c37a0",
	    "NIST CAVP 186-3 SigVer [P-384,SHA-384]" },
	  MECH(CKM_ECDSA), true, "P-384", "ecdsa-p384-sign", "ecdsa-p384-verify" },
	{ "ecdsa-p521", "ecdsa-p521", ALGO_SIGN, "EC", 521, 0, false,
	  { NULL, NULL, NULL, NULL, "a sign-verify round trip, no published vector carried" },
	  MECH(CKM_ECDSA), true, "P-521", "ecdsa-p521-sign", "ecdsa-p521-verify" },
	{ "ed25519", "ed25519", ALGO_SIGN, "ED25519", 253, 0, false,
	  { "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb", NULL, "72",
	    "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
	    "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
	    "RFC 8032 7.1 TEST 2" }, MECH(CKM_EDDSA), true, NULL, "ed25519-sign", "ed25519-verify" },
	{ "ed448", "ed448", ALGO_SIGN, "ED448", 456, 0, false,
	  { "c4eab05d357007c632f3dbb48489924d552b08fe0c353a0d4a1f00acda2c463a"
	    "fbea67c5e8d2877c5e3bc397a659949ef8021e954e0a12274e", NULL, "03",
	    "26b8f91727bd62897af15e41eb43c377efb9c610d48f2335cb0bd0087810f435"
	    "2541b143c4b981b7e18f62de8ccdf633fc1bf037ab7cd779805e0dbcc0aae1cb"
	    "cee1afb2e027df36bc04dcecbf154336c19f0af7e0a6472905e799f1953d2a0f"
	    "f3348ab21aa4adafd1d234441cf807c03a00", "RFC 8032 7.4 1 octet" },
	  MECH(CKM_EDDSA), true, NULL, "ed448-sign", "ed448-verify" },
	{ "ecdh-p256", "ecdh-p256", ALGO_DERIVE, "EC", 256, 0, false,
	  { NULL, NULL, NULL, NULL, "self-consistency, no published vector carried" },
	  MECH(CKM_ECDH1_DERIVE), true, "P-256", NULL, NULL },
	{ "ecdh-p384", "ecdh-p384", ALGO_DERIVE, "EC", 384, 0, false,
	  { NULL, NULL, NULL, NULL, "self-consistency, no published vector carried" },
	  MECH(CKM_ECDH1_DERIVE), true, "P-384", NULL, NULL },
	{ "x25519", "x25519", ALGO_DERIVE, "X25519", 253, 0, false,
	  { "a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
	    "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c", NULL,
	    "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552",
	    "RFC 7748 5.2 (first X25519 vector)" }, NO_P11("CKM_ECDH1_DERIVE"), false, NULL, NULL, NULL },
	{ "x448", "x448", ALGO_DERIVE, "X448", 448, 0, false,
	  { "3d262fddf9ec8e88495266fea19a34d28882acef045104d0d1aae121700a779c"
	    "984c24f8cdd78fbff44943eba368f54b29259a4f1c600ad3",
	    "06fce640fa3487bfda5f6cf2d5263f8aad88334cbd07437f020f08f9814dc031"
	    "ddbdc38c19c6da2583fa5429db94ada18aa7a7fb4ef8a086", NULL,
	    "ce3e4ff95a60dc6697da1db1d85e6afbdf79b50a2412d7546d5f239fe14fbaad"
	    "eb445fc66a01b0779d98223961111e21766282f73dd96b6f", "RFC 7748 5.2 (first X448 vector)" },
	  NO_P11("CKM_ECDH1_DERIVE"), true, NULL, NULL, NULL },
	{ "ffdh2048", "ffdh2048", ALGO_DERIVE, "DH", 2048, 0, false,
	  { NULL, NULL, NULL, NULL, "self-consistency, no published vector carried" },
	  NO_P11("CKM_DH_PKCS_DERIVE"), true, "ffdhe2048", NULL, NULL },
	FFDH(3072), FFDH(4096), FFDH(6144), FFDH(8192),
};

const size_t nalgos = sizeof(algos) / sizeof(algos[0]);
_Static_assert(sizeof(algos) / sizeof(algos[0]) <= ALGO_MAX, "raise ALGO_MAX");

const struct algo *algo_find(const char *name)
{
	size_t i;

	for (i = 0; i < nalgos; i++)
		if (strcmp(algos[i].name, name) == 0)
			return &algos[i];
	/* A family of curves or groups by its first row: "ecdsa" is ecdsa-p256,
	 * "ffdh" ffdh2048 (-k picks another). */
	for (i = 0; i < nalgos; i++)
		if (algos[i].group && strncmp(algos[i].name, name, strlen(name)) == 0 &&
		    (algos[i].name[strlen(name)] == '-' || isdigit((unsigned char)algos[i].name[strlen(name)])) &&
		    (strncmp(algos[i].group, "P-", 2) == 0 || strncmp(algos[i].group, "ffdhe", 5) == 0))
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
	case MODE_SIGN: return a->sign_label;
	case MODE_VERIFY: return a->verify_label;
	default: return a->label;
	}
}

enum algo_mode algo_first_mode(const struct algo *a)
{
	return a->kind == ALGO_SIGN ? MODE_SIGN : a->kind == ALGO_DERIVE ? MODE_DERIVE : MODE_ONE;
}

enum algo_mode algo_last_mode(const struct algo *a)
{
	return a->kind == ALGO_SIGN ? MODE_VERIFY : a->kind == ALGO_DERIVE ? MODE_DERIVE : MODE_ONE;
}

const unsigned rsa_bits[] = { 1024, 2048, 3072, 4096 };
const size_t nrsa_bits = sizeof(rsa_bits) / sizeof(rsa_bits[0]);

/* --list's KEYS: a key's bits, RSA's sizes, a curve or group; "-" none. */
static void algo_keys(const struct algo *a, char *buf, size_t len)
{
	size_t i, used = 0;

	if (a->kind == ALGO_DIGEST)
		snprintf(buf, len, "-");
	else if (a->group || algo_per_op(a))
		snprintf(buf, len, "%s", a->group ? a->group : a->evp_name);
	else
		snprintf(buf, len, "%u bits", a->key_len * 8);
	if (a->kind != ALGO_SIGN || strcmp(a->evp_name, "RSA"))
		return;
	for (i = 0; i < nrsa_bits && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%u", i ? "," : "", rsa_bits[i]);
	snprintf(buf + used, used < len ? len - used : 0, " bits");
}

void algo_list(FILE *out, const char *(*provider_of)(const struct algo *a))
{
	const char *prov;
	char keys[64];
	static const char *const kinds[] = {
		[ALGO_CIPHER] = "cipher", [ALGO_DIGEST] = "digest", [ALGO_SIGN] = "sign",
		[ALGO_AEAD] = "aead", [ALGO_MAC] = "mac",
		[ALGO_DERIVE] = "derive",
	};
	enum algo_mode m;
	size_t i;

	for (i = 0; i < nalgos; i++) {
		fprintf(out, "%s\t", algos[i].name);
		for (m = algo_first_mode(&algos[i]); m <= algo_last_mode(&algos[i]); m++)
			fprintf(out, "%s%s", m == algo_first_mode(&algos[i]) ? "" : " ",
				algo_mode_label(&algos[i], m));
		algo_keys(&algos[i], keys, sizeof(keys));
		prov = provider_of ? provider_of(&algos[i]) : NULL;
		fprintf(out, "\t%s\t%s\t%s\t%s\t%s\t%s\n", kinds[algos[i].kind],
			algos[i].legacy ? "yes" : "no", algos[i].evp_name,
			algos[i].extra ? "no" : "yes", keys, prov ? prov : "-");
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

int verify_refuses_flip(unsigned char *sig, size_t len,
			int (*verify_once)(void *ctx, uint64_t *done, char *err, size_t errlen),
			void *ctx, const char *who, char *err, size_t errlen)
{
	uint64_t unused = 0;
	char ignored[256];
	int st;

	sig[len / 2] ^= 0x01;
	st = verify_once(ctx, &unused, ignored, sizeof(ignored));
	sig[len / 2] ^= 0x01;
	if (st == 0) {
		snprintf(err, errlen, "%s accepted a signature with one bit flipped", who);
		return -1;
	}
	return 0;
}
