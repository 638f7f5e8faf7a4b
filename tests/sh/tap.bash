# Helpers for the scripted tests: TAP output.  Source it; PATH has bin/.
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "#   $l"; done; }
# check NAME CONDITION-COMMAND...: ok when the command succeeds.
# skip REASON: a test that cannot run here, counted in the plan.
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else notok "$name" "failed: $*"; fi; }
# children PID [NAME-PREFIX]: the children of our process PID (the kernel's
# list, /proc/PID/task/*/children), those whose name starts with
# NAME-PREFIX; never a look at the machine's other processes.
children() {
	local c
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		case $(cat /proc/"$c"/comm 2>/dev/null) in "${2:-}"*) echo "$c" ;; esac
	done
}
# left_in_session SID: a live process of the session SID is still there
# half a second on (a zombie waiting for init to reap it, or a watchdog in
# its last instant, is not one); what is left goes to stderr.  A job started
# as `setsid CMD &` leads its own session (SID is $!), so this sees what the
# job left behind, and never another test's processes.
left_in_session() {
	local i
	[ -n "$1" ] && [ "$1" -gt 1 ] || return 1
	for i in 1 2 3 4 5; do
		ps -s "$1" -o stat= | grep -qv '^Z' || return 1
		sleep 0.1
	done
	ps -s "$1" -o pid=,stat=,args= | grep -v '^ *[0-9]* Z' | sed 's/^/# left: /' >&2
	return 0
}
# A pipeline fails when any part of it fails.
set -o pipefail
tmp=${TEST_TMP:-/tmp}/$(basename "$0" .sh).$$
mkdir -p "$tmp"
# The TAP plan, printed last: tests/run checks that every test announced ran.
trap 'rm -rf "$tmp"; echo "1..$n"' EXIT
