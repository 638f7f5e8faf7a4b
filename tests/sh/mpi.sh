# threadrun-mpi and the cluster start gate (src/lib/gate.h): a gate that
# is not there or whose wrapper is gone never hangs a run; two ranks on
# this host start every measurement together, diverging ranks end, a rank
# killed ends the job keeping its rows, --resume redoes what one rank
# lacks on every rank.  The MPI cases skip where mpirun or threadrun-mpi
# is absent (make check installs Open MPI: src/install-deps).
. "$(dirname "$0")/tap.bash"

# Measurement rows (not threadrun's run rows) of FILE: COLUMNS..., tab-separated.
rows() { local f=$1; shift; results_get "$f" algorithm "$@" | awk -F'\t' '$1 != "(run)"'; }
export -f rows

# The gate's programs' side, no MPI needed ---------------------------------
THREADRUN_SYNC_FD=7,x t2accel -q -a md5 -s 64 -d 0.05 -o "$tmp/bad.csv" >/dev/null 2>"$tmp/err"
st=$?
check "a malformed THREADRUN_SYNC_FD: runs (exit $st), one warning naming it" bash -c \
	"[ $st -eq 0 ] && [ \$(grep -c 'warning: ignoring THREADRUN_SYNC_FD=7,x' '$tmp/err') -eq 1 ]"
check "... and its row says nothing of a cluster start" \
	[ "$(rows "$tmp/bad.csv" start_sync | cut -f2)" = "" ]
THREADRUN_SYNC_FD=98,99 t2accel -q -a md5 -s 64 -d 0.05 -o "$tmp/closed.csv" >/dev/null 2>"$tmp/err"
st=$?
check "descriptors that are not open: no gate, a warning (exit $st)" bash -c \
	"[ $st -eq 0 ] && grep -q 'THREADRUN_SYNC_FD=98,99 (not R,W: two distinct descriptors above 2, each an open pipe or socket)' '$tmp/err'"
# Descriptors that are open but no gate: a regular file is never written
# over, stdin never read from, one descriptor is not two.
printf 'the user file\n' >"$tmp/mine"
THREADRUN_SYNC_FD=5,5 timeout 20 t2accel -q -a md5 -s 64 -d 0.05 -o "$tmp/file.csv" 5<>"$tmp/mine" \
	>/dev/null 2>"$tmp/err"
st=$?
check "THREADRUN_SYNC_FD=5,5 on a regular file: runs (exit $st), one warning, the file untouched" bash -c \
	"[ $st -eq 0 ] && [ \$(grep -c 'warning: ignoring THREADRUN_SYNC_FD=5,5 (not R,W' '$tmp/err') -eq 1 ] &&
	 [ \"\$(cat '$tmp/mine')\" = 'the user file' ] && [ -z \"\$(rows '$tmp/file.csv' start_sync | cut -f2)\" ]"
mkfifo "$tmp/idle"
exec 9<>"$tmp/idle"     # a stdin that never ends
THREADRUN_SYNC_FD=0,1 timeout 20 t2accel -q -a md5 -s 64 -d 0.05 -o "$tmp/std.csv" <"$tmp/idle" \
	>"$tmp/out" 2>"$tmp/err"
st=$?
check "THREADRUN_SYNC_FD=0,1 (stdin, stdout): runs (exit $st, not 124), one warning, no request on stdout" bash -c \
	"[ $st -eq 0 ] && [ \$(grep -c 'warning: ignoring THREADRUN_SYNC_FD=0,1 (not R,W' '$tmp/err') -eq 1 ] && ! grep -q '^ready ' '$tmp/out'"
THREADRUN_SYNC_FD=7,7 timeout 20 t2accel -q -a md5 -s 64 -d 0.05 -o "$tmp/same.csv" 7<>"$tmp/idle" \
	>/dev/null 2>"$tmp/err"
st=$?
exec 9>&-
check "THREADRUN_SYNC_FD=7,7 (one pipe, read and write): runs (exit $st), one warning" bash -c \
	"[ $st -eq 0 ] && [ \$(grep -c 'warning: ignoring THREADRUN_SYNC_FD=7,7 (not R,W' '$tmp/err') -eq 1 ]"
# A wrapper that is gone: its reply end at EOF, its request end a pipe
# nobody reads.
THREADRUN_SYNC_FD=7,8 timeout 20 t2accel -q -a md5,sha1 -s 64 -d 0.05 -o "$tmp/gone.csv" \
	7< <(:) 8> >(:) >/dev/null 2>"$tmp/err"
st=$?
check "a wrapper gone: the run neither hangs nor fails (exit $st)" [ $st -eq 0 ]
check "... both measurements say start_sync no, and the note why" \
	[ "$(rows "$tmp/gone.csv" start_sync note | cut -f2,3 | sort -u)" = $'no\tstart not synchronised across ranks' ]

# A wrapper played by the shell: a stale reply first (another process's
# token), then the release; the rows it is told of.
mkfifo "$tmp/req" "$tmp/rep"
fake_wrapper() { # answer: "yes", or "" to never answer
	local verb tok rest
	exec 3<"$tmp/req" 4>"$tmp/rep"
	while read -r verb tok rest <&3; do
		echo "$verb $tok $rest" >>"$tmp/lines"
		if [ "$verb" = ready ] && [ -n "$1" ]; then
			echo "go 1.999 no" >&4
			echo "go $tok $1" >&4
		fi
	done
}
: >"$tmp/lines"
fake_wrapper yes &
THREADRUN_SWEEP_INDEX=7 THREADRUN_SYNC_FD=6,5 timeout 20 t2accel -q -a md5,sha1 -s 64 -d 0.05 \
	-o "$tmp/fake.csv" 5>"$tmp/req" 6<"$tmp/rep" >/dev/null 2>"$tmp/err"
st=$?
wait
check "a release through the gate: exit 0 (got $st)" [ $st -eq 0 ]
check "... both rows start_sync yes, no note" \
	[ "$(rows "$tmp/fake.csv" start_sync note | tr '\t' ' ')" = $'md5 yes \nsha1 yes ' ]
check "the requests: ready TOKEN 7.1, 7.2 (the sweep's combination, the measurement) and the key" \
	bash -c "grep -Eq '^ready [0-9]+\.[0-9]+ 7\.1 t2accel\|.*\|1\|[^|]*\|0\|md5 64 bytes\$' '$tmp/lines' &&
		 grep -Eq '^ready [0-9]+\.[0-9]+ 7\.2 t2accel\|.*\|sha1 64 bytes\$' '$tmp/lines'"
check "each row told: work, unit, wall, its window and status 0" \
	[ "$(grep -cE '^row [0-9]+\.[0-9]+ [0-9.e+]+ bytes/s [0-9.e-]+ [0-9]{16} [0-9]{16} 0$' "$tmp/lines")" -eq 2 ]
check "the rows have their window: t_start <= t_end, microseconds" bash -c \
	"rows '$tmp/fake.csv' t_start t_end | awk -F'\t' '\$2 > 1e15 && \$2 < 1e17 && \$3 >= \$2' | wc -l | grep -qx 2"

# A signal while the wrapper never answers ends the wait, not the process's hold.
: >"$tmp/lines"
fake_wrapper "" &
fw=$!
THREADRUN_SYNC_FD=6,5 t2accel -q -a md5 -s 64 -d 0.05 -o "$tmp/int.csv" 5>"$tmp/req" 6<"$tmp/rep" \
	>/dev/null 2>&1 &
t2=$!
for _ in $(seq 50); do grep -q '^ready' "$tmp/lines" && break; sleep 0.1; done
kill -TERM $t2
st=0
for _ in $(seq 50); do kill -0 $t2 2>/dev/null || break; sleep 0.1; done
if kill -0 $t2 2>/dev/null; then kill -KILL $t2; st=hang; fi
wait $t2
ws=$?
[ "$st" = hang ] || st=$ws
wait $fw
check "SIGTERM while waiting for the release: t2accel ends, 143 (got $st)" [ "$st" = 143 ]
check "... and writes no row" [ ! -s "$tmp/int.csv" ]

# threadrun-mpi ------------------------------------------------------------
if ! command -v threadrun-mpi >/dev/null; then
	for c in usage help plan one-file cluster-report late sync cluster-lines diverge kill term resume; do
		skip "threadrun-mpi $c: no threadrun-mpi built (mpicc absent: make mpi)"
	done
	exit 0
fi
threadrun-mpi >/dev/null 2>"$tmp/err"
st=$?
check "threadrun-mpi without arguments: exit 2 and one line (got $st)" bash -c \
	"[ $st -eq 2 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && grep -q 'usage: threadrun-mpi' '$tmp/err'"
check "threadrun-mpi -h: help on stdout, exit 0" bash -c "threadrun-mpi -h | grep -q '^usage: threadrun-mpi'"

if ! command -v mpirun >/dev/null; then
	for c in plan one-file cluster-report late sync cluster-lines diverge kill term resume; do
		skip "threadrun-mpi $c: mpirun absent (openmpi-bin)"
	done
	exit 0
fi
# Two ranks on this host, more ranks than CPUs allowed, no binding (each
# rank plans on the whole machine).  Containers lack the kernel's
# cross-memory attach: shared memory copies through its buffer.
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
# Under AddressSanitizer: stacks through Open MPI's own components
# unwound whole, so that tests/lsan.supp names their library.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
mpi() { timeout "$1" mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 "${@:2}" </dev/null; }

# Each rank plans inside the PUs the launcher gave it.
timeout 30 mpirun --allow-run-as-root --oversubscribe --bind-to core -np 2 threadrun -n 1 true \
	</dev/null >"$tmp/plan" 2>&1
check "-n under mpirun --bind-to core: each rank says its rank and 1 usable PU, the two PUs differ" bash -c \
	"[ \$(grep -cE '^# rank [01] of 2 \\(openmpi, job [^,]+, local rank [01]\\); the launcher gave PUs [0-9]+: 1 usable\$' '$tmp/plan') -eq 2 ] &&
	 [ \$(sed -n 's/^# rank .*gave PUs \\([0-9]*\\):.*/\\1/p' '$tmp/plan' | sort -u | wc -l) -eq 2 ]"

# Two ranks of plain threadrun, one results file: rows told apart by rank.
# Without threadrun-mpi nothing starts them together: 1 s measurements
# overlap by 90% even when a busy machine starts one rank 0.1 s late (4 s
# under a sanitizer, whose start-ups of two ranks at once differed by 0.3 s).
f=$tmp/one.csv
d=1
[ -n "${TEST_SAN:-}" ] && d=4
mpi 60 threadrun -q -o "$f" 1 t2accel -q -a sha256 -s 64 -d $d >/dev/null 2>"$tmp/err"
st=$?
check "2 ranks, one file: exit 0 (got $st), one header, rows of ranks 0 and 1 of one job" bash -c \
	"[ $st -eq 0 ] && [ \$(grep -c '^time,' '$f') -eq 1 ] &&
	 [ \"\$(rows '$f' rank ranks launcher | sort | tr '\t\n' ' ;')\" = 'sha256 0 2 openmpi;sha256 1 2 openmpi;' ] &&
	 [ \$(rows '$f' job | cut -f2 | sort -u | wc -l) -eq 1 ]"
threadreport "$f" >"$tmp/report" 2>&1
check "threadreport: one 2-rank cluster measurement, with its rate ($(grep -E '^compact +1 +2 ' "$tmp/report" | tr -s ' ' | head -1))" \
	[ "$(grep -cE '^compact +1 +2 +[0-9][0-9.]* ' "$tmp/report")" -eq 1 ]

# A rank that starts 0.6 s late without threadrun-mpi: no cluster rate.
printf '#!/bin/sh\n[ "$OMPI_COMM_WORLD_RANK" = 1 ] && sleep 0.6\nexec threadrun -q -o "$1" 1 t2accel -q -a sha256 -s 64 -d 0.3\n' >"$tmp/late.sh"
chmod +x "$tmp/late.sh"
mpi 60 "$tmp/late.sh" "$tmp/late.csv" >/dev/null 2>"$tmp/err"
st=$?
threadreport "$tmp/late.csv" >"$tmp/report" 2>&1
check "rank 1 0.6 s late, no threadrun-mpi (exit $st): overlap under 10%, rate n/a, a warning" bash -c \
	"[ $st -eq 0 ] && grep -qE '^compact +1 +2 +n/a .* [0-9]% +n/a +n/a +ranks overlapped [0-9]%: run under threadrun-mpi' '$tmp/report' &&
	 grep -q 'warning: 1 cluster measurement whose ranks did not run together' '$tmp/report'"

# Every measurement of both ranks starts together.
f=$tmp/sync.csv
start=$(date +%s)
mpi 60 threadrun-mpi -q --sweep 1,2 -o "$f" -- t2accel -q -a sha256,md5 -s 64 -d 0.3 \
	>"$tmp/out" 2>"$tmp/err"
st=$?
check "2 ranks, sweep 1,2 x sha256,md5: exit 0 (got $st)" [ $st -eq 0 ]
check "8 measurement rows, every one start_sync yes" \
	[ "$(rows "$f" start_sync | cut -f2 | sort | uniq -c | tr -s ' ')" = " 8 yes" ]
# Per measurement (algorithm, threads): both ranks' windows.
rows "$f" threads t_start t_end | awk -F'\t' '
	{ k = $1 " " $2; n[k]++
	  if (!(k in s0) || $3 < s0[k]) s0[k] = $3; if (!(k in s1) || $3 > s1[k]) s1[k] = $3
	  if (!(k in e0) || $4 < e0[k]) e0[k] = $4; if (!(k in e1) || $4 > e1[k]) e1[k] = $4 }
	END { for (k in n) printf "%s %d %.3f %.1f\n", k, n[k], (e0[k] - s1[k]) / (e1[k] - s0[k]), (s1[k] - s0[k]) / 1000 }' \
	>"$tmp/windows"
check "4 measurements of 2 ranks each" [ "$(awk '$3 == 2' "$tmp/windows" | wc -l)" -eq 4 ]
check "every one overlapped >= 0.8 and started within 50 ms: $(tr '\n' ';' <"$tmp/windows")" \
	[ "$(awk '$4 >= 0.8 && $5 <= 50' "$tmp/windows" | wc -l)" -eq 4 ]
check "rank 0 printed one cluster line per measurement" \
	[ "$(grep -c '^threadrun-mpi: .* 2 ranks, cluster rate [0-9.e+]* bytes/s, overlap [0-9.]*%, start spread' "$tmp/out")" -eq 4 ]

# Ranks with different algorithm lists: nothing hangs, nothing synchronised.
cat >"$tmp/rank.sh" <<'EOF'
#!/bin/sh
# Rank-dependent arguments: ALGS_0 / ALGS_1, the results file per rank.
r=${OMPI_COMM_WORLD_RANK:?}
[ -n "${PIDS:-}" ] && echo $$ >"$PIDS.$r"
eval "a=\$ALGS_$r"
exec threadrun-mpi -q --sweep "$SWEEP" --order fixed $RESUME -o "$OUT.$r.csv" -- t2accel -q -a "$a" -s 64 -d "$SECS"
EOF
chmod +x "$tmp/rank.sh"
start=$(date +%s)
ALGS_0=sha256,md5 ALGS_1=md5 SWEEP=1,2 RESUME= OUT=$tmp/div SECS=0.2 mpi 30 "$tmp/rank.sh" >/dev/null 2>"$tmp/err"
st=$? took=$(($(date +%s) - start))
check "ranks with different -a lists end in under 30 s (exit $st, ${took}s)" [ $st -eq 0 ]
check "... their rows: 4 and 2, none synchronised" bash -c \
	"[ \"\$(rows '$tmp/div.0.csv' start_sync | cut -f2 | sort | uniq -c | tr -s ' ')\" = ' 4 no' ] &&
	 [ \"\$(rows '$tmp/div.1.csv' start_sync | cut -f2 | sort | uniq -c | tr -s ' ')\" = ' 2 no' ]"

# SIGTERM to one rank's t2accel: the job ends, finished rows stay.
ALGS_0=sha1 ALGS_1=sha1 SWEEP=1-4 RESUME= OUT=$tmp/kill SECS=1.5 PIDS=$tmp/pid \
	mpi 60 "$tmp/rank.sh" >/dev/null 2>"$tmp/err" &
job=$!
victim=""
for _ in $(seq 100); do
	# The first run over (threadrun's run row is in): the t2accel now is the second's.
	if [ -s "$tmp/pid.1" ] &&
	   [ "$(results_get "$tmp/kill.1.csv" algorithm 2>/dev/null | grep -c '^(run)$')" -ge 1 ]; then
		tr1=$(children "$(cat "$tmp/pid.1")" threadrun | head -1)
		# Its main thread names the process t2accel-main.
		victim=$(children "${tr1:-0}" t2accel | head -1)
		[ -n "$victim" ] && break
	fi
	sleep 0.1
done
# Into its measurement (its set-up done), not its end: a signal after
# the last measurement is no interruption.
sleep 0.6
start=$(date +%s)
[ -n "$victim" ] && { kill -TERM "$victim" || victim=""; }
wait $job
st=$? took=$(($(date +%s) - start))
check "SIGTERM to rank 1's t2accel ($victim): the job ends in under 30 s, non-zero (exit $st, ${took}s)" \
	bash -c "[ -n '$victim' ] && [ $st -ne 0 ] && [ $st -ne 124 ] && [ $took -lt 30 ]"
check "... every finished row of both ranks kept, files well formed" bash -c \
	"[ \$(rows '$tmp/kill.0.csv' threads | wc -l) -ge 1 ] && [ \$(rows '$tmp/kill.1.csv' threads | wc -l) -ge 1 ]"

# SIGTERM to one rank's wrapper: passed to its threadrun, the job ends.
rm -f "$tmp/pid."*
ALGS_0=sha1 ALGS_1=sha1 SWEEP=1-4 RESUME= OUT=$tmp/term SECS=1 PIDS=$tmp/pid \
	mpi 60 "$tmp/rank.sh" >/dev/null 2>"$tmp/err" &
job=$!
for _ in $(seq 100); do
	[ -s "$tmp/pid.1" ] && [ "$(rows "$tmp/term.1.csv" threads 2>/dev/null | wc -l)" -ge 1 ] && break
	sleep 0.1
done
start=$(date +%s)
wrapper=$(cat "$tmp/pid.1" 2>/dev/null)
[ -n "$wrapper" ] && kill -TERM "$wrapper"
wait $job
st=$? took=$(($(date +%s) - start))
check "SIGTERM to rank 1's threadrun-mpi: the job ends in under 30 s with 143 (exit $st, ${took}s)" \
	bash -c "[ -n '$wrapper' ] && [ $st -eq 143 ] && [ $took -lt 30 ]"
check "... both ranks' threadrun said so and kept their rows" bash -c \
	"[ \$(grep -c 'sweep interrupted (Terminated)' '$tmp/err') -eq 2 ] &&
	 [ \$(rows '$tmp/term.0.csv' threads | wc -l) -ge 1 ] && [ \$(rows '$tmp/term.1.csv' threads | wc -l) -ge 1 ]"

# --resume: a combination one rank lacks is made again on both, together.
export ALGS_0=md5 ALGS_1=md5 SWEEP=1,2 OUT=$tmp/res SECS=0.2
RESUME= mpi 60 "$tmp/rank.sh" >/dev/null 2>"$tmp/err"
st1=$?
# Rank 1's last row: threadrun's run row of 2 threads, the mark of a finished run.
sed -i '$d' "$tmp/res.1.csv"
RESUME=--resume mpi 60 "$tmp/rank.sh" >/dev/null 2>"$tmp/err"
st=$?
check "--resume with one rank's last row gone: exit 0 (first $st1, then $st)" [ $st1 -eq 0 -a $st -eq 0 ]
check "... 2 threads made again on both ranks, started together; 1 thread on neither" bash -c \
	"[ \"\$(rows '$tmp/res.0.csv' threads start_sync | tr '\t' ' ' | sort | uniq -c | tr -s ' ' | tr '\n' ';')\" = ' 1 md5 1 yes; 2 md5 2 yes;' ] &&
	 [ \"\$(rows '$tmp/res.1.csv' threads start_sync | tr '\t' ' ' | sort | uniq -c | tr -s ' ' | tr '\n' ';')\" = ' 1 md5 1 yes; 2 md5 2 yes;' ]"
