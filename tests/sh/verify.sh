# What verified=yes vouches for: the timed loop's own outputs are checked.
# The fault switches corrupt the timed work (T2ACCEL_FAULT_WORKER, from the
# start; T2ACCEL_FAULT_KAT, already in the known-answer test), limited to one
# measurement with T2ACCEL_FAULT_ONLY, for every algorithm of both backends,
# sign and verify apart; a fake token that returns wrong digests with CKR_OK;
# short runs that used to end with no check at all.
. "$(dirname "$0")/tap.bash"
# Under AddressSanitizer: stacks through SoftHSM2 unwound whole, so that
# tests/lsan.supp names it (its EdDSA C_SignInit leaks).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"

export TMPDIR=$tmp

# run NAME WANT-EXIT WANT-MESSAGE ENV... -- T2ACCEL-ARGS...
run() {
	local name=$1 want=$2 msg=$3 st
	shift 3
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env "${envs[@]}" threadrun -q -o "$tmp/r.csv" 2 t2accel -q "$@" >/dev/null 2>"$tmp/err"
	st=$?
	if [ $st -eq "$want" ] && { [ -z "$msg" ] || grep -q -- "$msg" "$tmp/err"; }; then
		ok "$name"
	else
		notok "$name" "exit $st, want $want and '$msg'" "$(head -3 "$tmp/err")"
	fi
}

# Every measurement of the algorithm table, as NAME:LABEL.
labels=$(t2accel --list | awk -F'\t' '{n = split($2, l, " "); for (i = 1; i <= n; i++) print $1 ":" l[i]}')
check "t2accel --list gives the measurements" [ -n "$labels" ]
evp_only=$(t2accel -b pkcs11 --list | awk -F'\t' '$2 != "-" && $3 == "no" {print $1}')
for be in evp pkcs11; do
	for al in $labels; do
		a=${al%%:*} label=${al#*:}
		# What t2accel has no PKCS#11 path for is refused there (sh/pkcs11).
		[ "$be" = pkcs11 ] && grep -qx "$a" <<<"$evp_only" && continue
		args=(-b "$be" -a "$a" -s 64 -k 1024 -d 0.1)
		# A row without a PKCS#11 mechanism is refused there, by name.
		if [ "$be" = pkcs11 ]; then
			t2accel -q -b pkcs11 -a "$a" -s 64 -r 1 >/dev/null 2>"$tmp/err"
			if [ $? -eq 3 ] && grep -q "skipping $a: no PKCS#11 mechanism" "$tmp/err"; then
				ok "pkcs11 $label: no PKCS#11 mechanism: refused, named, exit 3"
				continue
			fi
		fi
		run "$be $label: timed outputs corrupted on worker 1: caught, named, exit 1" 1 \
			"failed: $label .*worker 1 on CPU [0-9]: .*\(timed\|token\|accepted\|does not verify\)" \
			T2ACCEL_FAULT_WORKER=1 T2ACCEL_FAULT_ONLY=$label -- "${args[@]}"
		run "$be $label: corrupted before the known-answer test: caught, exit 1" 1 \
			"failed: $label .*worker 0 on CPU [0-9]: .*\(known-answer\|accepted\)" \
			T2ACCEL_FAULT_KAT=0 T2ACCEL_FAULT_ONLY=$label -- "${args[@]}"
	done
done
check "a measurement whose timed work was corrupted is a row marked no" bash -c \
	"results_get '$tmp/r.csv' algorithm verified | grep -q \$'^rsa-verify\tno$'"

# A token that lies (CKR_OK, a wrong digest): in the known answers, and
# from 1 s after it starts, in the middle of a 2 s run.
fake=(-b pkcs11 --module "$FAKE_P11" --slot 0 -a sha256 -s 64 -d 2)
run "fake token wrong from the first digest: the known-answer test fails" 1 \
	"known-answer test (FIPS 180-2 B.1) through the token gives a wrong answer" \
	T2ACCEL_PIN=1234 FAKE_P11_FAIL=wrong:1 -- "${fake[@]}"
run "fake token wrong from 1 s on: the EVP cross-check fails during the run" 1 \
	"the token's digest of 64 bytes differs from OpenSSL EVP's" \
	T2ACCEL_PIN=1234 FAKE_P11_FAIL=wrong-after:1 -- "${fake[@]}"

# Runs too short for a sampled check: each worker still checks its last
# operation, so the fault is caught and a clean run is checked.
run "des3 16384 bytes, -d 0.05, fault: caught" 1 "worker 0 on CPU [0-9]: the timed" \
	T2ACCEL_FAULT_WORKER=0 -- -a des3 -s 16384 -d 0.05
run "rsa-4096 sign, -d 0.05, fault: caught" 1 "worker 0 on CPU [0-9]: the 512-byte signature" \
	T2ACCEL_FAULT_WORKER=0 T2ACCEL_FAULT_ONLY=rsa-sign -- -a rsa -k 4096 -d 0.05
rm -f "$tmp/r.csv"
run "short clean runs: exit 0" 0 "" -- -a des3,sha256 -s 16384 -d 0.02
check "every row says how many checks ran, at least one per worker" bash -c \
	"[ \"\$(results_get '$tmp/r.csv' verified checks | awk '\$1 == \"yes\" && \$2 >= 2' | wc -l)\" -eq 2 ]"
threadrun -q -o "$tmp/r4.csv" 2 t2accel -q -a rsa -k 4096 -d 0.05 >/dev/null 2>&1
check "rsa-4096 -d 0.05: sign and verify rows verified with checks" bash -c \
	"[ \"\$(results_get '$tmp/r4.csv' algorithm verified checks | awk '\$2 == \"yes\" && \$3 >= 2' | wc -l)\" -eq 2 ]"
