# The files beside the results file (FILE.log, FILE.monitor.csv, FILE.lock)
# and the results file itself: no symlink followed, no FIFO waited on, no
# descriptor inherited by the program or taken from stdout/stderr, whole
# lines and one header from concurrent monitors, long paths refused, and
# a failed write of standard output is a failed run.
set -o pipefail
. "$(dirname "$0")/tap.bash"
d=$tmp/d
mkdir -p "$d"

# refused NAME WANT-MESSAGE COMMAND...: exit 2 at once (a FIFO must not
# block: timeout says 124), naming the problem.
refused() {
	local name=$1 want=$2 st
	shift 2
	timeout -k 2 10 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	st=$?
	if [ $st -eq 2 ] && grep -q -- "$want" "$tmp/err"; then
		ok "$name"
	else
		notok "$name" "exit $st, want 2 and '$want'" "$(head -3 "$tmp/err")"
	fi
}

echo precious >"$d/target"
ln -s "$d/target" "$d/a.csv.log"
refused "FILE.log a symlink: refused" "symbolic link" threadrun -q --sweep 1 -o "$d/a.csv" -- true
ln -s "$d/target" "$d/b.csv.monitor.csv"
refused "FILE.monitor.csv a symlink: refused" "symbolic link" threadrun -q --monitor -o "$d/b.csv" 1 true
ln -s "$d/target" "$d/c.csv"
refused "results file a symlink: refused" "symbolic link" threadrun -q -o "$d/c.csv" 1 true
ln -s "$d/target" "$d/e.csv.lock"
refused "FILE.lock a symlink: refused" "symbolic link" threadrun -q --sweep 1 -o "$d/e.csv" -- true
check "the symlinks' target is untouched" bash -c "[ \"\$(cat '$d/target')\" = precious ]"

mkfifo "$d/f.csv.log" "$d/g.csv.monitor.csv" "$d/h.csv"
refused "FILE.log a FIFO: refused without blocking" "not a regular file" threadrun -q --sweep 1 -o "$d/f.csv" -- true
refused "FILE.monitor.csv a FIFO: refused without blocking" "not a regular file" threadrun -q --monitor -o "$d/g.csv" 1 true
refused "results file a FIFO: refused without blocking" "not a regular file" threadrun -q -o "$d/h.csv" 1 true
refused "t2accel: results file a FIFO: refused without blocking" "not a regular file" t2accel -q -a md5 -d 0.01 -o "$d/h.csv"

# A path longer than PATH_MAX: refused, never cut into another file's name.
long=$d/
while [ ${#long} -lt 4092 ]; do long=$long./; done
long=${long:0:4092}r.csv
long=${long/%.\/r.csv/\/r.csv}
while [ ${#long} -lt 4097 ]; do long=${long/\/r.csv/\/.\/r.csv}; long=${long:0:4097}; done
refused "a ${#long}-character -o path is refused (ENAMETOOLONG)" "too long" threadrun -q -o "$long" 1 true
check "and nothing was written under a cut name" bash -c "[ -z \"\$(ls '$d' | grep '^r')\" ]"

# Started with stdout or stderr closed: no file takes descriptor 1 or 2.
threadrun -q --monitor -o "$d/m.csv" 1 sh -c 'echo TABLE-OUT; echo TABLE-ERR >&2' >&- 2>"$tmp/err"
check "stdout closed: the program's output is not in the time series" bash -c \
	"! grep -q TABLE '$d/m.csv.monitor.csv' && head -1 '$d/m.csv.monitor.csv' | grep -q '^t_s,kind'"
threadrun --monitor -o "$d/n.csv" 1 sh -c 'echo TABLE-ERR >&2' 2>&- >/dev/null
check "stderr closed: neither the program's nor threadrun's messages are in the time series" bash -c \
	"! grep -qE 'TABLE|monitor:' '$d/n.csv.monitor.csv' && head -1 '$d/n.csv.monitor.csv' | grep -q '^t_s,kind'"
threadrun -q --sweep 1 -o "$d/o.csv" -- sh -c 'echo TABLE-ERR >&2' 2>&- >&-
# (The rows' config names the command, TABLE-ERR included: the output
# would be a line of its own.)
check "stdout and stderr closed: a sweep's rows stay clean" bash -c \
	"results_get '$d/o.csv' threads >/dev/null && ! grep -qx TABLE-ERR '$d/o.csv'"

# The program inherits no descriptor of threadrun's files but the row
# counter the contract hands it (THREADRUN_ROWS_FD), left out here (listed
# without a pipe, which would show the shell's own pipe for a moment).
fds='ls /proc/$$/fd >"$1"; echo "${THREADRUN_ROWS_FD:-none}" >"$1.rows"'
listed() { grep -vxF -f "$1.rows" "$1" | sort | tr '\n' ' '; }
sh -c "$fds" sh "$tmp/fd0"
base=$(listed "$tmp/fd0")
threadrun -q --monitor -o "$d/p.csv" 1 sh -c "$fds" sh "$tmp/fd1"
got=$(listed "$tmp/fd1")
check "a monitored run's program has only the descriptors threadrun got ($got)" [ "$got" = "$base" ]
threadrun -q --monitor --sweep 1 -o "$d/q.csv" -- sh -c "$fds" sh "$tmp/fd2"
got=$(listed "$tmp/fd2")
check "a monitored sweep's program has only the descriptors threadrun got ($got)" [ "$got" = "$base" ]

# Concurrent monitors on one file: whole lines, one header, first.
for i in 1 2 3; do
	threadrun -q --monitor=0.01 -o "$d/c3.csv" 1 sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done' &
done
wait
s=$d/c3.csv.monitor.csv
check "concurrent --monitor: one header, on line 1" bash -c \
	"[ \$(grep -c '^t_s,' '$s') -eq 1 ] && head -1 '$s' | grep -q '^t_s,kind'"
check "concurrent --monitor: every line whole (16 fields or a run mark)" bash -c \
	"[ \$(grep -vc '^#' '$s') -gt 10 ] && awk -F, '!/^# run [0-9]+ threads?, /{ if (NF != 16) bad++ } END { exit bad > 0 }' '$s'"
check "concurrent --monitor: three run marks" bash -c "[ \$(grep -c '^# run ' '$s') -eq 3 ]"

# Standard output that cannot be written is a failed run, said so.
full() { # NAME COMMAND...
	local name=$1 st
	shift
	"$@" >/dev/full 2>"$tmp/err"
	st=$?
	if [ $st -ne 0 ] && grep -q 'cannot write standard output' "$tmp/err"; then
		ok "$name"
	else
		notok "$name" "exit $st" "$(head -3 "$tmp/err")"
	fi
}
threadrun -q -o "$d/r1.csv" 1 t2accel -q -a md5 -s 64 -d 0.02 2>/dev/null
full "threadrun -n > /dev/full fails" threadrun -n 2
full "threadreport > /dev/full fails" threadreport "$d/r1.csv"
full "t2accel > /dev/full fails" t2accel -a md5 -s 64 -d 0.02
full "linpack > /dev/full fails" linpack -r 1 100
