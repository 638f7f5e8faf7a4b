# The files of a cluster job, without a cluster: -o's %h, %r and %%; a log
# and a monitor series per rank when ranks share a results file; --resume
# and the measuring lock per rank; a file system without locks (ENOLCK).
# The launcher is faked with its environment (OMPI_COMM_WORLD_*).
. "$(dirname "$0")/tap.bash"
set -o pipefail

# Every variable that makes a process a rank: none of them may leak in
# from a test run that is itself under a launcher.
solo() {
	env -u OMPI_COMM_WORLD_RANK -u OMPI_COMM_WORLD_SIZE -u OMPI_COMM_WORLD_LOCAL_RANK \
		-u PMI_RANK -u PMI_SIZE -u SLURM_PROCID -u SLURM_STEP_NUM_TASKS -u PMIX_RANK \
		-u PMIX_NAMESPACE -u THREADRUN_RANK -u THREADRUN_RANKS -u THREADRUN_JOB "$@"
}
# rank R N [JOB] COMMAND...: COMMAND as rank R of N under a fake Open MPI.
rank() {
	local r=$1 size=$2 job=$3
	shift 3
	solo OMPI_COMM_WORLD_RANK="$r" OMPI_COMM_WORLD_SIZE="$size" OMPI_COMM_WORLD_LOCAL_RANK="$r" \
		PMIX_NAMESPACE="$job" "$@"
}
# has_rows FILE: a results file that reads, with rows.
has_rows() { [ -n "$(results_get "$1" algorithm)" ]; }
host=$(uname -n)
host=${host%%.*}
# The program prints the results file it was given.
seen() { printf '%s' "$THREADRUN_RESULTS" >"$1"; }
export -f seen

# %h and %r, expanded once: the file, and the program's THREADRUN_RESULTS.
rank 1 2 jobA threadrun -q -o "$tmp/r-%h-%r.csv" 1 bash -c 'seen "$0"' "$tmp/seen"
st=$?
check "-o 'r-%h-%r.csv' as rank 1 exits 0 (got $st)" [ $st -eq 0 ]
check "the file is r-$host-1.csv" has_rows "$tmp/r-$host-1.csv"
check "the program is given the expanded name" [ "$(cat "$tmp/seen")" = "$tmp/r-$host-1.csv" ]
solo threadrun -q -o "$tmp/s-%r-100%%.csv" 1 bash -c 'seen "$0"' "$tmp/seen"
check "outside a launcher %r is 0, %% a %" [ "$(cat "$tmp/seen")" = "$tmp/s-0-100%.csv" ]
check "... and that file is written" has_rows "$tmp/s-0-100%.csv"

# Anything else after a % is a usage error, before anything runs.
for bad in 'x-%d.csv' 'x-%H.csv' 'x-%'; do
	solo threadrun -o "$tmp/$bad" 1 touch "$tmp/ran" 2>"$tmp/err"
	st=$?
	check "-o '$bad': exit 2 (got $st), nothing run" [ $st -eq 2 -a ! -e "$tmp/ran" ]
	check "-o '$bad': one line naming it and what is accepted" bash -c \
		"[ \$(wc -l <'$tmp/err') -eq 1 ] && grep -qF '$tmp/$bad' '$tmp/err' &&
		 grep -q 'accepted: %h (host name up to its first dot), %r (rank, 0 outside a launcher), %% (a %)' '$tmp/err'"
done
solo threadrun --sweep 1 -o "$tmp/x-%q.csv" -- touch "$tmp/ran" 2>"$tmp/err"
st=$?
check "a sweep's bad pattern: exit 2 (got $st), named, nothing run" bash -c \
	"[ $st -eq 2 ] && [ ! -e '$tmp/ran' ] && grep -q \"'%q' in\" '$tmp/err'"

# A preloaded shim: the host name it is told, and locks that fail as on a
# network file system without a lock service.
cat >"$tmp/shim.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

int gethostname(char *name, size_t len)
{
	int (*real)(char *, size_t) = (int (*)(char *, size_t))dlsym(RTLD_NEXT, "gethostname");
	const char *h = getenv("SHIM_HOSTNAME");

	if (!h)
		return real(name, len);
	if (strlen(h) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(name, h);
	return 0;
}

static int nolock(void)
{
	return getenv("SHIM_NOLOCK") != NULL;
}

int flock(int fd, int op)
{
	int (*real)(int, int) = (int (*)(int, int))dlsym(RTLD_NEXT, "flock");

	if (nolock() && !(op & LOCK_UN)) {
		errno = ENOLCK;
		return -1;
	}
	return real(fd, op);
}

static int locking(int cmd)
{
	return cmd == F_SETLK || cmd == F_SETLKW || cmd == F_GETLK || cmd == F_OFD_SETLK ||
	       cmd == F_OFD_SETLKW || cmd == F_OFD_GETLK;
}

static int call(const char *name, int fd, int cmd, void *arg)
{
	int (*real)(int, int, ...) = (int (*)(int, int, ...))dlsym(RTLD_NEXT, name);

	if (nolock() && locking(cmd)) {
		errno = ENOLCK;
		return -1;
	}
	return real(fd, cmd, arg);
}

int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return call("fcntl", fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return call("fcntl64", fd, cmd, arg);
}
EOF
if ! cc -shared -fPIC -o "$tmp/shim.so" "$tmp/shim.c" -ldl 2>"$tmp/err"; then
	notok "the shim builds" "$(cat "$tmp/err")"
	exit 1
fi
# A sanitized program takes a preloaded library that is not its runtime.
shim() { LD_PRELOAD=$tmp/shim.so ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" "$@"; }

SHIM_HOSTNAME=node7.cluster.example shim solo threadrun -q -o "$tmp/h-%h.csv" 1 true
check "%h is the host name up to its first dot (node7)" has_rows "$tmp/h-node7.csv"
for name in 'a/b' $'a\tb' '.hidden'; do
	SHIM_HOSTNAME=$name shim solo threadrun -q -o "$tmp/h-%h.csv" 1 touch "$tmp/ran" 2>"$tmp/err"
	st=$?
	check "host name $(printf %q "$name") in %h: refused, exit 2 (got $st), nothing run" \
		[ $st -eq 2 -a ! -e "$tmp/ran" ]
	check "host name $(printf %q "$name"): one line naming it and why" bash -c \
		"[ \$(wc -l <'$tmp/err') -eq 1 ] && grep -q 'host name .* cannot be part of a file name' '$tmp/err'"
done
SHIM_HOSTNAME='a/b' shim solo threadrun -q -o "$tmp/plain.csv" 1 true
check "a host name that would not do is no matter without %h (exit $?)" has_rows "$tmp/plain.csv"

# Ranks that share one results file: a log and a series each, one file.
for r in 0 1; do
	rank $r 2 jobA threadrun -q --sweep 1 -o "$tmp/shared.csv" -- sh -c 'echo "rank $0 ran"' $r
	st=$?
	check "rank $r of 2, shared file: exit 0 (got $st)" [ $st -eq 0 ]
	check "rank $r's output is in shared.csv.rank$r.log" grep -qx "rank $r ran" "$tmp/shared.csv.rank$r.log"
done
check "no shared.csv.log: the ranks never interleave" [ ! -e "$tmp/shared.csv.log" ]
check "one results file with both runs" [ "$(results_get "$tmp/shared.csv" algorithm | grep -c '^(run)$')" -eq 2 ]
check "one lock file for both" [ -e "$tmp/shared.csv.lock" ]
rank 1 2 jobA threadrun -q --monitor=0.05 -o "$tmp/mon.csv" 1 sleep 0.2 2>/dev/null
check "rank 1's monitor series is mon.csv.rank1.monitor.csv" bash -c \
	"grep -q '^t_s,kind,id' '$tmp/mon.csv.rank1.monitor.csv' && [ ! -e '$tmp/mon.csv.monitor.csv' ]"
rank 1 2 jobA threadrun -q --sweep 1 -o "$tmp/own-%r.csv" -- true
check "with %r the files differ already: own-1.csv.log" bash -c \
	"[ -e '$tmp/own-1.csv.log' ] && [ ! -e '$tmp/own-1.csv.rank1.log' ]"
rank 0 1 jobA threadrun -q --sweep 1 -o "$tmp/one.csv" -- true
check "a job of one rank: one.csv.log" bash -c "[ -e '$tmp/one.csv.log' ] && ! ls '$tmp'/one.csv.rank* >/dev/null 2>&1"
solo threadrun -q --sweep 1 -o "$tmp/solo.csv" -- true
check "outside a launcher: solo.csv.log" [ -e "$tmp/solo.csv.log" ]

# --resume per rank.  Rows of rank 0 of job A (the rank and job set by
# hand, so this holds whoever fills them in the rows).
solo threadrun -q --sweep 1,2 -o "$tmp/made.csv" -- true
# set_rows FILE RANK JOB: made.csv with every row's rank and job set, its
# other fields as they are (quoted ones too: a line is one record here).
set_rows() {
	awk -v r="$2" -v j="$3" '
		function fields(s, a,   i, c, n, q, cur) {
			n = 1; q = 0; cur = ""
			for (i = 1; i <= length(s); i++) {
				c = substr(s, i, 1)
				if (c == "\"") q = !q
				if (c == "," && !q) { a[n++] = cur; cur = ""; continue }
				cur = cur c
			}
			a[n] = cur
			return n
		}
		NR == 1 { n = fields($0, h); for (i = 1; i <= n; i++) { if (h[i] == "rank") rc = i; if (h[i] == "job") jc = i } print; next }
		fields($0, f) != n || !rc || !jc { bad = 1; exit }
		{ f[rc] = r; f[jc] = j; line = f[1]; for (i = 2; i <= n; i++) line = line "," f[i]; print line }
		END { exit bad }' "$tmp/made.csv" >"$1"
}
set_rows "$tmp/res.csv" 0 jobA
st=$?
check "rows of rank 0, job A, made from 2 runs (exit $st)" bash -c \
	"[ $st -eq 0 ] && [ \"\$(results_get '$tmp/res.csv' rank job | sort | uniq -c | sed 's/^ *//')\" = \$'2 0\tjobA' ]"
rank 1 2 jobA threadrun --sweep 1,2 --resume -o "$tmp/res.csv" -- true 2>"$tmp/err"
check "rank 1's --resume measures what rank 0 has (2 runs)" grep -q 'sweep done: 2 runs, 0 failed, 0 skipped' "$tmp/err"
set_rows "$tmp/res0.csv" 0 jobA
rank 0 2 jobB threadrun --sweep 1,2 --resume -o "$tmp/res0.csv" -- true 2>"$tmp/err"
check "rank 0's --resume in a new job skips its own rows (a rerun is a new job)" \
	grep -q 'sweep done: 0 runs, 0 failed, 2 skipped' "$tmp/err"
set_rows "$tmp/single.csv" "" ""
check "rows without rank or job made (exit $?)" bash -c \
	"[ \"\$(results_get '$tmp/single.csv' rank job | sort | uniq -c | sed 's/^ *//')\" = \$'2 \t' ]"
rank 1 2 jobA threadrun --sweep 1,2 --resume -o "$tmp/single.csv" -- true 2>"$tmp/err"
check "a rank does not take a single machine's rows for its own" \
	grep -q 'sweep done: 2 runs, 0 failed, 0 skipped' "$tmp/err"
solo threadrun --sweep 1,2 --resume -o "$tmp/single.csv" -- true 2>"$tmp/err"
check "outside a launcher --resume still skips a single machine's rows" \
	grep -q 'sweep done: 0 runs, 0 failed, 2 skipped' "$tmp/err"

# The measuring lock is per rank: while rank 0's sweep measures, rank 1's
# --resume on the same file measures too (the ranks of a job measure
# together).  The first to run waits for the second, which ends it.
prog='if [ -e "$0" ]; then : >"$0.done"; else : >"$0"; n=0; until [ -e "$0.done" ] || [ $n -ge 400 ]; do sleep 0.05; n=$((n + 1)); done; fi'
rank 0 2 jobA threadrun -q --sweep 1 -o "$tmp/claim.csv" -- sh -c "$prog" "$tmp/mark" &
pid=$!
w=0
until [ -e "$tmp/mark" ] || [ $w -ge 400 ]; do sleep 0.05; w=$((w + 1)); done
rank 1 2 jobA threadrun --sweep 1 --resume -o "$tmp/claim.csv" -- sh -c "$prog" "$tmp/mark" 2>"$tmp/err"
st=$?
wait $pid
check "rank 1 measures while rank 0 holds its lock (exit $st)" bash -c \
	"[ $st -eq 0 ] && [ -e '$tmp/mark.done' ] && grep -q 'sweep done: 1 run, 0 failed, 0 skipped' '$tmp/err'"

# A file system without locks: one message naming the file and suggesting
# one file per host, before anything runs where it can be found early.
solo threadrun -q -o "$tmp/nfs.csv" 1 true
SHIM_NOLOCK=1 shim solo threadrun -q -o "$tmp/nfs.csv" 1 touch "$tmp/ran" 2>"$tmp/err"
st=$?
check "ENOLCK on an existing file: exit 2 (got $st), nothing run" [ $st -eq 2 -a ! -e "$tmp/ran" ]
check "ENOLCK: one line naming the file, suggesting %h" bash -c \
	"[ \$(wc -l <'$tmp/err') -eq 1 ] && grep -qF \"cannot lock '$tmp/nfs.csv'\" '$tmp/err' &&
	 grep -qF -e \"-o '$tmp/nfs-%h.csv'\" '$tmp/err'"
SHIM_NOLOCK=1 shim solo threadrun -q -o "$tmp/nfs-new.csv" 1 touch "$tmp/ran" 2>"$tmp/err"
st=$?
check "ENOLCK on a new file: its FILE.lock stops the run, exit 2 (got $st), nothing run" \
	[ $st -eq 2 -a ! -s "$tmp/nfs-new.csv" -a ! -e "$tmp/ran" ]
check "... with the same message" grep -qF -e "-o '$tmp/nfs-new-%h.csv'" "$tmp/err"
SHIM_NOLOCK=1 shim solo threadrun -q --sweep 1 -o "$tmp/nfs-sweep.csv" -- touch "$tmp/ran" 2>"$tmp/err"
st=$?
check "ENOLCK on a sweep's FILE.lock: exit 2 (got $st), nothing run" [ $st -eq 2 -a ! -e "$tmp/ran" ]
check "ENOLCK in a sweep: one line naming FILE.lock, suggesting %h" bash -c \
	"[ \$(wc -l <'$tmp/err') -eq 1 ] && grep -qF \"cannot lock '$tmp/nfs-sweep.csv.lock'\" '$tmp/err' &&
	 grep -qF -e \"-o '$tmp/nfs-sweep-%h.csv'\" '$tmp/err'"
SHIM_NOLOCK=1 shim solo t2accel -q -a md5 -s 16 -d 0.05 -o "$tmp/nfs.csv" >/dev/null 2>"$tmp/err"
st=$?
check "a workload alone on that file: fails (exit $st) with the message" bash -c \
	"[ $st -ne 0 ] && grep -qF -e \"-o '$tmp/nfs-%h.csv'\" '$tmp/err'"
