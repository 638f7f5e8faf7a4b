# A row says what the workers did: a fixed amount of work (-r) split over
# workers is counted exactly, the rate is that work over the row's wall
# time, every linpack rep is checked, and threadrun's own row lasts as long
# as its program.  (The row's wall time as the slowest worker's: the
# worker_straggler unit test in test_common.)
. "$(dirname "$0")/tap.bash"
f=$tmp/r.csv

# rate_is WORK RATE WALL [SCALE]: RATE is WORK / WALL / SCALE (RATE has 6 digits).
rate_is() {
	awk -v b="$1" -v r="$2" -v w="$3" -v k="${4:-1}" \
		'BEGIN { x = b / w / k; exit !(w > 0 && r > 0 && (r - x) ^ 2 <= (1e-5 * x) ^ 2) }'
}

# t2accel -r R over 3 workers: R / 3 each, the remainder to the first.
for spec in "md5 64 1000" "aes 1024 1000" "sha256 64 1001"; do
	set -- $spec
	rm -f "$f"
	THREADRUN_THREADS=3 t2accel -q -a "$1" -s "$2" -r "$3" -o "$f" >/dev/null 2>"$tmp/err"
	st=$?
	IFS=$'\t' read -r ops bytes rate wall checks verified threads \
		<<<"$(results_get "$f" ops bytes rate wall_s checks verified threads)"
	check "t2accel -a $1 -s $2 -r $3 over $threads workers (exit $st): ops exactly $3 ($ops), bytes exactly $3 x $2 ($bytes)" \
		[ "$st" -eq 0 -a "$threads" = 3 -a "$ops" = "$3" -a "$bytes" = "$(($3 * $2))" ]
	check "t2accel -a $1 -r $3: the rate is the bytes over the row's wall time ($rate = $bytes / $wall)" \
		rate_is "$bytes" "$rate" "$wall"
	check "t2accel -a $1 -r $3: every worker checked, the last operation of each ($checks checks), verified ($verified)" \
		[ "$checks" -ge 3 -a "$verified" = yes ]
done

# Signatures: ops are the signatures (and verifications), no bytes.
rm -f "$f"
THREADRUN_THREADS=3 t2accel -q -a rsa -k 1024 -r 20 -o "$f" >/dev/null 2>&1
rows=$(results_get "$f" algorithm ops bytes | tr '\t\n' ' |')
check "t2accel -a rsa -r 20 over 3 workers: 20 signatures and 20 verifications, no bytes ($rows)" \
	[ "$rows" = "rsa-sign 20 |rsa-verify 20 |" ]
IFS=$'\t' read -r ops rate wall <<<"$(results_get "$f" ops rate wall_s | head -1)"
check "t2accel -a rsa -r 20: the rate is the signatures over the row's wall time ($rate = $ops / $wall)" \
	rate_is "$ops" "$rate" "$wall"

# Under threadrun, 5 workers wrapped on this machine's PUs: the same work.
rm -f "$f"
threadrun -q -p compact -o "$f" 5 t2accel -q -a sha1 -s 64 -r 1003 >/dev/null 2>&1
st=$?
IFS=$'\t' read -r ops bytes threads <<<"$(results_get "$f" ops bytes threads | head -1)"
check "threadrun 5 t2accel -r 1003 (exit $st): ops exactly 1003 ($ops), bytes exactly 1003 x 64 ($bytes), 5 workers ($threads)" \
	[ "$st" -eq 0 -a "$ops" = 1003 -a "$bytes" = 64192 -a "$threads" = 5 ]

# linpack -r 4: every rep's solution checked, and a wrong one in any rep
# (the first, the last) fails the run.
rm -f "$f"
OMP_NUM_THREADS=2 linpack -q -r 4 -o "$f" 120 >/dev/null 2>&1
st=$?
IFS=$'\t' read -r checks verified ops rate wall <<<"$(results_get "$f" checks verified ops rate wall_s)"
check "linpack -r 4 (exit $st): 4 checks ($checks), verified ($verified)" \
	[ "$st" -eq 0 -a "$checks" = 4 -a "$verified" = yes ]
check "linpack -r 4: the rate is the flops over the row's wall time in MFLOPS ($rate = $ops / $wall / 1e6)" \
	rate_is "$ops" "$rate" "$wall" 1e6
for rep in 1 4; do
	rm -f "$f"
	LINPACK_FAULT=$rep OMP_NUM_THREADS=2 linpack -q -r 4 -o "$f" 120 >/dev/null 2>"$tmp/err"
	st=$?
	IFS=$'\t' read -r checks verified <<<"$(results_get "$f" checks verified)"
	said=$(grep -c 'verification failed' "$tmp/err")
	check "linpack -r 4, rep $rep's solution wrong: exit 1 ($st), said ($said), 4 checks ($checks), unverified ($verified)" \
		[ "$st" -eq 1 -a "$said" = 1 -a "$checks" = 4 -a "$verified" = no ]
done

# STREAM: each kernel's row is its best iteration, bytes over that time.
rm -f "$f"
THREADRUN_THREADS=2 stream -q -n 20000 -t 5 -o "$f" >/dev/null 2>&1
bad=$(results_get "$f" algorithm bytes rate wall_s | while IFS=$'\t' read -r k b r w; do
	rate_is "$b" "$r" "$w" || echo "$k: $r != $b / $w"; done)
check "stream: every kernel's rate is its bytes over the row's wall time (${bad:-4 rows})" \
	[ -z "$bad" -a "$(results_get "$f" algorithm | wc -l)" = 4 ]

# threadrun's own row lasts from the launch to the program's exit: a
# program that sleeps (no CPU time) is not over in no time.
rm -f "$f"
threadrun -q -p none -o "$f" 2 sh -c 'sleep 0.3' >/dev/null 2>&1
IFS=$'\t' read -r wall t0 t1 <<<"$(results_get "$f" wall_s t_start t_end)"
check "threadrun's own row of a 0.3 s sleep: wall_s $wall from 0.3 s, window $((t1 - t0)) us" \
	awk -v w="$wall" -v d=$((t1 - t0)) 'BEGIN { exit !(w >= 0.3 && w < 5 && d >= 300000) }'
