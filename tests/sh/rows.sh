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
