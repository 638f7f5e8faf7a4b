# Nothing outlives threadrun: the program and its children die with it,
# daemons included (setsid), whatever kills it (SIGKILL, a signal it does
# not expect); a long command line runs as without it; a signal reaches
# every process of the job; waiting for another process's lock on the
# results file does not hold off Ctrl-C; --resume does not measure beside a
# live sweep.
set -o pipefail
. "$(dirname "$0")/tap.bash"

# alive PID: running (a zombie nobody reaped yet does not count).
alive() { [ -r "/proc/$1/stat" ] && ! awk '{ exit $3 != "Z" }' "/proc/$1/stat" 2>/dev/null; }
# gone PID...: every PID ends within 5 s.
gone() {
	local p i
	for p; do
		for i in $(seq 50); do alive "$p" || break; sleep 0.1; done
		alive "$p" && return 1
	done
	return 0
}
# gone2 PID PID: both recorded, and both end within 5 s.
gone2() { [ $# -eq 2 ] && gone "$@"; }
# pids FILE...: wait until each file holds a pid, print them.
pids() {
	local f i
	for f; do
		for i in $(seq 100); do [ -s "$f" ] && break; sleep 0.05; done
		cat "$f"
	done
}
# A job of two processes: sh and a grandchild under it.
job='echo $$ >"$0.sh"; sleep 30 & echo $! >"$0.grand"; wait'

threadrun -q -o "$tmp/k.csv" 1 sh -c "$job" "$tmp/k" &
tr=$!
set -- $(pids "$tmp/k.sh" "$tmp/k.grand")
kill -KILL $tr
wait $tr 2>/dev/null
check "kill -9 of threadrun: its program dies too" gone "$1"
check "kill -9 of threadrun: the program's child (sh -c) dies too" gone "$2"
kill "$1" "$2" 2>/dev/null

# A process of the job's group that cleared its environment (no run id to
# find it by) ends by the watchdog's kill of the group.
threadrun -q -o "$tmp/ke.csv" 1 sh -c 'env -i sleep 30 & echo $! >"$0.grand"; wait' "$tmp/ke" &
tr=$!
set -- $(pids "$tmp/ke.grand")
kill -KILL $tr
wait $tr 2>/dev/null
check "kill -9 of threadrun: a child of the group with no environment dies too" gone "$1"
kill "$1" 2>/dev/null

threadrun -q -o "$tmp/u.csv" 1 sh -c "$job" "$tmp/u" &
tr=$!
set -- $(pids "$tmp/u.sh" "$tmp/u.grand")
kill -USR1 $tr
wait $tr
st=$?
check "SIGUSR1: forwarded, threadrun ends with the program's 138 (got $st)" [ $st -eq 138 ]
check "SIGUSR1: no process of the job is left" gone "$1" "$2"
kill "$1" "$2" 2>/dev/null

# SIGTERM reaches the grandchild itself (it says so), not only sh.
threadrun -q -o "$tmp/t.csv" 1 sh -c \
	'trap "wait" TERM; sh -c "trap \"echo got >\\\"\$0.term\\\"; exit 0\" TERM; echo \$\$ >\"\$0.grand\"; sleep 5 & wait" "$0" & wait' \
	"$tmp/t" &
tr=$!
pids "$tmp/t.grand" >/dev/null
kill -TERM $tr
wait $tr
check "SIGTERM reaches every process of sh -c" grep -qx got "$tmp/t.term"

# What the program leaves running ends with the run.
threadrun -q -o "$tmp/b.csv" 1 sh -c 'sleep 30 & echo $! >"$0.grand"' "$tmp/b"
check "a background process the program left ends with the run" gone "$(pids "$tmp/b.grand")"

# A daemon (setsid -f: out of the job's group and session, its parent gone)
# and the child it started end with the run too.  The program waits until
# the daemon wrote its pid and its child's.
daemon='setsid -f sh -c "sleep 30 & echo \$! >\"\$0.grand\"; echo \$\$ >\"\$0.d\"; wait" "$0"
	while [ ! -s "$0.d" ] || [ ! -s "$0.grand" ]; do sleep 0.05; done'
threadrun -q -o "$tmp/d.csv" 1 sh -c "$daemon; exit 3" "$tmp/d"
st=$?
set -- $(pids "$tmp/d.d" "$tmp/d.grand")
check "a setsid daemon: threadrun ends with the program's 3 (got $st)" [ $st -eq 3 ]
check "... the daemon ($1) and its child ($2) end with the run" gone2 "$@"
kill "$@" 2>/dev/null

# A child threadrun had before its run is not the run's: a shell that
# started a process and then exec'd threadrun keeps it (threadrun kills
# only what the run left).
sh -c 'sleep 30 & echo $! >"$0.prior"; exec threadrun -q -o "$0.csv" 1 sh -c "sleep 30 & exit 0"' "$tmp/p"
st=$?
prior_pid=$(pids "$tmp/p.prior")
check "a process started before threadrun was exec'd outlives the run (exit $st)" \
	bash -c "[ $st -eq 0 ] && kill -0 $prior_pid"
kill "$prior_pid" 2>/dev/null

# Orphans that end during the run are reaped, never taken for the program.
threadrun -q -o "$tmp/o.csv" 1 sh -c 'setsid -f sh -c "exit 7"; setsid -f sh -c "kill -9 \$\$"; sleep 0.3; exit 0' 2>"$tmp/err"
st=$?
check "orphans ending with 7 and SIGKILL before the program's 0: exit 0 (got $st)" [ $st -eq 0 ]

threadrun -q -o "$tmp/dt.csv" 1 sh -c "$daemon; sleep 30" "$tmp/dt" &
tr=$!
set -- $(pids "$tmp/dt.d" "$tmp/dt.grand")
kill -TERM $tr
wait $tr
st=$?
check "SIGTERM to threadrun under a daemon: 143 (got $st)" [ $st -eq 143 ]
check "... the daemon and its child end too" gone2 "$@"
kill "$@" 2>/dev/null

# kill -9: threadrun ends nothing itself; its watchdog finds the daemon
# by the run id in its environment.
threadrun -q -o "$tmp/dk.csv" 1 sh -c "$daemon; sleep 30" "$tmp/dk" &
tr=$!
set -- $(pids "$tmp/dk.d" "$tmp/dk.grand")
kill -KILL $tr
wait $tr 2>/dev/null
check "kill -9 of threadrun: a setsid daemon and its child end too" gone2 "$@"
kill "$@" 2>/dev/null

# In a sweep a run's daemon is gone before the next run starts.
threadrun -q -o "$tmp/ds.csv" --sweep 1,2 -- sh -c 'if [ -s "$0.d" ]; then
		awk "{ print \$3 }" "/proc/$(cat "$0.d")/stat" >"$0.state" 2>/dev/null || echo gone >"$0.state"
		rm "$0.d" "$0.grand"; fi
	'"$daemon" "$tmp/ds"
st=$?
set -- $(pids "$tmp/ds.d" "$tmp/ds.grand")
check "a sweep: the first run's daemon is gone when the second starts ($(cat "$tmp/ds.state" 2>/dev/null), exit $st)" \
	[ "$(cat "$tmp/ds.state" 2>/dev/null)" = gone ]
check "... and the second's when the sweep ends" gone2 "$@"
kill "$@" 2>/dev/null

# SIGINT while another process holds the results file's lock.
f=$tmp/lock.csv
flock "$f" sleep 30 &
holder=$!
sleep 0.3
threadrun -q -o "$f" 1 true &
tr=$!
sleep 1
kill -INT $tr
gone $tr
check "SIGINT while waiting for the results lock ends threadrun promptly" bash -c "! kill -0 $tr 2>/dev/null"
kill -KILL $tr 2>/dev/null
wait $tr
st=$?
check "... with 130 (got $st)" [ $st -eq 130 ]
kill $holder 2>/dev/null
wait $holder 2>/dev/null
check "... and no row was half written" bash -c "[ ! -s '$f' ]"

# --resume beside a live sweep measures nothing: refused, naming it.
r=$tmp/live.csv
threadrun -q --sweep 1,2 -o "$r" -- sh -c 'echo "$THREADRUN_THREADS" >>"$0"; sleep 1.5' "$tmp/marks" &
live=$!
for i in $(seq 100); do [ -s "$tmp/marks" ] && break; sleep 0.05; done
threadrun -q --sweep 1,2 --resume -o "$r" -- sh -c 'echo "$THREADRUN_THREADS" >>"$0"; sleep 1.5' "$tmp/marks" \
	2>"$tmp/err"
st=$?
wait $live
check "--resume beside a live sweep: 1 thread, which it is measuring, is run once" \
	[ "$(grep -cx 1 "$tmp/marks")" -eq 1 ]
check "--resume beside a live sweep is refused naming its pid, exit 1 (got $st)" bash -c \
	"[ $st -eq 1 ] && grep -q 'is being measured by the sweep of process $live;' '$tmp/err'"
# The same command (config): another one would be measured.
threadrun -q --sweep 1,2 --resume -o "$r" -- sh -c 'echo "$THREADRUN_THREADS" >>"$0"; sleep 1.5' "$tmp/marks" \
	2>"$tmp/err"
check "a later --resume has nothing left to do (exit $?)" bash -c \
	"[ \$(wc -l <'$tmp/marks') -eq 2 ]"

# A command line longer than one environment string may be (128 KiB) runs
# as it does without threadrun; its config reaches the rows whole, through
# THREADRUN_CONFIG_FD, read by the workloads.
threadrun -q -o "$tmp/long.csv" 1 true $(seq 1 100000) 2>"$tmp/err"
st=$?
results_get "$tmp/long.csv" config >"$tmp/cfg"
echo "true $(seq -s ' ' 1 100000)" >"$tmp/want"
check "true with 100000 arguments: exit 0 (got $st, $(head -c 200 "$tmp/err"))" [ $st -eq 0 ]
check "... its row's config is the whole command line ($(wc -c <"$tmp/cfg") bytes)" \
	cmp -s "$tmp/cfg" "$tmp/want"
threadrun -q -o "$tmp/long2.csv" 1 sh -c 'echo "${#THREADRUN_CONFIG}" >"$0"; t2accel -q -a md5 -d 0.02 >/dev/null' \
	"$tmp/envlen" $(seq 1 30000) 2>"$tmp/err"
st=$?
results_get "$tmp/long2.csv" workload >"$tmp/wl"
results_get "$tmp/long2.csv" config | sort -u >"$tmp/cfgs"
check "a workload under a long command line: exit $st, its rows carry the launch's config" \
	bash -c '[ "$1" -eq 0 ] && [ "$(sort -u "$2")" = t2accel ] && [ "$(wc -l <"$3")" -eq 1 ] &&
		[[ $(cat "$3") == "sh -c "*" 29999 30000" ]]' _ "$st" "$tmp/wl" "$tmp/cfgs"
check "... and no environment string holds it (THREADRUN_CONFIG has $(cat "$tmp/envlen") characters)" \
	[ "$(cat "$tmp/envlen")" -eq 0 ]
# A one-line regular file is not threadrun's config: only a sealed memfd is.
printf 'forged config' >"$tmp/forged"
THREADRUN_CONFIG_FD=7 t2accel -q -a md5 -d 0.02 -o "$tmp/forged.csv" >/dev/null 2>"$tmp/err" 7<"$tmp/forged"
st=$?
check "THREADRUN_CONFIG_FD on a plain file: ignored with one warning (exit $st)" \
	bash -c '[ "$1" -eq 0 ] && [ "$(wc -l <"$2")" -eq 1 ] && grep -q "ignoring THREADRUN_CONFIG_FD=7" "$2" &&
		[ "$(results_get "$3" config | sort -u)" = "t2accel --algorithm=md5 --seconds=0.02" ]' _ "$st" "$tmp/err" "$tmp/forged.csv"
THREADRUN_CONFIG_FD=1 t2accel -q -a md5 -d 0.02 -o "$tmp/fd.csv" >/dev/null 2>"$tmp/err"
st=$?
check "THREADRUN_CONFIG_FD that is not threadrun's file: one warning, the program's own config (exit $st)" \
	bash -c '[ "$1" -eq 0 ] && [ "$(wc -l <"$2")" -eq 1 ] && grep -q "ignoring THREADRUN_CONFIG_FD=1" "$2" &&
		[ "$(results_get "$3" config | sort -u)" = "t2accel --algorithm=md5 --seconds=0.02" ]' _ "$st" "$tmp/err" "$tmp/fd.csv"
