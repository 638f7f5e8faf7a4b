# Sweeps: the combinations, rows as runs end, a failing child, SIGINT with
# no row lost and no half row, --resume; then the report and the plots.
. "$(dirname "$0")/tap.bash"
f=$tmp/sweep.csv

threadrun -q --sweep 1-4x2 -p compact,c1 --repeat 2 -o "$f" -- t2accel -q -a md5 -s 64 -d 0.05
st=$?
check "sweep 1-4x2 x compact,c1 x 2 repeats exits 0 (got $st)" [ $st -eq 0 ]
check "12 measurement rows and 12 run rows" bash -c \
	"[ \$(results_get '$f' algorithm | grep -c '^md5$') -eq 12 ] && [ \$(results_get '$f' algorithm | grep -c '^(run)$') -eq 12 ]"
check "every combination once" bash -c \
	"[ \"\$(results_get '$f' algorithm threads policy repeat | grep '^md5' | sort -u | wc -l)\" -eq 12 ]"
check "the runs' output went to the log" grep -q 'md5' "$f.log"

# --resume after a complete sweep runs nothing.
threadrun --sweep 1-4x2 -p compact,c1 --repeat 2 --resume -o "$f" -- t2accel -q -a md5 -s 64 -d 0.05 2>"$tmp/err"
check "--resume of a complete sweep skips all 12" grep -q 'sweep done: 0 runs, 0 failed, 12 skipped' "$tmp/err"

# A failing child: recorded, reported, the sweep goes on, exit 1
# (--order fixed: the checks name the runs by their place).
threadrun -q --order fixed --sweep 1,2 -o "$tmp/fail.csv" -- sh -c 'test "$THREADRUN_THREADS" != 1' 2>"$tmp/err"
st=$?
check "a failing run makes the sweep exit 1 (got $st)" [ $st -eq 1 ]
check "the failure is reported with where to look" grep -q 'run 1 of 2 (1 thread, compact, repeat 0) failed' "$tmp/err"
check "both runs are recorded, with their status" bash -c \
	"[ \"\$(results_get '$tmp/fail.csv' threads status | tr '\n' ' ')\" = \$'1\t1 2\t0 ' ]"

# SIGINT in the middle: finished rows kept, no half row, resumable.
g=$tmp/int.csv
# Its own session: what it leaves behind is looked for there only.
setsid threadrun -q --sweep 1-8 -o "$g" -- t2accel -q -a sha1 -s 64 -d 0.4 2>"$tmp/err" &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
st=$?
check "SIGINT: the sweep exits 130 (got $st)" [ $st -eq 130 ]
check "SIGINT: says how to resume" grep -q 'resume with the same command and --resume' "$tmp/err"
check "SIGINT: the file is well formed (no half row)" results_get "$g" threads
done_runs=$(results_get "$g" algorithm | grep -c '^(run)$')
check "SIGINT: finished runs kept ($done_runs)" [ "$done_runs" -ge 1 ]
check "SIGINT: no child left behind" eval "! left_in_session $pid"
# The same config: output-only options (-q) may differ, the rest may not.
threadrun -q --sweep 1-8 --resume -o "$g" -- t2accel -a sha1 -s 64 -d 0.4 >/dev/null 2>"$tmp/err"
st=$?
check "resume finishes the sweep (exit $st)" [ $st -eq 0 ]
check "after resume every thread count has exactly one run row" bash -c \
	"[ \"\$(results_get '$g' algorithm threads | grep '^(run)' | cut -f2 | sort -n | uniq -c | awk '\$1 != 1' | wc -l)\" -eq 0 ] && [ \$(results_get '$g' algorithm | grep -c '^(run)$') -eq 8 ]"

# A signal while no job runs (threadrun recording run 1, its job gone): the
# same clean stop.  The results file's lock is held, so threadrun waits in
# the append with no child until the signal comes: no timing involved.
h=$tmp/between.csv
: >"$h"
flock "$h" sleep 60 &
lk=$!
until ! flock -n "$h" true; do sleep 0.05; done
threadrun -q --sweep 1-3 -o "$h" -- sh -c ': >"$0"' "$tmp/ran1" 2>"$tmp/err" &
pid=$!
until [ -e "$tmp/ran1" ] && [ -z "$(children $pid)" ]; do sleep 0.05; done
for sig in INT TERM; do
	[ $sig = INT ] || {
		: >"$h"; rm -f "$tmp/ran1"
		threadrun -q --sweep 1-3 -o "$h" -- sh -c ': >"$0"' "$tmp/ran1" 2>"$tmp/err" &
		pid=$!
		until [ -e "$tmp/ran1" ] && [ -z "$(children $pid)" ]; do sleep 0.05; done
	}
	kill -$sig $pid
	wait $pid
	st=$?
	want=$((128 + $(kill -l $sig)))
	check "SIG$sig between runs: the sweep exits $want (got $st)" [ $st -eq $want ]
	check "SIG$sig between runs: says what was not recorded and how to resume" bash -c \
		"grep -q 'run 1 of 3 not recorded: results: interrupted while waiting for the lock' '$tmp/err' &&
		 grep -q 'resume with the same command and --resume' '$tmp/err'"
	check "SIG$sig between runs: no second run started" bash -c "! grep -q '\[2/3\]' '$h.log'"
done
kill $lk 2>/dev/null; wait $lk 2>/dev/null

# Under nohup (SIGHUP ignored when threadrun starts) a hangup neither stops
# the sweep nor reaches its runs: it goes on to the end.
env --ignore-signal=HUP threadrun -q --sweep 1-2 -o "$tmp/nohup.csv" -- t2accel -q -a md5 -s 64 -d 0.3 \
	2>"$tmp/err" &
pid=$!
until [ -s "$tmp/nohup.csv" ] || ! kill -0 $pid 2>/dev/null; do sleep 0.05; done
kill -HUP $pid 2>/dev/null
wait $pid
st=$?
check "under nohup a SIGHUP leaves the sweep running to its end (exit $st)" bash -c \
	"[ $st -eq 0 ] && [ \$(results_get '$tmp/nohup.csv' algorithm | grep -c '^(run)\$') -eq 2 ]"

# The report and the figures from the sweep.
threadreport "$f" >"$tmp/report" 2>"$tmp/err"
st=$?
check "threadreport reads the sweep (exit $st)" [ $st -eq 0 ]
check "report: one series, both policies, speedups" bash -c \
	"grep -q '^== t2accel md5 / evp, 64 bytes, bytes/s' '$tmp/report' && grep -qE '^c1 +2 ' '$tmp/report'"
check "report: oversubscription warned" grep -q 'more threads than the' "$tmp/report"
threadreport -f json "$f" >"$tmp/report.json"
check "report: json has the cells" grep -q '"policy": "c1", "threads": 4' "$tmp/report.json"
mkdir -p "$tmp/fig"
plot/threadplot "$f" -o "$tmp/fig" >"$tmp/plot.out" 2>&1
st=$?
check "threadplot exits 0 (got $st)" [ $st -eq 0 ]
for fig in speedup efficiency; do
	for ext in png svg; do
		check "figure $fig.$ext exists and is not empty" [ -s "$tmp/fig/$fig.$ext" ]
	done
done
check "the PNG is a PNG" bash -c "head -c 8 '$tmp/fig/speedup.png' | od -An -c | grep -q 'P   N   G'"
