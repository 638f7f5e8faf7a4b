# Helpers for the scripted tests: TAP output.  Source it; PATH has bin/.
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "#   $l"; done; }
# check NAME CONDITION-COMMAND...: ok when the command succeeds.
check() { local name=$1; shift; if "$@"; then ok "$name"; else notok "$name" "failed: $*"; fi; }
tmp=${TEST_TMP:-/tmp}/$(basename "$0" .sh).$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
