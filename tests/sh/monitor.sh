# threadrun --monitor: it sees every CPU and thread, flags other load on an
# unplanned CPU and a thread that moved off its planned PU, writes the time
# series, and passes the program's exit status through.
. "$(dirname "$0")/tap.bash"
r=$tmp/m.csv

threadrun --monitor -o "$r" -p scatter 2 t2accel -q -a sha256 -s 1024 -d 1 >/dev/null 2>"$tmp/err"
st=$?
check "monitored t2accel exits 0 (got $st)" [ $st -eq 0 ]
# Each CPU's user share is at least the share its pinned worker used (the
# worker's user seconds over the monitored time, less 15 points for the
# first sample coming one interval in): other load on a shared machine only
# adds to a CPU's share, and takes from the worker's alike.
check "per-CPU table: each CPU's user time holds its worker's" bash -c \
	"awk '\$1 == \"CPU\" { t = 1; next } \$1 == \"TID\" { t = 2; next }
	      /^monitor: .* samples over / { for (i = 1; i <= NF; i++) if (\$i == \"over\") wall = \$(i + 1) }
	      t == 1 && \$1 ~ /^[01]\$/ && \$8 == \"yes\" { usr[\$1] = \$2 }
	      t == 2 && \$2 ~ /^t2accel-w[01]\$/ { on[\$5] = \$9 }
	      END { if (wall <= 0) exit 1
	            for (c = 0; c < 2; c++) if (!(c in usr) || !(c in on) || on[c] <= 0 || usr[c] < 100 * on[c] / wall - 15) exit 1 }' '$tmp/err'"
check "per-thread table: each worker on its planned PU, no migration" bash -c \
	"awk '\$2 ~ /^t2accel-w[01]\$/ && \$4 == \$5 && \$6 == 0' '$tmp/err' | wc -l | grep -qx 2"
check "no warning for a clean run (but the machine's steal)" bash -c \
	"! grep 'monitor: warning' '$tmp/err' | grep -vqx 'monitor: warning: steal [0-9.]*% (a noisy virtual machine)'"
check "the sampler's cost is measured and printed" grep -q 'sampler cost [0-9.]*% of one CPU' "$tmp/err"
check "the run row carries the monitor's figures" bash -c \
	"results_get '$r' algorithm placement_ok migrations off_plan | grep -qx \$'(run)\tyes\t0\t0'"
check "the time series is beside the results, with CPU and thread rows" bash -c \
	"grep -q '^t_s,kind,id' '$r.monitor.csv' && grep -q ',cpu,1,' '$r.monitor.csv' && grep -q ',thread,.*t2accel-w1' '$r.monitor.csv'"

# Other load on a CPU no worker was planned on.
taskset -c 1 sh -c 'while :; do :; done' &
busy=$!
threadrun --monitor -o "$r" -p list:0 1 t2accel -q -a sha1 -s 64 -d 1 >/dev/null 2>"$tmp/err"
kill $busy; wait $busy 2>/dev/null
check "a busy CPU with no worker planned is flagged" bash -c \
	"grep -q '^1 .*BUSY, not planned' '$tmp/err' && grep -q 'CPU(s) busy though no worker was planned there' '$tmp/err'"

# A thread that re-binds itself away from its plan.
threadrun --monitor=0.1 -o "$r" -p list:0 1 sh -c \
	'taskset -p -c 1 $$ >/dev/null; end=$(($(date +%s) + 2)); while [ $(date +%s) -lt $end ]; do :; done' \
	>/dev/null 2>"$tmp/err"
check "a thread moved off its planned PU is flagged" bash -c \
	"grep -q 'OFF PLAN' '$tmp/err' && grep -q 'thread.* seen off .* planned PU' '$tmp/err'"
check "and its run row says placement not honoured" bash -c \
	"results_get '$r' workload placement_ok | tail -1 | grep -qx \$'sh\tno'"

# Where a thread ran before it took a worker's name (a new thread under its
# parent's name, before it binds) is not held against that worker.
threadrun --monitor=0.05 -o "$r" -p list:0 1 sh -c \
	'taskset -p -c 1 $$ >/dev/null; end=$(($(date +%s) + 1)); while [ $(date +%s) -lt $end ]; do :; done
	 taskset -p -c 0 $$ >/dev/null; printf x-w0 >/proc/$$/comm
	 end=$(($(date +%s) + 1)); while [ $(date +%s) -lt $end ]; do :; done' \
	>/dev/null 2>"$tmp/err"
check "a thread is judged from the worker name it takes on" bash -c \
	"grep -q '^[0-9]* *x-w0 *0 *0 *0 ' '$tmp/err' && ! grep -q 'OFF PLAN' '$tmp/err' && results_get '$r' workload placement_ok | tail -1 | grep -qx \$'sh\tyes'"

# No thread is judged before its bind point.  An OpenMP program asleep
# before its first parallel region, and before libgomp binds its initial
# thread while it loads (omp_sleep's preinit function, on CPU 1 though
# plan[0] is 0): as the issue saw McCalpin's STREAM flagged, when a sample
# fell between exec and libgomp's binding.
o=$tmp/omp.csv
threadrun --monitor=0.1 -o "$o" -p list:0,1 2 omp_sleep 0.6 0.4 0.4 1 >"$tmp/out" 2>"$tmp/err"
st=$?
check "omp_sleep under the monitor exits 0 (got $st)" [ $st -eq 0 ]
check "libgomp binds the initial thread while the program loads, before main (initial cpus 0)" \
	grep -qx 'initial cpus 0' "$tmp/out"
check "an OpenMP program asleep before its bind point and its first parallel region: no thread off plan" \
	bash -c "! grep -q 'OFF PLAN' '$tmp/err' && ! grep -q 'seen off' '$tmp/err'"
check "its initial thread is judged from its bind point: planned 0, seen on 0 only, no migration" \
	grep -q '^[0-9]* *omp_sleep *0 *0 *0 *0 ' "$tmp/err"
check "its run row: placement honoured, no migration, no sample off plan" bash -c \
	"results_get '$o' algorithm placement_ok migrations off_plan | grep -qx \$'(run)\tyes\t0\t0'"
# On CPU 1, where it moved, or on 0 where a loaded machine's balancer took
# it between giving its CPU set back and falling asleep.
check "before its bind point the series shows it on a CPU of the plan with no planned PU (-1)" \
	grep -Eq '^0\.[1-4][0-9]*,thread,[0-9]+,omp_sleep,[01],-1,' "$o.monitor.csv"

# A parent that only waits for its children (stress-ng --cpu 2's), waiting
# on CPU 1: never bound, it has no planned PU and stays inside the plan's.
i=$tmp/idle.csv
threadrun --monitor=0.1 -o "$i" -p list:0,1 2 idle_parent 2 0.6 1 >/dev/null 2>"$tmp/err"
st=$?
check "idle_parent under the monitor exits 0 (got $st)" [ $st -eq 0 ]
check "an idle parent is not flagged off plan" bash -c "! grep -q 'OFF PLAN' '$tmp/err' && ! grep -q 'seen off' '$tmp/err'"
# Seen on 1, or on 0 too when a loaded machine lets a sample fall before its move.
check "it is worker 0 with no planned PU, seen on the plan's CPUs" grep -Eq '^[0-9]+ +idle_parent +0 +- +[01](,[01])? ' "$tmp/err"
check "its run row: placement honoured, no sample off plan" bash -c \
	"results_get '$i' algorithm placement_ok off_plan | grep -qx \$'(run)\tyes\t0'"

# The first sample comes one interval after the start (a sample covers the
# interval before it), and no CPU sample reads as busy without data: an
# interval in which no tick was counted has no shares, not zeros.
f=$tmp/first.csv
threadrun -q --monitor=0.2 -o "$f" 1 sleep 0.5 2>/dev/null
first=$(awk -F, '$2 == "cpu" {print $1; exit}' "$f.monitor.csv")
check "the first sample is taken one interval after the start (t_s ${first:-none} >= 0.2)" \
	awk -v t="${first:-0}" 'BEGIN {exit !(t >= 0.2)}'
threadrun -q --monitor=0.01 -o "$f" 1 sleep 0.3 2>/dev/null
check "no CPU sample has every share 0 (one interval of 0.01 s is shorter than a tick)" bash -c \
	"! awk -F, '\$2 == \"cpu\" && \$10 != \"\" && \$7 + \$8 + \$9 + \$10 + \$11 == 0' '$f.monitor.csv' | grep -q ."

# Exit status passes through; early exits and children are fine.
threadrun -q --monitor -o "$r" 1 sh -c 'exit 7' 2>/dev/null
check "exit status passes through the monitor (7)" [ $? -eq 7 ]
threadrun -q --monitor -o "$r" 2 true 2>"$tmp/err"
check "a program that exits before the first sample" [ $? -eq 0 ]
threadrun --monitor=0.05 -o "$r" 2 sh -c 'sh -c "sleep 0.3" & sleep 0.3; wait' >/dev/null 2>"$tmp/err"
check "children of the program are watched too" bash -c "[ \$(grep -c '^[0-9]* *sleep ' '$tmp/err') -ge 1 ]"

# Passive and active waiting: the difference shows in user time and switches.
# (Not under ThreadSanitizer: linpack's libgomp is invisible to it, and 8
# spinning threads under it on 2 CPUs take many minutes.)
if [ "${TEST_SAN:-}" = tsan ]; then
	skip "linpack under ThreadSanitizer"
else
	for p in passive active; do
		OMP_WAIT_POLICY=$p threadrun --monitor=0.05 -o "$tmp/$p.csv" -p none 8 linpack -q -v 1 -r 3 600 >/dev/null 2>"$tmp/$p"
		st=$?
		check "OMP_WAIT_POLICY=$p: the run exits 0 (got $st)" [ $st -eq 0 ]
	done
	# Both were watched: every linpack worker is in the series with its
	# context switches counted (which of the two switches more depends on
	# the load on this shared machine, so it is not asserted).
	workers() { awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next}
		$c["kind"] == "thread" && $c["name"] ~ /^linpack-w/ && $c["vcsw"] + $c["ivcsw"] > 0 {w[$c["name"]] = 1}
		END {n = 0; for (t in w) n++; print n}' "$tmp/$1.csv.monitor.csv"; }
	check "OMP_WAIT_POLICY passive and active: 8 workers each seen switching ($(workers passive), $(workers active))" \
		bash -c "[ '$(workers passive)' -eq 8 ] && [ '$(workers active)' -eq 8 ]"
fi

# The heat map of a monitored run.
mkdir -p "$tmp/fig"
plot/monitorplot "$r.monitor.csv" -o "$tmp/fig" --run 1 >/dev/null 2>"$tmp/err"
st=$?
check "monitorplot draws the heat map (exit $st)" bash -c "[ $st -eq 0 ] && [ -s '$tmp/fig/monitor.png' ] && [ -s '$tmp/fig/monitor.svg' ] && [ ! -s '$tmp/err' ]"
plot/monitorplot "$r.monitor.csv" --run 999 -o "$tmp/fig" 2>"$tmp/err"
check "monitorplot: a run that does not exist is refused (exit $?)" grep -q 'run: 999 is out of range' "$tmp/err"
plot/monitorplot "$r" -o "$tmp/fig" 2>"$tmp/err"
check "monitorplot: a results file is not a time series" grep -q 'is not a monitor time series' "$tmp/err"
