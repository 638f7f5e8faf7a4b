# Helpers for the scripted tests: TAP output.  Source it; PATH has bin/.
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "#   $l"; done; }
# check NAME CONDITION-COMMAND...: ok when the command succeeds.
# skip REASON: a test that cannot run here, counted in the plan.
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else notok "$name" "failed: $*"; fi; }
# A pipeline fails when any part of it fails.
set -o pipefail
tmp=${TEST_TMP:-/tmp}/$(basename "$0" .sh).$$
mkdir -p "$tmp"
# The TAP plan, printed last: tests/run checks that every test announced ran.
trap 'rm -rf "$tmp"; echo "1..$n"' EXIT
