# Faults survived: a failing crypto call, signals at random moments of a
# sweep, threads and memory refused, the results file filling up or turning
# read-only mid-sweep, and 256 workers on this machine.  Never a crash,
# never a lost or half row.
. "$(dirname "$0")/tap.bash"
export TMPDIR=$tmp

# A worker's crypto call fails: the run fails cleanly, the error named,
# the other workers stop at once (not after the 5 s asked for).
start=$(date +%s)
T2ACCEL_FAIL_WORKER=1 threadrun -q -o "$tmp/fail.csv" 2 t2accel -q -a sha256 -s 64 -d 5 >/dev/null 2>"$tmp/err"
st=$? took=$(( $(date +%s) - start ))
check "a failing crypto call fails the run: exit 1 (got $st)" [ $st -eq 1 ]
check "the error names algorithm, size, worker, CPU and the call" \
	grep -q 'failed: sha256 64 bytes: worker 1 on CPU [0-9]: evp call failed (injected' "$tmp/err"
check "the other workers stopped at once (${took}s, not 5)" [ "$took" -lt 4 ]
check "its row is whole and marked unverified" bash -c \
	"results_get '$tmp/fail.csv' algorithm verified | grep -qx \$'sha256\tno'"

# Signals at random moments of a sweep, many times: no finished row lost,
# no half row, no orphan, resumable to exactly one run per combination.
rounds=${FAULT_ROUNDS:-6}
f=$tmp/sig.csv
for ((i = 1; i <= rounds; i++)); do
	sig=$(( (RANDOM % 3) ))
	sig=$(echo INT TERM HUP | cut -d' ' -f$((sig + 1)))
	delay=$(awk -v r=$RANDOM 'BEGIN {printf "%.2f", 0.1 + (r % 150) / 100}')
	before=$(results_get "$f" algorithm 2>/dev/null | grep -c '^(run)$')
	# Its own session: what it leaves behind is looked for there only.
	setsid threadrun -q --sweep 1-4 -p compact,none --resume -o "$f" -- t2accel -q -a md5,rsa -k 1024 -s 64 -d 0.1 \
		>/dev/null 2>&1 &
	pid=$!
	sleep "$delay"
	kill -s "$sig" $pid 2>/dev/null
	wait $pid
	after=$(results_get "$f" algorithm 2>/dev/null | grep -c '^(run)$')
	# A signal before the first run ended leaves no file at all: fine.
	if [ -e "$f" ] && ! results_get "$f" threads >/dev/null 2>"$tmp/err"; then
		notok "SIG$sig after ${delay}s: the results file is damaged" "$(cat "$tmp/err")"
	elif [ "$after" -lt "$before" ]; then
		notok "SIG$sig after ${delay}s: finished runs lost ($before -> $after)"
	elif left_in_session $pid; then
		notok "SIG$sig after ${delay}s: a child was left running"
	else
		ok "SIG$sig after ${delay}s: no row lost or damaged, no orphan ($after runs done)"
	fi
done
threadrun -q --sweep 1-4 -p compact,none --resume -o "$f" -- t2accel -q -a md5,rsa -k 1024 -s 64 -d 0.1 >/dev/null 2>&1
check "resumed after $rounds interruptions, the sweep completes" [ $? -eq 0 ]
check "exactly one run per combination, 8 in all" bash -c \
	"[ \"\$(results_get '$f' algorithm threads policy | grep '^(run)' | sort | uniq -d | wc -l)\" -eq 0 ] && [ \$(results_get '$f' algorithm | grep -c '^(run)$') -eq 8 ]"
# Whatever the runs put beside the results file or in TMPDIR (here $tmp):
# nothing but the results file and its log may stay.
check "no temporary file left by the interrupted runs" bash -c \
	"[ -z \"\$(ls -A '$tmp' | grep -vxE '(fail|sig)\.csv(\.log|\.lock)?|err')\" ]"

# Resource exhaustion (not under AddressSanitizer, which needs the address
# space and keeps its own threads).
if [ -n "${TEST_SAN:-}" ]; then
	skip "resource limits under a sanitizer"
else
	# Memory refused.
	(ulimit -v 400000; OMP_NUM_THREADS=1 linpack -q 8000) >/dev/null 2>"$tmp/err"
	st=$?
	check "linpack with memory refused: exit 1 (got $st), said" bash -c \
		"[ $st -eq 1 ] && grep -q 'N: cannot allocate' '$tmp/err'"
	(ulimit -v 600000; OMP_NUM_THREADS=4 t2accel -q -a aes -s 67108864 -d 0.1) >/dev/null 2>"$tmp/err"
	st=$?
	check "t2accel with memory refused: exit 1 (got $st), said" bash -c \
		"[ $st -eq 1 ] && grep -q 'cannot allocate 67108864-byte buffers' '$tmp/err'"
	# More threads than the system allows: as an unprivileged user (root's
	# own limit is not enforced).
	mkdir -p "$tmp/nobody" && chmod 777 "$tmp/nobody"
	if command -v setpriv >/dev/null &&
	   setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$TEST_BIN/t2accel" 2>/dev/null; then
		setpriv --reuid=65534 --regid=65534 --clear-groups bash -c \
			"ulimit -u 30; '$TEST_BIN/threadrun' -q -o '$tmp/nobody/r.csv' 256 '$TEST_BIN/t2accel' -q -a md5 -s 64 -d 0.1" \
			>/dev/null 2>"$tmp/err"
		st=$?
		check "more threads than allowed: exit 1 (got $st), said" bash -c \
			"[ $st -eq 1 ] && grep -q 'cannot start worker [0-9]* of 256: Resource temporarily unavailable' '$tmp/err'"
	else
		skip "setpriv cannot run the programs as an unprivileged user here"
	fi
fi

# The results file fills up mid-sweep (a 12 KiB tmpfs): the error is said,
# the earlier rows stay whole.
mkdir -p "$tmp/full"
if mount -t tmpfs -o size=12k tmpfs "$tmp/full" 2>/dev/null; then
	threadrun -q --sweep 1,2 --repeat 10 -o "$tmp/full/r.csv" -- t2accel -q -a md5 -s 16,64,256 -d 0.02 \
		>/dev/null 2>"$tmp/err"
	st=$?
	rows=$(results_get "$tmp/full/r.csv" algorithm 2>/dev/null | wc -l)
	check "full disk: the sweep fails (exit $st) and says why" bash -c \
		"[ $st -ne 0 ] && grep -q 'No space left on device' '$tmp/err'"
	check "full disk: the $rows rows written are whole" results_get "$tmp/full/r.csv" threads
	check "full disk: the file ends at a row's end" bash -c "[ \"\$(tail -c1 '$tmp/full/r.csv' | od -An -c | tr -d ' ')\" = '\\n' ]"
	umount "$tmp/full"
else
	skip "cannot mount a small tmpfs here"
fi

# The results file made read-only (immutable) mid-sweep.
g=$tmp/ro.csv
threadrun -q -o "$g" 1 t2accel -q -a md5 -s 64 -d 0.02 >/dev/null 2>&1
if chattr +i "$g" 2>/dev/null; then
	chattr -i "$g"
	threadrun -q --sweep 1-4 --repeat 3 -o "$g" -- t2accel -q -a md5 -s 64 -d 0.2 >/dev/null 2>"$tmp/err" &
	pid=$!
	sleep 1.2
	chattr +i "$g"
	wait $pid
	st=$?
	chattr -i "$g"
	check "read-only mid-sweep: the sweep fails (exit $st) and says why" bash -c \
		"[ $st -ne 0 ] && grep -q 'Operation not permitted' '$tmp/err'"
	check "read-only mid-sweep: the earlier rows are whole" results_get "$g" threads
else
	skip "chattr +i is not supported here"
fi

# Load held: 256 workers on this machine, the study's algorithms (t2accel
# --list's STUDY column: the modern set, AEAD, a digest, signatures and key
# agreement; every row is verified under load in sh/verify) and linpack.
algos=$(t2accel --list | awk -F'\t' '$6 == "yes" {print $1}' | paste -sd, -)
threadrun -q -o "$tmp/load.csv" 256 t2accel -q -a "$algos" -s 64 -k 1024 -d 0.1 >/dev/null 2>"$tmp/err"
st=$?
check "256 workers, the study's t2accel algorithms ($algos): exit 0 (got $st)" [ $st -eq 0 ]
check "256 workers: the wrap-around warning" grep -q 'warning: 256 workers on' "$tmp/err"
# One row per sized algorithm, one per label of a signature (the table's).
want=$(t2accel --list | awk -F'\t' '$6 == "yes" {n += $3 == "sign" ? split($2, l, " ") : 1} END {print n + 0}')
check "256 workers: $want rows (t2accel --list), all verified" bash -c \
	"[ \"\$(results_get '$tmp/load.csv' threads verified | sort | uniq -c | awk '{print \$1, \$2, \$3}')\" = '$want 256 yes' ]"
OMP_WAIT_POLICY=passive threadrun -q -o "$tmp/load.csv" 256 linpack -q -b 64 400 >/dev/null 2>"$tmp/err"
st=$?
check "256 OpenMP threads of linpack: exit 0, verified (got $st)" bash -c \
	"[ $st -eq 0 ] && results_get '$tmp/load.csv' workload threads verified | grep -qx \$'linpack\t256\tyes'"
