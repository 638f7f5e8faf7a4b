# t2accel -b pkcs11: SoftHSM2 out of the box on a temporary token, cross-
# checked against EVP; 8 workers on 2 PUs; existing tokens and PINs; bad
# modules; a module lacking a mechanism; faults from a fake module.
. "$(dirname "$0")/tap.bash"
# Under AddressSanitizer: stacks through SoftHSM2 unwound whole, so that
# tests/lsan.supp names it (its EdDSA C_SignInit leaks).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
fake=$FAKE_P11
export TMPDIR=$tmp
tokens_left() { ls -d "$tmp"/t2accel-token-* 2>/dev/null | wc -l; }
# Measurements -a all makes on the token at one size: one per sized
# algorithm it offers (t2accel -b pkcs11 --list), one per label of a
# public-key row it offers (sign and verify; derive).
t2accel -b pkcs11 --list >"$tmp/offered"
st=$?
t2accel --list >"$tmp/list"
count() { awk -F'\t' -v want="$1" 'NR == FNR {if ($3 == "yes") ok[$1] = 1; next}
	ok[$1] && (($3 == "sign" || $3 == "derive") == (want == "per_op")) {n += want == "per_op" ? split($2, l, " ") : 1}
	END {print n + 0}' "$tmp/offered" "$tmp/list"; }
per_size=$(count per_size) signs=$(count per_op)
check "t2accel -b pkcs11 --list: exit 0 (got $st), a row each, sized and public-key rows offered" bash -c \
	"[ $st -eq 0 ] && [ \$(wc -l <'$tmp/offered') -eq \$(wc -l <'$tmp/list') ] && [ $per_size -gt 0 -a $signs -gt 0 ]"
for row in 'aes	CKM_AES_CBC	yes' 'aes128-gcm	CKM_AES_GCM	yes' 'aes256-gcm	CKM_AES_GCM	yes' \
	   'hmac-sha256	CKM_SHA256_HMAC	yes' 'ecdsa-p256	CKM_ECDSA	yes' 'ecdsa-p384	CKM_ECDSA	yes' \
	   'ed25519	CKM_EDDSA	yes' 'ecdh-p256	CKM_ECDH1_DERIVE	yes' 'sha3-256	-	no'; do
	check "SoftHSM2 --list: '$row'" grep -qx "$row" "$tmp/offered"
done

threadrun -q -o "$tmp/p.csv" 2 t2accel -q -b pkcs11 -a all -s 16,8192 -d 0.1 >"$tmp/out" 2>"$tmp/err"
st=$?
check "threadrun 2 t2accel -b pkcs11 -a all: exit 0 (got $st)" [ $st -eq 0 ]
# Algorithms with no PKCS#11 mechanism here are skipped and said.
check "rows the token does not offer are named as skipped" bash -c \
	"[ \$(grep -c '^t2accel: skipping ' '$tmp/err') -eq \$(grep -c '	no\$' '$tmp/offered') ]"
check "one row per measurement, all pkcs11, all verified (cross-checked with EVP)" bash -c \
	"[ \"\$(results_get '$tmp/p.csv' backend verified | sort | uniq -c | awk '{print \$1, \$2, \$3}')\" = '$((2 * per_size + signs)) pkcs11 yes' ]"
check "rows name the module and the token" bash -c "results_get '$tmp/p.csv' impl | grep -q 'SoftHSM.*temporary'"
check "no temporary token left behind" [ "$(tokens_left)" -eq 0 ]

# The concurrency case SoftHSM2 users report crashes with: 8 workers, 2 PUs.
threadrun -q -o "$tmp/p8.csv" 8 t2accel -q -b pkcs11 -a all -s 64 -k 1024 -d 0.2 >/dev/null 2>"$tmp/err"
st=$?
check "8 workers through SoftHSM2, every algorithm: exit 0 (got $st)" [ $st -eq 0 ]
check "8 workers: 8 rows, all verified" bash -c \
	"[ \"\$(results_get '$tmp/p8.csv' threads verified | sort | uniq -c | awk '{print \$1, \$2, \$3}')\" = '$((per_size + signs)) 8 yes' ]"

# A corrupted token output is caught by the EVP cross-check.
T2ACCEL_FAULT_WORKER=1 threadrun -q -o "$tmp/f.csv" 2 t2accel -q -b pkcs11 -a aes -s 64 -d 0.2 >/dev/null 2>"$tmp/err"
st=$?
check "corrupted pkcs11 output detected: exit 1 (got $st)" [ $st -eq 1 ]
check "named: algorithm, size, worker, CPU" grep -q 'failed: aes-128-cbc 64 bytes: worker 1 on CPU [0-9]: the token.s ciphertext of 64 bytes differs from OpenSSL EVP' "$tmp/err"
check "no temporary token left behind after a failure" [ "$(tokens_left)" -eq 0 ]

# #28's algorithms on the token, keys made there: every measurement verified
# and cross-checked against EVP (the token's GCM record decrypts in EVP, its
# HMAC is EVP's, its signatures verify in EVP, its ECDH secret is EVP's).
for a in aes128-gcm:aes-128-gcm hmac-sha256:hmac-sha256 ecdsa-p256:'ecdsa-p256-sign ecdsa-p256-verify' \
	 ed25519:'ed25519-sign ed25519-verify' ecdh-p256:ecdh-p256; do
	name=${a%%:*} labels=${a#*:}
	threadrun -q -o "$tmp/n-$name.csv" 2 t2accel -q -b pkcs11 -a "$name" -s 64 -d 0.2 >/dev/null 2>"$tmp/err"
	st=$?
	got=$(results_get "$tmp/n-$name.csv" algorithm verified checks | grep -v '^(run)' |
	      awk -F'\t' '$2 == "yes" && $3 >= 2 {print $1}' | paste -sd' ')
	check "SoftHSM2 $name: exit 0 (got $st), verified and checked on both workers: '$got'" [ $st -eq 0 -a "$got" = "$labels" ]
done
# A corrupted token output of each is caught by the cross-check.
for f in 'aes128-gcm:aes-128-gcm 64 bytes: .*do not decrypt and authenticate in OpenSSL EVP' \
	 'aes256-gcm:aes-256-gcm 64 bytes: .*do not decrypt and authenticate in OpenSSL EVP' \
	 "hmac-sha256:hmac-sha256 64 bytes: .*the token.s MAC of 64 bytes differs from OpenSSL EVP.s" \
	 'ecdsa-p256:ecdsa-p256-sign 256 bits: .*OpenSSL does not verify the 64-byte signature the token made' \
	 'ecdsa-p384:ecdsa-p384-sign 384 bits: .*OpenSSL does not verify the 96-byte signature the token made' \
	 'ed25519:ed25519-sign 253 bits: .*OpenSSL does not verify the 64-byte signature the token made' \
	 'ecdh-p256:ecdh-p256 256 bits: .*the token.s 32-byte secret differs from the one its peer derives'; do
	name=${f%%:*} msg=${f#*:}
	T2ACCEL_FAULT_WORKER=1 threadrun -q 2 t2accel -q -b pkcs11 -a "$name" -s 64 -d 0.2 >/dev/null 2>"$tmp/err"
	st=$?
	check "fault in worker 1, $name: exit 1 (got $st), '$msg'" bash -c "[ $st -eq 1 ] && grep -q 'failed: $msg' '$tmp/err'"
done

# SIGINT: stops, and still removes the token.
t2accel -q -b pkcs11 -a sha1 -s 64 -d 5 >/dev/null 2>&1 &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
st=$?
check "SIGINT: exit 130 (got $st)" [ $st -eq 130 ]
check "SIGINT: no temporary token left behind" [ "$(tokens_left)" -eq 0 ]

# An existing SoftHSM2 token: by label and by slot, PIN from the environment
# or a file; a wrong PIN said plainly and never printed.
mkdir -p "$tmp/store"
printf 'directories.tokendir = %s/store\nobjectstore.backend = file\nlog.level = ERROR\n' "$tmp" >"$tmp/sh.conf"
export SOFTHSM2_CONF=$tmp/sh.conf
softhsm2-util --init-token --free --label mytoken --so-pin 87654321 --pin 24681357 >/dev/null 2>&1
slot=$(softhsm2-util --show-slots 2>/dev/null | awk '/^Slot [0-9]+/ {s = $2} /Label: *mytoken/ {print s; exit}')
T2ACCEL_PIN=24681357 t2accel -q -b pkcs11 --token-label mytoken -a sha256 -s 64 -d 0.1 >/dev/null 2>"$tmp/err"
check "existing token by label, PIN from T2ACCEL_PIN: exit 0 ($?)" [ $? -eq 0 ]
(umask 077 && echo 24681357 >"$tmp/pin")
t2accel -q -b pkcs11 --slot "$slot" --pin-file "$tmp/pin" -a aes -s 64 -d 0.1 >/dev/null 2>"$tmp/err"
check "existing token by slot $slot, PIN from --pin-file: exit 0 ($?)" [ $? -eq 0 ]
T2ACCEL_PIN=11112222 t2accel -q -b pkcs11 --token-label mytoken -a sha256 >/dev/null 2>"$tmp/err"
st=$?
check "wrong PIN: exit 2 (got $st)" [ $st -eq 2 ]
check "wrong PIN: said plainly" grep -q 'PIN: the token refused the user PIN (CKR_PIN_INCORRECT)' "$tmp/err"
check "wrong PIN: the PIN is not printed" bash -c "! grep -q 11112222 '$tmp/err'"
check "wrong PIN: one line" [ "$(wc -l <"$tmp/err")" -eq 1 ]
# SoftHSM2's free slot holds a token not initialised: named as such, never
# taken for one to log into.
free=$(softhsm2-util --show-slots 2>/dev/null | awk '/^Slot [0-9]+/ {s = $2} /Initialized: *no/ {print s; exit}')
t2accel -q -b pkcs11 --slot "$free" --pin-file "$tmp/pin" -a sha256 >/dev/null 2>"$tmp/err"
st=$?
check "a slot whose token is not initialised: exit 2 (got $st), one line saying so" bash -c \
	"[ $st -eq 2 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] &&
	 grep -q \"slot: $free holds a token not initialised yet .*its tokens: .*slot $free (not initialised)\" '$tmp/err'"
unset SOFTHSM2_CONF

# Faults of a module: the fake module (slot 0, PIN 1234, only CKM_SHA256).
export T2ACCEL_PIN=1234
t2accel -q -b pkcs11 --module "$fake" --slot 0 -a sha256,md5 -s 64 -d 0.1 >"$tmp/out" 2>"$tmp/err"
st=$?
check "a mechanism the module lacks: skipped and said, the rest runs, exit 3 (got $st)" bash -c \
	"[ $st -eq 3 ] && grep -q 'skipping md5: the module lacks CKM_MD5 (CKR_MECHANISM_INVALID)' '$tmp/err' && grep -q '^sha256 ' '$tmp/out'"
for m in aes128-gcm:CKM_AES_GCM hmac-sha256:CKM_SHA256_HMAC ecdsa-p256:CKM_ECDSA ed25519:CKM_EDDSA ecdh-p256:CKM_ECDH1_DERIVE; do
	t2accel -q -b pkcs11 --module "$fake" --slot 0 -a "${m%%:*}" -s 64 -d 0.1 >/dev/null 2>"$tmp/err"
	st=$?
	check "${m%%:*} on a module without ${m#*:}: exit 3 (got $st), one line naming it" bash -c \
		"[ $st -eq 3 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && grep -qx 't2accel: skipping ${m%%:*}: the module lacks ${m#*:} (CKR_MECHANISM_INVALID)' '$tmp/err'"
done
t2accel -b pkcs11 --module "$fake" --slot 0 --list >"$tmp/offered"
check "--list on the fake module: only sha256 offered" bash -c \
	"[ \"\$(awk -F'\t' '\$3 == \"yes\" {print \$1}' '$tmp/offered')\" = sha256 ] && grep -qx 'ed25519	CKM_EDDSA	no' '$tmp/offered'"
for fault in initialize:1:'C_Initialize failed: CKR_GENERAL_ERROR' login:1:'opening a session and logging in failed: CKR_DEVICE_ERROR' \
	     open:1:'opening a session and logging in failed: CKR_DEVICE_ERROR' \
	     open2:1:'worker [01] on CPU [0-9]: C_OpenSession failed: CKR_DEVICE_ERROR' digest:1:'C_Digest failed: CKR_DEVICE_ERROR'; do
	mode=${fault%%:*} rest=${fault#*:} want=${rest%%:*} msg=${rest#*:}
	case $mode in digest) mode=digest-after:0.4 ;; open) mode=open:1 ;; open2) mode=open:2 ;; esac
	FAKE_P11_FAIL=$mode threadrun -q -o "$tmp/fault.csv" 2 t2accel -q -b pkcs11 --module "$fake" --slot 0 -a sha256 -s 64 -d 1 \
		>/dev/null 2>"$tmp/err"
	st=$?
	if [ $st -eq "$want" ] && grep -q "$msg" "$tmp/err"; then
		ok "fake module failing at $mode: exit $want, '$msg'"
	else
		notok "fake module failing at $mode" "exit $st" "$(cat "$tmp/err")"
	fi
done
check "a failure mid-run leaves an unverified row; what never started, none (threadrun's run rows aside)" bash -c \
	"[ \"\$(results_get '$tmp/fault.csv' algorithm verified | grep -v '^(run)')\" = \$'sha256\tno' ]"
unset T2ACCEL_PIN

# A sweep over a temporary token is one series: impl names the module, not
# the throwaway token (its label and slot change every run), so the 2-thread
# point is compared with the 1-thread one, whatever the token does.
threadrun -q --sweep 1-2 -o "$tmp/sw.csv" -- t2accel -q -b pkcs11 -a sha256 -s 1024 -d 0.2 >/dev/null 2>&1
check "a pkcs11 sweep: one impl across thread counts" bash -c \
	"[ \$(results_get '$tmp/sw.csv' algorithm impl | grep -v '^(run)' | cut -f2 | sort -u | wc -l) -eq 1 ]"
check "the report has one pkcs11 series, with a 2-thread speedup measured against 1 thread" bash -c \
	"threadreport --raw -f tsv '$tmp/sw.csv' | awk -F'\t' 'NR == 1 {for (i = 1; i <= NF; i++) c[\$i] = i; next}
	 \$c[\"backend\"] == \"pkcs11\" {s[\$c[\"series\"]]++; if (\$c[\"threads\"] == 2) sp = \$c[\"speedup\"]}
	 END {exit !(length(s) == 1 && sp != \"\" && sp != \"nan\")}'"
