# One file, one measurement at a time: a sweep holds the results file's
# measuring lock (FILE.lock) from start to end; a second sweep, a --resume
# or a single run on the file refuses naming the holder's pid (exit 1) or,
# with --wait, waits and then measures only what is left.  Each run of the
# program records its start and end and the threadrun (its parent) that
# ran it, so overlaps and doubles show.  Results files saved by other
# tools (a UTF-8 BOM, CR LF line ends) are read, appended to and resumed.
. "$(dirname "$0")/tap.bash"

# The program: $NAP s (0.3), between a start and an end mark in $MARKS.
prog='echo "s $(date +%s.%N) $PPID $THREADRUN_THREADS/$THREADRUN_POLICY" >>"$MARKS"; sleep "${NAP:-0.3}"; echo "e $(date +%s.%N) $PPID $THREADRUN_THREADS/$THREADRUN_POLICY" >>"$MARKS"'
# sweep ARGS...: 4 runs (background ones: exec, so $! is threadrun's pid).
sweep() { exec threadrun -q --sweep 1,2 -p compact,scatter "$@" -- sh -c "$prog"; }
# no_overlap MARKS: every run ended before the next one started.
no_overlap() {
	LC_ALL=C sort -k2,2n "$1" | awk '$1 == "s" { if (open) bad = 1; open = 1 } $1 == "e" { open = 0 }
		END { exit bad || NR == 0 }'
}
# each_once MARKS N: N runs, each combination once.
each_once() {
	[ "$(grep -c '^s ' "$1")" -eq "$2" ] &&
		[ "$(grep '^s ' "$1" | awk '{ print $4 }' | sort | uniq -d | wc -l)" -eq 0 ]
}
# clean MARKS N: both.
clean() { each_once "$1" "$2" && no_overlap "$1"; }
# started MARKS: wait (5 s at most) for the first run to start.
started() { local i; for i in $(seq 100); do [ -s "$1" ] && return 0; sleep 0.05; done; return 1; }

# A second sweep, a --resume and a single run while a sweep runs: refused.
# Its runs are longer, so that it outlasts them on a busy machine.
export MARKS=$tmp/a.marks NAP=0.8
f=$tmp/a.csv
(sweep -o "$f") &
first=$!
started "$MARKS"
(NAP=0.3 sweep -o "$f") 2>"$tmp/err2"
st2=$?
(NAP=0.3 sweep --resume -o "$f") 2>"$tmp/err3"
st3=$?
threadrun -q -o "$f" 1 sh -c "$prog" 2>"$tmp/err4"
st4=$?
threadrun -q --wait=0.2 -o "$f" 1 sh -c "$prog" 2>"$tmp/err5"
st5=$?
wait $first
st=$?
check "the first sweep measures all 4 (exit $st)" bash -c "[ $st -eq 0 ] && [ \$(grep -c '^s [^ ]* $first ' '$MARKS') -eq 4 ]"
check "nothing else ran beside it: 4 runs, each once, none overlapping" clean "$MARKS" 4
names=("" "" "a second sweep" "--resume" "a single run")
for k in 2 3 4; do
	eval "s=\$st$k"
	check "${names[k]} beside the sweep: exit 1 (got $s), one line naming process $first" bash -c \
		"[ $s -eq 1 ] && [ \$(wc -l <'$tmp/err$k') -eq 1 ] &&
		 grep -q \"'$f' is being measured by the sweep of process $first; give --wait\" '$tmp/err$k'"
done
check "--wait=0.2 beside the sweep: exit 1 (got $st5) once 0.2 s passed, saying so" bash -c \
	"[ $st5 -eq 1 ] && grep -q 'still being measured by the sweep of process $first after --wait=0.2 s' '$tmp/err5'"
check "the file has the sweep's 4 rows and no other" \
	[ "$(results_get "$f" algorithm | grep -c '^(run)$')" -eq 4 ]

# --resume --wait started while a sweep runs: waits, reads the file under
# the lock, finds everything done; a single run with --wait runs after it.
export MARKS=$tmp/b.marks NAP=0.3
f=$tmp/b.csv
(sweep -o "$f") &
first=$!
started "$MARKS"
threadrun --sweep 1,2 -p compact,scatter --wait --resume -o "$f" -- sh -c "$prog" 2>"$tmp/err"
st=$?
wait $first
check "--resume --wait beside a sweep: waits, says so, then skips all 4 (exit $st)" bash -c \
	"[ $st -eq 0 ] && grep -q 'waiting for the sweep of process $first' '$tmp/err' &&
	 grep -q 'sweep done: 0 runs, 0 failed, 4 skipped' '$tmp/err'"
(sweep -o "$f") &
first=$!
for i in $(seq 100); do [ "$(grep -c '^s ' "$MARKS")" -ge 5 ] && break; sleep 0.05; done
threadrun -q --wait -o "$f" 1 sh -c "$prog"
st=$?
wait $first
check "a single run with --wait beside a sweep runs once it ended (exit $st)" bash -c \
	"[ $st -eq 0 ] && [ \$(grep -c '^s ' '$MARKS') -eq 9 ] && [ \$(grep -c '^s [^ ]* $first ' '$MARKS') -eq 4 ]"
check "... and no run overlapped another" no_overlap "$MARKS"

# Two --resume sweeps started together: each combination measured once,
# by one or the other, never two at a time.
export MARKS=$tmp/c.marks
f=$tmp/c.csv
(sweep --repeat 2 --wait --resume -o "$f") 2>"$tmp/err1" &
p1=$!
(sweep --repeat 2 --wait --resume -o "$f") 2>"$tmp/err2" &
p2=$!
wait $p1
st1=$?
wait $p2
st2=$?
check "two --resume --wait sweeps together: both exit 0 (got $st1, $st2)" [ $st1 -eq 0 -a $st2 -eq 0 ]
check "... 8 runs in all, each combination and repeat once" bash -c \
	"[ \$(grep -c '^s ' '$MARKS') -eq 8 ] &&
	 [ \"\$(results_get '$f' algorithm threads policy repeat | grep '^(run)' | sort | uniq -d)\" = '' ] &&
	 [ \$(results_get '$f' algorithm | grep -c '^(run)$') -eq 8 ]"
check "... never two at a time" no_overlap "$MARKS"

# ... and without --wait: the one that comes second measures nothing and
# names the other; never two at a time (long runs: the second starts
# while the first runs, however busy the machine).
export MARKS=$tmp/e.marks NAP=0.8
f=$tmp/e.csv
(sweep --resume -o "$f") 2>"$tmp/err1" &
p1=$!
(sweep --resume -o "$f") 2>"$tmp/err2" &
p2=$!
wait $p1
st1=$?
wait $p2
st2=$?
check "two --resume sweeps together: one exits 0, the other 1 naming it (got $st1, $st2)" bash -c \
	"{ [ $st1 -eq 0 -a $st2 -eq 1 ] && grep -q 'by the sweep of process $p1;' '$tmp/err2'; } ||
	 { [ $st1 -eq 1 -a $st2 -eq 0 ] && grep -q 'by the sweep of process $p2;' '$tmp/err1'; }"
check "... 4 runs, each combination once, never two at a time" clean "$MARKS" 4

# A threadrun that the sweep's program starts on the same file (the file
# it inherits) is part of that run, not beside it: it runs.
threadrun -q --sweep 1,2 -o "$tmp/n.csv" -- threadrun -q 1 true 2>"$tmp/err"
st=$?
check "a sweep whose program runs threadrun on the same file: exit 0 (got $st), 4 rows" bash -c \
	"[ $st -eq 0 ] && [ ! -s '$tmp/err' ] && [ \$(results_get '$tmp/n.csv' algorithm | grep -c '^(run)$') -eq 4 ]"

# Results files saved by other tools: a UTF-8 BOM, CR LF line ends, both.
export MARKS=$tmp/d.marks NAP=0.01
threadrun -q --sweep 1 -o "$tmp/plain.csv" -- sh -c "$prog"
{ printf '\357\273\277'; cat "$tmp/plain.csv"; } >"$tmp/bom.csv"
sed 's/$/\r/' "$tmp/plain.csv" >"$tmp/crlf.csv"
{ printf '\357\273\277'; cat "$tmp/crlf.csv"; } >"$tmp/both.csv"
for k in bom crlf both; do
	g=$tmp/$k.csv
	check "$k: the first column (time) reads" bash -c \
		"[ \"\$(results_get '$g' time)\" = \"\$(results_get '$tmp/plain.csv' time)\" ] && [ -n \"\$(results_get '$g' time)\" ]"
	threadrun -q -o "$g" 1 sh -c "$prog" 2>"$tmp/err"
	st=$?
	check "$k: a run appends to it (exit $st)" bash -c \
		"[ $st -eq 0 ] && [ ! -s '$tmp/err' ] && [ \$(results_get '$g' algorithm | grep -c '^(run)$') -eq 2 ]"
	: >"$MARKS"
	threadrun --sweep 1,2 --resume -o "$g" -- sh -c "$prog" 2>"$tmp/err"
	st=$?
	check "$k: --resume skips the thread count done, measures the other (exit $st)" bash -c \
		"[ $st -eq 0 ] && grep -q 'sweep done: 1 run, 0 failed, 1 skipped' '$tmp/err' &&
		 [ \"\$(grep '^s ' '$MARKS' | awk '{ print \$4 }')\" = 2/compact ]"
	check "$k: 3 rows, every line whole" bash -c \
		"[ \$(results_get '$g' threads | wc -l) -eq 3 ] && [ \$(wc -l <'$g') -eq 4 ]"
done
check "bom: one BOM, the file's first bytes; no CR added" bash -c \
	"[ \"\$(head -c 3 '$tmp/bom.csv' | od -An -tx1 | tr -d ' ')\" = efbbbf ] &&
	 [ \$(grep -c \$'\\xef\\xbb\\xbf' '$tmp/bom.csv') -eq 1 ] && ! grep -q \$'\\r' '$tmp/bom.csv'"
for k in crlf both; do
	check "$k: the appended rows end in CR LF as the file's lines do" bash -c \
		"[ \$(grep -c \$'\\r\$' '$tmp/$k.csv') -eq 4 ]"
done

# A results file we may write in a folder we may not (no FILE.lock can be
# made there) still takes the run's rows, and one line says the runs on it
# are not kept apart.
ro=$tmp/ro
mkdir -p "$ro"
threadrun -q -o "$ro/r.csv" 1 true
chmod 666 "$ro/r.csv"
rm -f "$ro/r.csv.lock"
chmod 555 "$ro"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null &&
	setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$(command -v threadrun)" -o "$ro/r.csv" 1 true \
		>/dev/null 2>"$tmp/err"
	st=$?
	check "a writable file in a read-only folder: the run appends (exit $st)" bash -c \
		"[ $st -eq 0 ] && [ \$(results_get '$ro/r.csv' threads | wc -l) -eq 2 ] &&
		 [ \$(grep -c 'warning: .*are not kept apart' '$tmp/err') -eq 1 ] && [ \$(grep -c warning '$tmp/err') -eq 1 ]"
else
	skip "a writable file in a read-only folder: needs root to run as another user"
fi
chmod 755 "$ro"
# A file where no lock file can be made beside it (procfs, as root, who
# may open /proc/version for writing): exit 2, naming both.
if [ "$(id -u)" -eq 0 ] && [ -f /proc/version ]; then
	threadrun -q -o /proc/version 1 true 2>"$tmp/err" >/dev/null
	st=$?
	check "-o /proc/version: exit 2 (got $st), no lock file can be made beside it" bash -c \
		"[ $st -eq 2 ] && grep -qx \"threadrun: results: no lock file can be made beside '/proc/version' ('/proc/version.lock' does not exist and cannot be created there); give a file in a folder of files\" '$tmp/err'"
else
	skip "-o /proc/version: needs root to open it for writing"
fi
