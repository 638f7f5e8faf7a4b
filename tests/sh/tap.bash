# Helpers for the scripted tests: TAP output.  Source it; PATH has bin/.
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "#   $l"; done; }
# check NAME CONDITION-COMMAND...: ok when the command succeeds.
# skip REASON: a test that cannot run here, counted in the plan.
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else notok "$name" "failed: $*"; fi; }
# left_in_session SID: a process of the session SID is still there.  A job
# started as `setsid CMD &` leads its own session (SID is $!), so this sees
# what the job left behind, and never another test's processes.
left_in_session() { [ -n "$1" ] && [ "$1" -gt 1 ] && pgrep -s "$1" >/dev/null; }
# A pipeline fails when any part of it fails.
set -o pipefail
tmp=${TEST_TMP:-/tmp}/$(basename "$0" .sh).$$
mkdir -p "$tmp"
# The TAP plan, printed last: tests/run checks that every test announced ran.
trap 'rm -rf "$tmp"; echo "1..$n"' EXIT
