# t2accel's embedded known answers are published vectors: each one the
# binary checks at start-up (workloads/crypto/algos.c) equals an entry of
# the files Debian's python3-cryptography-vectors ships (NIST CAVP GCM,
# SHA-3 and SigVer, RFC 8439, RFC 4231, SP 800-38B, RFC 8032, RFC 7748).
. "$(dirname "$0")/tap.bash"
cd "$(dirname "$0")/../.." || exit 1
vec=$(/usr/bin/python3 -c 'import cryptography_vectors, os; print(os.path.dirname(cryptography_vectors.__file__))' 2>/dev/null)
if [ -z "$vec" ]; then
	skip "python3-cryptography-vectors is not installed (src/install-deps check)"
	exit 0
fi
/usr/bin/python3 - "$vec" workloads/crypto/algos.c >"$tmp/verdicts" <<'PY'
import hashlib, re, sys

vec, src = sys.argv[1], open(sys.argv[2]).read()
macros = {m: "".join(re.findall(r'"([^"]*)"', v))
          for m, v in re.findall(r'#define (\w+) ((?:"[^"]*"\s*)+)\n', src)}

def kats():
    """Each row's name and its known answer: key, iv, in, out, source, aad."""
    for m in re.finditer(r'\{ "([\w-]+)", "[^"]*", ALGO_\w+, "[^"]*",[^{]*\{', src):
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(src[i], 0)
            i += 1
        fields, cur = [], None
        for t in re.finditer(r'"([^"]*)"|\b(NULL)\b|\b([A-Z_][A-Z0-9_]*)\b(\([^)]*\))?|(,)', src[m.end():i - 1]):
            s, null, ident, args, comma = t.groups()
            if comma:
                fields.append(cur); cur = None
            elif s is not None:
                cur = (cur or "") + s
            elif ident and not args and ident in macros:
                cur = (cur or "") + macros[ident]
            elif ident:
                cur = (cur or "") + ident + (args or "")
        fields.append(cur)
        fields += [None] * (6 - len(fields))
        yield m.group(1), dict(zip(("key", "iv", "in", "out", "source", "aad"), fields))

def blocks(path):
    """A vector file's entries: NAME = value lines between blank lines, with
    the [section] lines before them."""
    sect, cur = "", {}
    for line in open(path, encoding="latin-1").read().replace("\r", "").split("\n") + [""]:
        line = line.strip()
        if line.startswith("["):
            sect = line if not cur else sect + line
            continue
        kv = re.match(r'(\w+)\s*=\s*(.*)', line)
        if kv:
            v = kv.group(2).strip()
            if v.startswith('"'):
                v = v.strip('"').encode().hex()
            cur[kv.group(1).upper()] = v.lower()
        elif not line and cur:
            cur["SECTION"] = sect
            yield cur
            cur = {}

def ed25519(path):
    for line in open(path):
        sk, pk, msg, sm, _ = line.strip().split(":")
        yield {"SECRET": sk[:64], "MESSAGE": msg, "SIGNATURE": sm[:128]}

def want(k, e):
    """The embedded answer K as the file's fields of entry E."""
    return all(k[f] is not None and k[f].lower() == v for f, v in e.items())

G = vec + "/"
checks = {
    "aes128-gcm": (G + "ciphers/AES/GCM/gcmEncryptExtIV128.rsp", lambda b: {"key": b.get("KEY"), "iv": b.get("IV"), "in": b.get("PT"), "aad": b.get("AAD"), "out": b.get("CT", "") + b.get("TAG", "")}),
    "aes256-gcm": (G + "ciphers/AES/GCM/gcmEncryptExtIV256.rsp", lambda b: {"key": b.get("KEY"), "iv": b.get("IV"), "in": b.get("PT"), "aad": b.get("AAD"), "out": b.get("CT", "") + b.get("TAG", "")}),
    "chacha20-poly1305": (G + "ciphers/ChaCha20Poly1305/boringssl.txt", lambda b: {"key": b.get("KEY"), "iv": b.get("NONCE"), "in": b.get("IN"), "aad": b.get("AD"), "out": b.get("CT", "") + b.get("TAG", "")}),
    "hmac-sha256": (G + "HMAC/rfc-4231-sha256.txt", lambda b: {"key": b.get("KEY"), "in": b.get("MSG"), "out": b.get("MD")}),
    "hmac-sha512": (G + "HMAC/rfc-4231-sha512.txt", lambda b: {"key": b.get("KEY"), "in": b.get("MSG"), "out": b.get("MD")}),
    "cmac-aes128": (G + "CMAC/nist-800-38b-aes128.txt", lambda b: {"key": b.get("KEY"), "in": b.get("MESSAGE"), "out": b.get("OUTPUT")}),
    "sha3-256": (G + "hashes/SHA3/SHA3_256ShortMsg.rsp", lambda b: {"in": b.get("MSG"), "out": b.get("MD")}),
    "sha3-512": (G + "hashes/SHA3/SHA3_512ShortMsg.rsp", lambda b: {"in": b.get("MSG"), "out": b.get("MD")}),
    "ed25519": (G + "asymmetric/Ed25519/sign.input", lambda b: {"key": b["SECRET"], "in": b["MESSAGE"], "out": b["SIGNATURE"]}),
    "ed448": (G + "asymmetric/Ed448/rfc8032.txt", lambda b: None if "CONTEXT" in b else {"key": b.get("SECRET"), "in": b.get("MESSAGE"), "out": b.get("SIGNATURE")}),
    "x25519": (G + "asymmetric/X25519/rfc7748.txt", lambda b: {"key": b.get("INPUT_SCALAR"), "iv": b.get("INPUT_U"), "out": b.get("OUTPUT_U")}),
    "x448": (G + "asymmetric/X448/rfc7748.txt", lambda b: {"key": b.get("INPUT_SCALAR"), "iv": b.get("INPUT_U"), "out": b.get("OUTPUT_U")}),
}
for curve, h in (("p256", "256"), ("p384", "384")):
    checks["ecdsa-" + curve] = (G + "asymmetric/ECDSA/FIPS_186-3/SigVer.rsp",
        lambda b, c=curve[1:], h=h: None if b["SECTION"] != "[P-%s,SHA-%s]" % (c, h) or b.get("RESULT", "")[:1] != "p" else
        {"key": "04" + b.get("QX", "") + b.get("QY", ""), "out": b.get("R", "") + b.get("S", ""),
         "in": hashlib.new("sha" + h, bytes.fromhex(b.get("MSG", ""))).hexdigest()})

rows = dict(kats())
for name, (path, fields) in checks.items():
    k = rows.get(name)
    if not k:
        print("FAIL\t%s: no such row in algos.c" % name)
        continue
    read = ed25519(path) if path.endswith("sign.input") else blocks(path)
    found = any(e and want(k, e) for e in map(fields, read))
    print("%s\t%s (%s) is an entry of %s" % ("OK" if found else "FAIL", name, k["source"], path[len(vec) + 1:]))
PY
st=$?
check "the vectors were read (python exit $st)" [ $st -eq 0 ]
while IFS=$'\t' read -r verdict what; do
	if [ "$verdict" = OK ]; then ok "$what"; else notok "$what"; fi
done <"$tmp/verdicts"
check "14 embedded vectors compared" [ "$(wc -l <"$tmp/verdicts")" -eq 14 ]
