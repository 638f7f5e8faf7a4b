# threadrun learns from the worker API (THREADRUN_ROWS_FD) whether a program
# wrote rows, not from the results file's size; a failed bind is fatal and
# named for every workload.
. "$(dirname "$0")/tap.bash"
set -o pipefail

# Rows written elsewhere (-o) are rows: no run row beside them.
threadrun -q -o "$tmp/a.csv" 1 t2accel -q -a md5 -s 16 -d 0.05 -o "$tmp/b.csv" >/dev/null
check "t2accel's rows elsewhere: threadrun exits 0" [ $? -eq 0 ]
check "t2accel's rows elsewhere: its row is there" grep -q ',t2accel,md5,' "$tmp/b.csv"
check "t2accel's rows elsewhere: no run row for it" bash -c "! grep -qs '(run)' '$tmp/a.csv'"
threadrun -q -o "$tmp/c.csv" 1 linpack -q -o "$tmp/d.csv" 40 >/dev/null
check "linpack's row elsewhere: no run row for it" bash -c \
	"grep -q ',linpack,lu-' '$tmp/d.csv' && ! grep -qs '(run)' '$tmp/c.csv'"

# A program that grows the results file without the API wrote no rows of
# its own: threadrun still records the run.
head -2 "$tmp/b.csv" | tail -1 >"$tmp/line"
threadrun -q -o "$tmp/b.csv" 1 sh -c 'cat "$1" >>"$THREADRUN_RESULTS"' sh "$tmp/line"
check "a file grown without the API: threadrun exits 0" [ $? -eq 0 ]
check "a file grown without the API: the run row is written" grep -q ',sh,(run),' "$tmp/b.csv"

# The API counts each row it appends, one line each.
threadrun -q -o "$tmp/e.csv" 1 sh -c \
	't2accel -q -a md5,sha1 -s 16 -d 0.05 >/dev/null && wc -l </proc/self/fd/$THREADRUN_ROWS_FD >"$1"' \
	sh "$tmp/count"
check "two rows, counted twice ($(cat "$tmp/count"))" [ "$(cat "$tmp/count")" = 2 ]

# A bind that fails is fatal and named, in every workload.
out=$(THREADRUN_THREADS=2 THREADRUN_PLAN=0,4000 linpack -q 40 2>&1)
st=$?
check "linpack: a failed bind exits 1 ($st)" [ "$st" -eq 1 ]
check "linpack: the failed bind is named ($out)" grep -q '^linpack: worker 1: cannot bind to PU 4000: ' <<<"$out"
out=$(THREADRUN_THREADS=2 THREADRUN_PLAN=0,4000 t2accel -q -a md5 -s 16 -d 0.05 2>&1)
st=$?
check "t2accel: a failed bind exits 1 ($st)" [ "$st" -eq 1 ]
check "t2accel: the failed bind is named" grep -q 'worker 1 on CPU [0-9]*: cannot bind to PU 4000: ' <<<"$out"

# threadrun's own row comes from the same builder: a rate, runs per second.
threadrun -q -o "$tmp/f.csv" 1 true
read -r rate unit wall < <(results_get "$tmp/f.csv" rate unit wall_s)
check "the run row's rate is 1/wall ($rate $unit, wall $wall)" awk -v r="$rate" -v w="$wall" -v u="$unit" \
	'BEGIN { exit !(u == "runs/s" && r > 0 && w > 0 && r * w > 0.99 && r * w < 1.01) }'

# A run that failed is never a measurement (issue 25): `false` exits 1, its
# run row says status 1, and threadreport leaves it out of every view,
# saying how many rows in one line; `true` beside it is reported.
for t in 1 2; do
	threadrun -q -o "$tmp/g.csv" $t false
	threadrun -q -o "$tmp/g.csv" $t true
done
check "threadrun N false: the run rows say status 1 ($(results_get "$tmp/g.csv" workload status | tr '\t\n' ': '))" \
	test "$(results_get "$tmp/g.csv" workload status | sort | uniq -c | sed 's/^ *//' | tr '\t\n' ':;')" = "2 false:1;2 true:0;"
for view in "" "-f csv" "-f json" "--cutoffs" "--cluster" "--hosts"; do
	threadreport $view "$tmp/g.csv" >"$tmp/out" 2>"$tmp/err"
	st=$?
	check "threadreport ${view:-(text)}: exit 0 ($st), no series or speedup of 'false'" \
		bash -c "[ $st -eq 0 ] && ! grep -Eq '\"false\"|false[ ,]\(run\)' '$tmp/out'"
	check "threadreport ${view:-(text)}: one line: 2 rows of failed runs skipped, the first named" \
		bash -c "[ \"\$(grep -c 'failed runs' '$tmp/err')\" -eq 1 ] &&
			grep -q '^threadreport: 2 rows of failed runs (status not 0) skipped, not measurements; the first: .*g.csv:2 (status 1)$' '$tmp/err'"
done
threadreport "$tmp/g.csv" 2>/dev/null | grep -q '^== true (run)'
check "threadreport: the run of 'true' is still reported" [ $? -eq 0 ]
grep -v ',true,' "$tmp/g.csv" >"$tmp/h.csv"
threadreport "$tmp/h.csv" >"$tmp/out" 2>"$tmp/err"
st=$?
check "only failed runs: exit 2 ($st), one line: 'no usable rows', the 2 skipped said" bash -c \
	"[ $st -eq 2 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && grep -q 'no usable rows in the input; 2 rows of failed runs' '$tmp/err'"
threadreport --compare "$tmp/g.csv" "$tmp/g.csv" >"$tmp/out" 2>"$tmp/err"
check "threadreport --compare: 'false' in no comparison, the 4 skipped (2 a side) in one line" bash -c \
	"! grep -q false '$tmp/out' && [ \"\$(grep -c 'failed runs' '$tmp/err')\" -eq 1 ] && grep -q '4 rows of failed runs' '$tmp/err'"

# A workload of ours that exits 0 without a row measured nothing (an action,
# or a module that ended it with _exit): the run fails, status 1 in its row.
threadrun -q -o "$tmp/i.csv" 1 t2accel --list >/dev/null 2>"$tmp/err"
st=$?
check "threadrun 1 t2accel --list: exit 1 ($st), one line: exited 0 without writing a row" bash -c \
	"[ $st -eq 1 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && grep -q '^threadrun: t2accel: exited 0 without writing a row: not a measurement' '$tmp/err'"
check "threadrun 1 t2accel --list: its run row says status 1 and why" \
	test "$(results_get "$tmp/i.csv" algorithm status note | cut -c1-38)" = "$(printf '(run)\t1\texited 0 without writing a row')"
