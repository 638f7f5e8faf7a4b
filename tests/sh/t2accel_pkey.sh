# t2accel's signatures and key agreement (ECDSA, EdDSA, ECDH, X25519/X448,
# FFDH): every row verified, sign and verify measured apart, sizes in bits,
# each timed output checked (a fault in any of them caught), and no PKCS#11
# path for them: refused there with exit 3.
. "$(dirname "$0")/tap.bash"
export TMPDIR=$tmp
rows=$(t2accel --list | awk -F'\t' '$3 == "derive" || ($3 == "sign" && $5 != "RSA")')
names=$(cut -f1 <<<"$rows" | paste -sd,)
for a in ecdsa-p256 ecdsa-p384 ecdsa-p521 ed25519 ed448 ecdh-p256 ecdh-p384 x25519 x448 ffdh2048 ffdh3072 ffdh4096 ffdh6144 ffdh8192; do
	check "t2accel --list has $a" grep -q "^$a	" <<<"$rows"
done

threadrun -q -o "$tmp/k.csv" 2 t2accel -a "$names" -d 0.1 >"$tmp/out" 2>"$tmp/err"
st=$?
check "threadrun 2 t2accel -a $names: exit 0 (got $st)" [ $st -eq 0 ]
want=$(awk -F'\t' '{n += split($2, l, " ")} END {print n}' <<<"$rows")
nsign=$(awk -F'\t' '$3 == "sign" {n++} END {print n}' <<<"$rows")
nderive=$(awk -F'\t' '$3 == "derive" {n++} END {print n}' <<<"$rows")
check "one verified row per measurement ($want), in sign/s, verify/s, derive/s, with checks" bash -c \
	"[ \"\$(results_get '$tmp/k.csv' verified unit | sort | uniq -c | awk '{print \$1, \$2, \$3}' | paste -sd,)\" = '$nderive yes derive/s,$nsign yes sign/s,$nsign yes verify/s' ] &&
	 ! results_get '$tmp/k.csv' checks | grep -qx 0"
check "sign and verify apart, sizes in bits" bash -c \
	"results_get '$tmp/k.csv' algorithm size size_unit | grep -qx \$'ed448-verify\t456\tbits' &&
	 results_get '$tmp/k.csv' algorithm size size_unit | grep -qx \$'ecdsa-p521-sign\t521\tbits' &&
	 results_get '$tmp/k.csv' algorithm size size_unit | grep -qx \$'ffdh2048\t2048\tbits'"
check "the table: a sign/s and a derive/s section" bash -c \
	"grep -q '^ecdsa-p384 384 bits  *[0-9.]*s  *[0-9.]*s' '$tmp/out' && grep -q 'derive/s' '$tmp/out' &&
	 grep -q '^x25519 253 bits  *[0-9.]*s  *[0-9.]*$' '$tmp/out'"

# A fault in worker 0, for each measurement: the run fails, the row is no.
for label in $(cut -f2 <<<"$rows"); do
	a=$(awk -F'\t' -v l="$label" '{n = split($2, x, " "); for (i = 1; i <= n; i++) if (x[i] == l) print $1}' <<<"$rows")
	T2ACCEL_FAULT_WORKER=0 T2ACCEL_FAULT_ONLY=$label threadrun -q -o "$tmp/f.csv" 2 \
		t2accel -q -a "$a" -d 0.1 >/dev/null 2>"$tmp/err"
	st=$?
	if [ $st -eq 1 ] && grep -q "failed: $label .*worker 0 on CPU" "$tmp/err" &&
	   results_get "$tmp/f.csv" algorithm verified | grep -qx "$label	no"; then
		ok "$label: a fault in worker 0 fails the run and marks the row no"
	else
		notok "$label: a fault in worker 0" "exit $st" "$(head -2 "$tmp/err")"
	fi
done

# ECDSA, EdDSA and ECDH run on the token (sh/pkcs11); X25519 and X448 have
# no token path yet: named, exit 3.
if command -v softhsm2-util >/dev/null; then
	t2accel -q -b pkcs11 -a x448 -d 0.1 >/dev/null 2>"$tmp/err"
	st=$?
	check "pkcs11 -a x448: exit 3 naming the mechanism (got $st)" bash -c \
		"[ $st -eq 3 ] && grep -q 'skipping x448: the module lacks CKM_ECDH1_DERIVE' '$tmp/err'"
	t2accel -q -b pkcs11 -a x25519,sha256 -s 64 -d 0.1 >"$tmp/out" 2>"$tmp/err"
	st=$?
	check "pkcs11 -a x25519,sha256: the rest runs, exit 3 (got $st)" bash -c \
		"[ $st -eq 3 ] && grep -q 'lacks CKM_ECDH1_DERIVE' '$tmp/err' && grep -q '^sha256 ' '$tmp/out'"
else
	skip "softhsm2-util not installed"
	skip "softhsm2-util not installed"
fi
