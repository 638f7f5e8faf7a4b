# Every run records what else ran during its measurement: the machine's
# steal and other processes' CPU time on its PUs (steal_pct, others_pct),
# from two reads of /proc/stat; the report flags points taken on a busy
# machine.  On a noisy virtual machine only the loaded case is asserted;
# an idle run's figures need only be numbers.
. "$(dirname "$0")/tap.bash"
set -o pipefail

# Each row's steal_pct and others_pct are plain decimals from 0 to 100.
numbers() {
	results_get "$1" algorithm steal_pct others_pct >"$tmp/cols" || return 1
	[ -s "$tmp/cols" ] || return 1
	awk -F'\t' '{ for (i = 2; i <= 3; i++)
			if ($i !~ /^[0-9]+(\.[0-9]+)?$/ || $i + 0 > 100) bad = 1 }
		END { exit bad }' "$tmp/cols"
}

# A hand-made file: a point is busy when one of its rows had steal or
# others' CPU time over 5 % (exactly 5 is not); rows that do not say cost
# nothing.  Every format says it.
data=${TEST_DATA:-tests/data}/busy.csv
threadreport "$data" >"$tmp/text" 2>/dev/null
check "text: exit 0" [ $? -eq 0 ]
check "text: the busy points say so, with the busiest row's figures" bash -c \
	"grep -c ' busy (steal ' '$tmp/text' | grep -qx 3 &&
	 grep -q '^c1 .* 2 .*1\.00 .*190\.\.210 B/s  busy (steal 0\.0%, others 47\.0%)\$' '$tmp/text' &&
	 grep -q '^c1 .* 4 .*260\.\.260 B/s  (oversubscribed)  busy (steal 0\.0%, others 30\.0%)\$' '$tmp/text' &&
	 grep -q '^scatter .* 2 .*0\.75 .*150\.\.150 B/s  busy (steal 12\.5%, others 2\.0%)\$' '$tmp/text'"
check "text: the series' warning counts them" \
	grep -q 'warning: .*3 points measured on a busy machine (steal or other work on their PUs over 5%)' "$tmp/text"
threadreport -f markdown "$data" >"$tmp/md" 2>/dev/null
check "markdown: the note column" bash -c \
	"grep -qxF '| c1 | 2 | 200 B/s | 190 B/s | 210 B/s | 3 | 2.00 | 1.00 | 190..210 B/s | busy (steal 0.0%, others 47.0%) |' '$tmp/md' &&
	 grep -qxF '| c1 | 3 | 250 B/s | 250 B/s | 250 B/s | 1 | 2.50 | 0.83 | 250..250 B/s | oversubscribed |' '$tmp/md' &&
	 grep -qxF '| c1 | 4 | 260 B/s | 260 B/s | 260 B/s | 1 | 2.60 | 0.65 | 260..260 B/s | oversubscribed; busy (steal 0.0%, others 30.0%) |' '$tmp/md'"
threadreport -f csv "$data" >"$tmp/csv" 2>/dev/null
check "csv: steal_pct, others_pct and busy columns" bash -c \
	"head -1 '$tmp/csv' | grep -q ',steal_pct,others_pct,busy,lat_batch,lat_p50_s,lat_p90_s,lat_p99_s,lat_p999_s,lat_max_s,cycles_per_byte,cycles_per_op,ipc,flops_per_cycle,worker_spread_pct,median_lo,median_hi,ci_coverage,speedup_of_medians,speedup_lo,speedup_hi,speedup_pairs,drift_pct\$' &&
	 grep -qx '0,,t2accel,md5,evp,,64,bytes,bytes/s,c1,2,3,200,190,210,2,1,no,2,2,,busy,no difference measured,0,47,yes,,,,,,,,,,,,190,210,0.75,2,1.72727,2.33333,3,' '$tmp/csv' &&
	 grep -qx '0,,t2accel,md5,evp,,64,bytes,bytes/s,c1,3,1,250,250,250,2.5,0.833333,yes,2,2,,oversubscribed superlinear,,5,5,no,,,,,,,,,,,,250,250,0,2.5,2.5,2.5,1,' '$tmp/csv' &&
	 grep -qx '0,,t2accel,md5,evp,,64,bytes,bytes/s,scatter,1,1,100,100,100,1,1,no,2,2,,,no difference measured,,,no,,,,,,,,,,,,100,100,0,1,1,1,1,' '$tmp/csv'"
threadreport -f tsv "$data" 2>/dev/null | tr '\t' , >"$tmp/tsv"
check "tsv: the same columns" bash -c \
	"grep -qx '0,,t2accel,md5,evp,,64,bytes,bytes/s,scatter,2,1,150,150,150,1.5,0.75,no,2,2,,busy,no difference measured,12.5,2,yes,,,,,,,,,,,,150,150,0,1.5,1.5,1.5,1,' '$tmp/tsv'"
if command -v jq >/dev/null; then
	got=$(threadreport -f json "$data" 2>/dev/null |
		jq -c '[.series[0].cells[] | [.policy, .threads, .busy, .steal_pct, .others_pct]]')
	check "json: busy, steal_pct and others_pct per cell ($got)" [ "$got" = \
		'[["c1",1,false,1,2],["c1",2,true,0,47],["c1",3,false,5,5],["c1",4,true,0,30],["scatter",1,false,null,null],["scatter",2,true,12.5,2]]' ]
	got=$(threadreport -f json "${TEST_DATA:-tests/data}/handmade.csv" 2>/dev/null |
		jq -c '[.series[].cells[] | select(.busy or .steal_pct != null or .others_pct != null)] | length')
	check "json: an older file without the columns: no busy point, figures null ($got)" [ "$got" = 0 ]
else
	skip "json: no jq here"
	skip "json: no jq here"
fi

# A monitored run: t2accel's rows and threadrun's run row say both.
threadrun -q --monitor -o "$tmp/idle.csv" 2 t2accel -q -a md5 -s 64 -d 0.2 >/dev/null 2>&1
check "threadrun 2 t2accel: exit 0" [ $? -eq 0 ]
check "every row has steal_pct and others_pct as numbers" numbers "$tmp/idle.csv"
check "t2accel's row and the run row are both there" bash -c \
	"results_get '$tmp/idle.csv' algorithm | sort | tr '\n' ' ' | grep -qx '(run) md5 '"
# A plain run of a foreign program: its run row says both too.
threadrun -q -o "$tmp/true.csv" 1 sleep 0.05
check "a foreign program's run row has both" numbers "$tmp/true.csv"

# A CPU hog pinned on PU 0, where a 1-thread run is planned: others' CPU
# time on the PU is well over the report's threshold (about half of it
# goes to the hog).
if ! taskset -c 0 true 2>/dev/null; then
	skip "PU 0 not usable here (taskset -c 0 failed): no pinned hog"
	skip "hog: t2accel's others_pct"
	skip "hog: a foreign program's others_pct"
	skip "hog: the report flags the point busy"
else
	taskset -c 0 sh -c 'while :; do :; done' &
	hog=$!
	trap 'kill $hog 2>/dev/null; rm -rf "$tmp"; echo "1..$n"' EXIT
	sleep 0.2
	threadrun -q -o "$tmp/hog.csv" -p list:0 1 t2accel -q -a md5 -s 64 -d 0.3 >/dev/null 2>&1
	st1=$?
	threadrun -q -o "$tmp/hog-run.csv" -p list:0 1 sleep 0.3
	st2=$?
	kill $hog
	wait $hog 2>/dev/null
	others=$(results_get "$tmp/hog.csv" others_pct)
	check "hog: t2accel's others_pct is over 20 ($others, exit $st1)" \
		awk -v o="$others" -v s="$st1" 'BEGIN { exit !(s == 0 && o != "" && o + 0 > 20) }'
	others=$(results_get "$tmp/hog-run.csv" others_pct)
	check "hog: a foreign program's others_pct is over 20 ($others, exit $st2)" \
		awk -v o="$others" -v s="$st2" 'BEGIN { exit !(s == 0 && o != "" && o + 0 > 20) }'
	check "hog: the report flags the point busy" bash -c \
		"threadreport '$tmp/hog.csv' | grep -q '^list:0 .* busy (steal [0-9.]*%, others [0-9.]*%)\$' &&
		 threadreport -f json '$tmp/hog.csv' | grep -q '\"busy\": true'"
fi

# /proc/stat unreadable (an empty file in its place, as in some containers)
# or damaged: the run succeeds, the columns are empty or numbers.
if unshare -m --propagation private true 2>/dev/null; then
	unshare -m --propagation private sh -c \
		'mount --bind /dev/null /proc/stat && exec threadrun -q --monitor -o "$1" 1 t2accel -q -a md5 -s 64 -d 0.05' \
		sh "$tmp/nostat.csv" >/dev/null 2>&1
	check "no /proc/stat: the run succeeds" [ $? -eq 0 ]
	check "no /proc/stat: steal_pct and others_pct are empty on every row" bash -c \
		"results_get '$tmp/nostat.csv' steal_pct others_pct >'$tmp/empty' &&
		 [ \$(wc -l <'$tmp/empty') -eq 2 ] && ! grep -q '[^[:space:]]' '$tmp/empty'"
	# Damaged lines among good ones cost those lines only.
	{
		printf 'cpu  1 2 3 4 5 6 7 -8\ncpu0 x\ncpu1 1 2 3\ncpu%0400d 1 2 3 4 5 6 7 8\n' 0
		printf 'cpu0 1 2 3 4 5 6 7 99999999999999999999999\nintr 1\n'
		printf 'cpu  10 0 10 100 0 0 0 0\ncpu0 5 0 5 50 0 0 0 0\ncpu1 5 0 5 50 0 0 0 0\n'
	} >"$tmp/stat"
	unshare -m --propagation private sh -c \
		'mount --bind "$2" /proc/stat && exec threadrun -q -o "$1" 1 t2accel -q -a md5 -s 64 -d 0.05' \
		sh "$tmp/badstat.csv" "$tmp/stat" >/dev/null 2>&1
	check "damaged /proc/stat: the run succeeds, its good lines read (nothing changed: 0)" bash -c \
		"results_get '$tmp/badstat.csv' steal_pct others_pct | grep -qx \$'0.00\t0.00'"
else
	skip "no mount namespace here (unshare -m): /proc/stat cannot be hidden"
	skip "no /proc/stat: columns empty"
	skip "damaged /proc/stat"
fi
