/* ECDSA, EdDSA and ECDH on a PKCS#11 token (p11_pkey.h). */
#include <stdio.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/rand.h>

#include "evp_pkey.h"
#include "p11.h"
#include "p11_pkey.h"

static bool eddsa(const struct algo *a)
{
	return a->p11_mech == CKM_EDDSA;
}

CK_MECHANISM_TYPE p11_pkey_keygen_mech(const struct algo *a, const char **name)
{
	*name = eddsa(a) ? "CKM_EC_EDWARDS_KEY_PAIR_GEN" : "CKM_EC_KEY_PAIR_GEN";
	return eddsa(a) ? CKM_EC_EDWARDS_KEY_PAIR_GEN : CKM_EC_KEY_PAIR_GEN;
}

/* CKA_EC_PARAMS: the curve's OID in DER, or -1. */
static int ec_params(const struct algo *a, unsigned char *der, size_t cap)
{
	int nid = a->group ? EC_curve_nist2nid(a->group) : OBJ_sn2nid(a->evp_name);
	const ASN1_OBJECT *o = nid == NID_undef ? NULL : OBJ_nid2obj(nid);

	if (!o || i2d_ASN1_OBJECT(o, NULL) > (int)cap)
		return -1;
	return i2d_ASN1_OBJECT(o, &der);
}

/* CKA_EC_POINT is a DER OCTET STRING (v2.40); a module may give the bare
 * point: either becomes the bare point. */
static void unwrap_point(unsigned char *buf, CK_ULONG *len)
{
	CK_ULONG hdr = 0;

	if (*len > 2 && buf[0] == 0x04 && buf[1] == *len - 2)
		hdr = 2;
	else if (*len > 3 && buf[0] == 0x04 && buf[1] == 0x81 && buf[2] == *len - 3)
		hdr = 3;
	memmove(buf, buf + hdr, *len - hdr);
	*len -= hdr;
}

/* OpenSSL's key for a bare public point of A's curve. */
static EVP_PKEY *evp_from_point(const struct algo *a, const unsigned char *pt, size_t len)
{
	OSSL_PARAM p[3];
	EVP_PKEY_CTX *c;
	EVP_PKEY *k = NULL;

	if (!a->group)
		return EVP_PKEY_new_raw_public_key_ex(NULL, a->evp_name, NULL, pt, len);
	p[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)a->group, 0);
	p[1] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, (void *)pt, len);
	p[2] = OSSL_PARAM_construct_end();
	c = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
	if (c && EVP_PKEY_fromdata_init(c) == 1)
		EVP_PKEY_fromdata(c, &k, EVP_PKEY_PUBLIC_KEY, p);
	EVP_PKEY_CTX_free(c);
	return k;
}

/* A key pair made in the token as session objects, the private half
 * sensitive; its public point read back. */
static int gen_pair(struct p11_pkey *k, CK_OBJECT_HANDLE *priv, unsigned char *point,
		    CK_ULONG *point_len, char *err, size_t errlen)
{
	const char *unused;
	CK_MECHANISM m = { p11_pkey_keygen_mech(k->a, &unused), NULL, 0 };
	CK_BBOOL no = CK_FALSE, yes = CK_TRUE;
	CK_ATTRIBUTE_TYPE use_pub = k->mode == MODE_DERIVE ? CKA_DERIVE : CKA_VERIFY;
	CK_ATTRIBUTE_TYPE use_priv = k->mode == MODE_DERIVE ? CKA_DERIVE : CKA_SIGN;
	unsigned char params[16];
	int pl = ec_params(k->a, params, sizeof(params));
	CK_ATTRIBUTE pt[] = {
		{ CKA_TOKEN, &no, sizeof(no) }, { use_pub, &yes, sizeof(yes) },
		{ CKA_EC_PARAMS, params, pl < 0 ? 0 : (CK_ULONG)pl },
	};
	CK_ATTRIBUTE vt[] = {
		{ CKA_TOKEN, &no, sizeof(no) }, { use_priv, &yes, sizeof(yes) },
		{ CKA_PRIVATE, &yes, sizeof(yes) }, { CKA_SENSITIVE, &yes, sizeof(yes) },
	};
	CK_ATTRIBUTE back = { CKA_EC_POINT, point, P11_POINT_MAX };
	CK_OBJECT_HANDLE pub;

	if (pl < 0) {
		snprintf(err, errlen, "%s: OpenSSL knows no OID for its curve", k->a->name);
		return -1;
	}
	if (p11_ckr(k->f->C_GenerateKeyPair(k->s, &m, pt, 3, vt, 4, &pub, priv), "C_GenerateKeyPair",
		    err, errlen) ||
	    p11_ckr(k->f->C_GetAttributeValue(k->s, pub, &back, 1), "C_GetAttributeValue (CKA_EC_POINT)",
		    err, errlen))
		return -1;
	if (!k->pub)
		k->pub = pub;
	*point_len = back.ulValueLen;
	unwrap_point(point, point_len);
	return 0;
}

/* An extractable secret agreed between PRIV and the public POINT. */
static int derive(struct p11_pkey *k, CK_OBJECT_HANDLE priv, unsigned char *point, CK_ULONG len,
		  CK_OBJECT_HANDLE *h, char *err, size_t errlen)
{
	CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
	CK_KEY_TYPE kt = CKK_GENERIC_SECRET;
	CK_BBOOL no = CK_FALSE, yes = CK_TRUE;
	CK_ULONG vlen = (k->a->key_len + 7) / 8;
	CK_ATTRIBUTE t[] = {
		{ CKA_CLASS, &cls, sizeof(cls) }, { CKA_KEY_TYPE, &kt, sizeof(kt) },
		{ CKA_TOKEN, &no, sizeof(no) }, { CKA_SENSITIVE, &no, sizeof(no) },
		{ CKA_EXTRACTABLE, &yes, sizeof(yes) }, { CKA_VALUE_LEN, &vlen, sizeof(vlen) },
	};
	CK_ECDH1_DERIVE_PARAMS p = { CKD_NULL, 0, NULL, len, point };
	CK_MECHANISM m = { CKM_ECDH1_DERIVE, &p, sizeof(p) };

	return p11_ckr(k->f->C_DeriveKey(k->s, &m, priv, t, 6, h), "C_DeriveKey", err, errlen);
}

/* The timed derivation: the last secret replaced by a new one. */
static int derive_next(struct p11_pkey *k, unsigned char *point, CK_ULONG len, char *err,
		       size_t errlen)
{
	if (k->secret != CK_INVALID_HANDLE)
		k->f->C_DestroyObject(k->s, k->secret);
	k->secret = CK_INVALID_HANDLE;
	return derive(k, k->priv, point, len, &k->secret, err, errlen);
}

static int secret_value(struct p11_pkey *k, CK_OBJECT_HANDLE h, unsigned char *v, CK_ULONG *len,
			char *err, size_t errlen)
{
	CK_ATTRIBUTE t = { CKA_VALUE, v, *len };
	int ret = p11_ckr(k->f->C_GetAttributeValue(k->s, h, &t, 1),
			  "C_GetAttributeValue (derived CKA_VALUE)", err, errlen);

	*len = t.ulValueLen;
	return ret;
}

static int sign_once(struct p11_pkey *k, char *err, size_t errlen)
{
	k->out_len = sizeof(k->out);
	return p11_ckr(k->f->C_SignInit(k->s, &k->mech, k->priv), "C_SignInit", err, errlen) ||
	       p11_ckr(k->f->C_Sign(k->s, k->msg, k->msg_len, k->out, &k->out_len), "C_Sign", err,
		       errlen) ? -1 : 0;
}

static CK_RV verify_once(struct p11_pkey *k)
{
	CK_RV rv = k->f->C_VerifyInit(k->s, &k->mech, k->pub);

	return rv == CKR_OK ? k->f->C_Verify(k->s, k->msg, k->msg_len, k->out, k->out_len) : rv;
}

int p11_pkey_init(struct p11_pkey *k, CK_FUNCTION_LIST_PTR f, CK_SESSION_HANDLE s,
		  const struct algo *a, enum algo_mode mode, char *err, size_t errlen)
{
	CK_OBJECT_HANDLE peer_priv;
	size_t other_len = sizeof(k->other_point);

	*k = (struct p11_pkey){ .a = a, .mode = mode, .f = f, .s = s, .secret = CK_INVALID_HANDLE,
				.mech = { a->p11_mech, NULL, 0 } };
	/* ECDSA signs a digest of the curve's size (SHA-512's for P-521). */
	k->msg_len = eddsa(a) || a->key_len <= 256 ? 32 : a->key_len <= 384 ? 48 : 64;
	if (RAND_bytes(k->msg, sizeof(k->msg)) != 1 ||
	    gen_pair(k, &k->priv, k->point, &k->point_len, err, errlen) < 0)
		return -1;
	if (!(k->evp_pub = evp_from_point(a, k->point, k->point_len))) {
		ERR_clear_error();
		snprintf(err, errlen, "OpenSSL cannot read the token's %lu-byte public key",
			 (unsigned long)k->point_len);
		return -1;
	}
	if (mode == MODE_VERIFY)  /* the timed loop verifies a signature the token made */
		return sign_once(k, err, errlen);
	if (mode != MODE_DERIVE)
		return 0;
	/* A peer pair in the token, and OpenSSL's own for the cross-check. */
	if (gen_pair(k, &peer_priv, k->peer_point, &k->peer_len, err, errlen) < 0 ||
	    !(k->evp_other = evp_pkey_keygen(a, err, errlen)))
		return -1;
	k->peer_priv = peer_priv;
	if (EVP_PKEY_get_octet_string_param(k->evp_other, OSSL_PKEY_PARAM_PUB_KEY, k->other_point,
					    sizeof(k->other_point), &other_len) != 1) {
		ERR_clear_error();
		snprintf(err, errlen, "OpenSSL's public point for the cross-check is not available");
		return -1;
	}
	k->other_len = (CK_ULONG)other_len;
	return 0;
}

void p11_pkey_fini(struct p11_pkey *k)
{
	/* The token's objects go with the worker's session. */
	EVP_PKEY_free(k->evp_pub);
	EVP_PKEY_free(k->evp_other);
}

int p11_pkey_run(struct p11_pkey *k, uint64_t max, const atomic_int *stop, uint64_t *done,
		 char *err, size_t errlen)
{
	uint64_t i;
	CK_RV rv;
	int ret = 0;

	for (i = 0; i < max && !atomic_load_explicit(stop, memory_order_relaxed); i++) {
		if (k->mode == MODE_SIGN) {
			ret = sign_once(k, err, errlen);
		} else if (k->mode == MODE_DERIVE) {
			ret = derive_next(k, k->peer_point, k->peer_len, err, errlen);
		} else {
			rv = verify_once(k);
			if (rv != CKR_OK && !(k->fault && rv == CKR_SIGNATURE_INVALID))
				ret = p11_ckr(rv, "C_Verify", err, errlen);
		}
		if (ret)
			break;
	}
	if (k->fault && i && !ret) {
		if (k->mode == MODE_SIGN)
			k->out[k->out_len / 2] ^= 0x01;
		else if (k->mode == MODE_DERIVE)  /* against one's own public key */
			ret = derive_next(k, k->point, k->point_len, err, errlen);
	}
	*done += i;
	return ret;
}

static int run_one(struct p11_pkey *k, uint64_t *done, char *err, size_t errlen)
{
	atomic_int never = 0;

	return p11_pkey_run(k, 1, &never, done, err, errlen);
}

/* Does OpenSSL verify SIG on the message with the token's public key? */
static bool evp_verifies(struct p11_pkey *k, const unsigned char *sig, size_t len)
{
	EVP_PKEY_CTX *c = NULL;
	EVP_MD_CTX *m = NULL;
	ECDSA_SIG *s = NULL;
	unsigned char *der = NULL;
	bool ok = false;
	int n;

	if (eddsa(k->a)) {
		m = EVP_MD_CTX_new();
		ok = m && EVP_DigestVerifyInit_ex(m, NULL, NULL, NULL, NULL, k->evp_pub, NULL) == 1 &&
		     EVP_DigestVerify(m, sig, len, k->msg, k->msg_len) == 1;
		goto out;
	}
	/* PKCS#11's r || s as the DER OpenSSL takes. */
	if (len % 2 || !(s = ECDSA_SIG_new()) ||
	    ECDSA_SIG_set0(s, BN_bin2bn(sig, (int)len / 2, NULL), BN_bin2bn(sig + len / 2, (int)len / 2, NULL)) != 1 ||
	    (n = i2d_ECDSA_SIG(s, &der)) <= 0)
		goto out;
	c = EVP_PKEY_CTX_new_from_pkey(NULL, k->evp_pub, NULL);
	ok = c && EVP_PKEY_verify_init(c) == 1 &&
	     EVP_PKEY_verify(c, der, (size_t)n, k->msg, k->msg_len) == 1;
out:
	ERR_clear_error();
	EVP_MD_CTX_free(m);
	EVP_PKEY_CTX_free(c);
	ECDSA_SIG_free(s);
	OPENSSL_free(der);
	return ok;
}

/* The timed C_Verify on the signature with one bit flipped must fail. */
static int timed_once(void *k, uint64_t *done, char *err, size_t errlen)
{
	return run_one(k, done, err, errlen);
}

static int verify_rejects_bad(struct p11_pkey *k, char *err, size_t errlen)
{
	return verify_refuses_flip(k->out, k->out_len, timed_once, k, "the token's C_Verify", err,
				   errlen);
}

static int check_sign(struct p11_pkey *k, uint64_t *done, char *err, size_t errlen)
{
	if (run_one(k, done, err, errlen) < 0)
		return -1;
	if (!evp_verifies(k, k->out, k->out_len)) {
		snprintf(err, errlen, "OpenSSL does not verify the %lu-byte signature %s",
			 (unsigned long)k->out_len,
			 k->mode == MODE_SIGN ? "the token made" : "the token verified");
		return -1;
	}
	if (k->mode == MODE_VERIFY)
		return verify_rejects_bad(k, err, errlen);
	memcpy(k->msg, k->out, k->msg_len);  /* sign new data from here on */
	return 0;
}

/* OpenSSL's key with the token's public key: the cross-check's secret. */
static bool evp_derive(struct p11_pkey *k, unsigned char *out, size_t *len)
{
	EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(NULL, k->evp_other, NULL);
	bool ok = c && EVP_PKEY_derive_init(c) == 1 && EVP_PKEY_derive_set_peer(c, k->evp_pub) == 1 &&
		  EVP_PKEY_derive(c, out, len) == 1;

	ERR_clear_error();
	EVP_PKEY_CTX_free(c);
	return ok;
}

static int check_derive(struct p11_pkey *k, uint64_t *done, char *err, size_t errlen)
{
	unsigned char mine[P11_POINT_MAX], theirs[P11_POINT_MAX], third[P11_POINT_MAX], ref[P11_POINT_MAX];
	CK_ULONG ml = sizeof(mine), tl = sizeof(theirs), hl = sizeof(third);
	size_t rl = sizeof(ref);
	CK_OBJECT_HANDLE h = CK_INVALID_HANDLE;
	int ret = -1;

	if (run_one(k, done, err, errlen) < 0 || secret_value(k, k->secret, mine, &ml, err, errlen) < 0 ||
	    derive(k, k->peer_priv, k->point, k->point_len, &h, err, errlen) < 0 ||
	    secret_value(k, h, theirs, &tl, err, errlen) < 0)
		goto out;
	if (ml != tl || memcmp(mine, theirs, ml)) {
		snprintf(err, errlen, "the token's %lu-byte secret differs from the one its peer derives",
			 (unsigned long)ml);
		goto out;
	}
	k->f->C_DestroyObject(k->s, h);
	h = CK_INVALID_HANDLE;
	if (derive(k, k->priv, k->other_point, k->other_len, &h, err, errlen) < 0 ||
	    secret_value(k, h, third, &hl, err, errlen) < 0)
		goto out;
	if (!evp_derive(k, ref, &rl) || rl != hl || memcmp(ref, third, rl)) {
		snprintf(err, errlen, "the token's secret with OpenSSL's key differs from OpenSSL's");
		goto out;
	}
	if (hl == ml && !memcmp(third, mine, ml)) {
		snprintf(err, errlen, "the token derives the same secret with two different peers");
		goto out;
	}
	ret = 0;
out:
	if (h != CK_INVALID_HANDLE)
		k->f->C_DestroyObject(k->s, h);
	return ret;
}

int p11_pkey_check(struct p11_pkey *k, uint64_t *done, char *err, size_t errlen)
{
	return k->mode == MODE_DERIVE ? check_derive(k, done, err, errlen) : check_sign(k, done, err, errlen);
}

/* The row's public key as a token object: the published point (ECDSA), or
 * the point OpenSSL computes from the published private key (EdDSA). */
static int import_published(struct p11_pkey *k, CK_OBJECT_HANDLE *h, char *err, size_t errlen)
{
	unsigned char raw[P11_POINT_MAX], der[P11_POINT_MAX + 3], params[16];
	CK_OBJECT_CLASS cls = CKO_PUBLIC_KEY;
	CK_KEY_TYPE kt = eddsa(k->a) ? CKK_EC_EDWARDS : CKK_EC;
	CK_BBOOL no = CK_FALSE, yes = CK_TRUE;
	int n = hex_decode(k->a->kat.key, raw, sizeof(raw)), pl = ec_params(k->a, params, sizeof(params));
	size_t len = n < 0 ? 0 : (size_t)n, hdr = len < 128 ? 2 : 3;
	EVP_PKEY *priv = NULL;

	if (n > 0 && eddsa(k->a)) {
		priv = EVP_PKEY_new_raw_private_key_ex(NULL, k->a->evp_name, NULL, raw, len);
		len = sizeof(raw);
		if (!priv || EVP_PKEY_get_raw_public_key(priv, raw, &len) != 1)
			n = -1;
		EVP_PKEY_free(priv);
	}
	if (n <= 0 || pl < 0) {
		ERR_clear_error();
		snprintf(err, errlen, "known-answer test: the key of %s cannot be read", k->a->kat.source);
		return -1;
	}
	der[0] = 0x04;
	der[1] = len < 128 ? (unsigned char)len : 0x81;
	der[2] = (unsigned char)len;
	memcpy(der + hdr, raw, len);
	CK_ATTRIBUTE t[] = {
		{ CKA_CLASS, &cls, sizeof(cls) }, { CKA_KEY_TYPE, &kt, sizeof(kt) },
		{ CKA_TOKEN, &no, sizeof(no) }, { CKA_VERIFY, &yes, sizeof(yes) },
		{ CKA_EC_PARAMS, params, (CK_ULONG)pl }, { CKA_EC_POINT, der, len + hdr },
	};
	return p11_ckr(k->f->C_CreateObject(k->s, t, 6, h), "C_CreateObject (published public key)",
		       err, errlen);
}

/* The published signature through the timed verify on the published key,
 * and refused with one bit flipped; the worker's own state left as it was. */
static int published_verifies(struct p11_pkey *k, char *err, size_t errlen)
{
	struct p11_pkey saved = *k;
	uint64_t unused = 0;
	CK_OBJECT_HANDLE h;
	int ret = -1;

	if (import_published(k, &h, err, errlen) < 0)
		return -1;
	k->pub = h;
	k->mode = MODE_VERIFY;
	k->msg_len = (CK_ULONG)hex_decode(k->a->kat.in, k->msg, sizeof(k->msg));
	k->out_len = (CK_ULONG)hex_decode(k->a->kat.out, k->out, sizeof(k->out));
	if (run_one(k, &unused, err, errlen) < 0)
		snprintf(err, errlen, "known-answer test (%s): the token does not verify the published signature",
			 k->a->kat.source);
	else
		ret = verify_rejects_bad(k, err, errlen);
	k->f->C_DestroyObject(k->s, h);
	*k = saved;
	return ret;
}

int p11_pkey_kat(struct p11_pkey *k, char *err, size_t errlen)
{
	uint64_t unused = 0;
	char why[384];

	if (k->mode != MODE_DERIVE && k->a->kat.key && published_verifies(k, err, errlen) < 0)
		return -1;
	if (p11_pkey_check(k, &unused, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "known-answer test (%s): %s", k->a->kat.source, why);
		return -1;
	}
	return 0;
}
